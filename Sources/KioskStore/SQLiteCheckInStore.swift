internal import Foundation
internal import GRDB
public import KioskCore
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The kiosk's check-in store: one SQLite database (through GRDB) in the state directory.
///
/// - WAL journal, `synchronous = FULL`: every committed transaction is on disk (the WAL is fsynced) when
///   `commit` returns, so a tap is acknowledged only once it survives a power cut.
/// - `secure_delete = ON`, and `PRAGMA wal_checkpoint(TRUNCATE)` after every deletion: deleted rows are overwritten
///   with zeros in the database file and the WAL is emptied, so no file of the state directory keeps their bytes.
/// - Rows hold only the card's lookup handle, a stay id, the sealed stay and an expiry day (schema migrations from v1),
///   keyed by (handle, id) so that one card's rows sit together.
/// - Start-up checks the file (`PRAGMA quick_check`). A damaged file is left untouched and reported as
///   `StoreError.corrupt`; after a damage report at run time the store refuses every call until it is reopened.
public final class SQLiteCheckInStore: CheckInStore {
    /// The database file's name inside the state directory.
    public static let fileName = "checkins.sqlite"

    /// The database file.
    public let path: String
    private let queue: DatabaseQueue
    private let failure = Mutex<StoreError?>(nil)
    private let cachedSalt = Mutex<[UInt8]?>(nil)
    private let maximumPageCount: Int?
    private let minimumFreeBytes: Int

    /// Opens (or creates) the store in `directory`, creating the directory if needed.
    /// `maximumPageCount` caps the file (SQLite `max_page_count`); the kiosk leaves it nil.
    /// `minimumFreeBytes`: after the storage ran full, writes stay refused until the file system has this much
    /// free space again (and the file is below `maximumPageCount`), so the kiosk does not flap between storing and
    /// failing on the last few kilobytes.
    public init(directory: String, maximumPageCount: Int? = nil, minimumFreeBytes: Int = 1 << 20) throws(StoreError) {
        self.maximumPageCount = maximumPageCount
        self.minimumFreeBytes = minimumFreeBytes
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw Self.classify(errno: errno, directory: directory)
        }
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        var configuration = Configuration()
        configuration.label = "kiosk.checkins"
        configuration.prepareDatabase { db in
            // GRDB's own WAL setup would lower `synchronous` to NORMAL (not durable per commit): set WAL here.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // SQLite's automatic checkpoint every 1000 WAL pages (each costs extra fsyncs, so not more often);
            // afterwards the WAL is cut back to 1 MiB so that it does not stay large on a small SD card.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 1000")
            try db.execute(sql: "PRAGMA journal_size_limit = 1048576")
            if let maximumPageCount {
                try db.execute(sql: "PRAGMA max_page_count = \(maximumPageCount)")
            }
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            // Owner-only, like the state directory; SQLite gives -wal and -shm the database file's mode.
            chmod(path, 0o600)
            try queue.writeWithoutTransaction { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else { throw StoreError.corrupt }
                let secureDelete = try Int.fetchOne(db, sql: "PRAGMA secure_delete")
                let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                // 1 = ON; synchronous 2 = FULL. Anything else would break the durability or deletion promises.
                let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode")
                guard secureDelete == 1, synchronous == 2, journal == "wal" else { throw StoreError.cannotOpen }
                if try Self.migrator.hasBeenSuperseded(db) { throw StoreError.newerSchema }
            }
            try Self.migrator.migrate(queue)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.classify(error, directory: directory)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE stay (
                        handle BLOB NOT NULL CHECK (length(handle) = 32),
                        id BLOB NOT NULL CHECK (length(id) = 16),
                        sealed BLOB NOT NULL,
                        expiry_day INTEGER NOT NULL,
                        PRIMARY KEY (handle, id)
                    ) WITHOUT ROWID;
                    CREATE INDEX stay_by_expiry_day ON stay(expiry_day);
                    """)
        }
        migrator.registerMigration("v2: kiosk handle salt") { db in
            try db.execute(
                sql: """
                    CREATE TABLE kiosk (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        handle_salt BLOB NOT NULL CHECK (length(handle_salt) = 32)
                    );
                    """)
        }
        migrator.registerMigration("v3: settings") { db in
            try db.execute(
                sql: """
                    CREATE TABLE setting (
                        key TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: expiry to the hour") { db in
            // A row kept to the end of its expiry day keeps that bound (never earlier than 14 days after its stay):
            // the first hour of day `expiry_day` is hour `expiry_day × 24`.
            try db.execute(
                sql: """
                    CREATE TABLE stay_by_hour (
                        handle BLOB NOT NULL CHECK (length(handle) = 32),
                        id BLOB NOT NULL CHECK (length(id) = 16),
                        sealed BLOB NOT NULL,
                        expiry_hour INTEGER NOT NULL,
                        PRIMARY KEY (handle, id)
                    ) WITHOUT ROWID;
                    INSERT INTO stay_by_hour (handle, id, sealed, expiry_hour)
                        SELECT handle, id, sealed, expiry_day * 24 FROM stay;
                    DROP TABLE stay;
                    ALTER TABLE stay_by_hour RENAME TO stay;
                    CREATE INDEX stay_by_expiry_hour ON stay(expiry_hour);
                    """)
        }
        migrator.registerMigration("v5: card profiles and blocked cards") { db in
            // A card's own choices (sealed under its record key) and the handles of cards their holders blocked.
            try db.execute(
                sql: """
                    CREATE TABLE card_profile (
                        handle BLOB PRIMARY KEY NOT NULL CHECK (length(handle) = 32),
                        sealed BLOB NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE blocked_card (
                        handle BLOB PRIMARY KEY NOT NULL CHECK (length(handle) = 32)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    /// A setting's bytes (`nil` if unset). Settings are not stays: a wipe keeps them.
    public func setting(_ key: String) throws(StoreError) -> [UInt8]? {
        try run { db in try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
            .map { Array($0) }
    }

    /// Stores (or with `nil` removes) a setting, durably; the value it replaces leaves no copy in any file (the
    /// station state holds warning records that must go with the stays they concern).
    public func setSetting(_ key: String, to value: [UInt8]?) throws(StoreError) {
        defer { try? checkpoint() }
        if let value {
            try write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)",
                    arguments: [key, Data(value)])
            }
        } else {
            try delete { db in try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key]) }
        }
    }

    public func handleSalt(orStore fresh: [UInt8]) throws(StoreError) -> [UInt8] {
        if let salt = cachedSalt.withLock({ $0 }) { return salt }
        precondition(fresh.count == 32, "the handle salt is 32 bytes")
        // Read first: an existing salt must be usable while the storage is full ("delete all my data" then).
        let existing = try run { db in try Data.fetchOne(db, sql: "SELECT handle_salt FROM kiosk WHERE id = 1") }
        if let existing {
            cachedSalt.withLock { $0 = Array(existing) }
            return Array(existing)
        }
        let salt = try write { db in
            if let existing = try Data.fetchOne(db, sql: "SELECT handle_salt FROM kiosk WHERE id = 1") {
                return Array(existing)
            }
            try db.execute(sql: "INSERT INTO kiosk (id, handle_salt) VALUES (1, ?)", arguments: [Data(fresh)])
            return fresh
        }
        cachedSalt.withLock { $0 = salt }
        return salt
    }

    public func stays(handle: [UInt8]) throws(StoreError) -> [StoredStay] {
        try run { db in
            try Row.fetchAll(
                db, sql: "SELECT id, sealed, expiry_hour FROM stay WHERE handle = ?",
                arguments: [Data(handle)]
            ).map { row in
                StoredStay(
                    id: Array(row["id"] as Data), handle: handle, sealed: Array(row["sealed"] as Data),
                    expiryHour: row["expiry_hour"])
            }
        }
    }

    public func commit(handle: [UInt8], upserts: [StoredStay], deletions: [[UInt8]]) throws(StoreError) {
        precondition(upserts.allSatisfy { $0.handle == handle }, "a commit writes rows of one card only")
        let body: @Sendable (Database) throws -> Void = { db in
            for row in upserts {
                // Rows are keyed by (handle, id), clustered by card: a tap touches one table page and one index page.
                // Ids are per card, so no card can replace another card's row.
                try db.execute(
                    sql: """
                        INSERT INTO stay (handle, id, sealed, expiry_hour) VALUES (?, ?, ?, ?)
                        ON CONFLICT (handle, id) DO UPDATE SET sealed = excluded.sealed, expiry_hour = excluded.expiry_hour
                        """, arguments: [Data(handle), Data(row.id), Data(row.sealed), row.expiryHour])
            }
            for id in deletions {
                try db.execute(
                    sql: "DELETE FROM stay WHERE handle = ? AND id = ?", arguments: [Data(handle), Data(id)])
            }
        }
        if upserts.isEmpty { try delete(body) } else { try write(body) }
        if !deletions.isEmpty { try checkpoint() }
    }

    public func deleteAll(handle: [UInt8]) throws(StoreError) -> Int {
        let count = try delete { db in
            try db.execute(sql: "DELETE FROM stay WHERE handle = ?", arguments: [Data(handle)])
            let rows = db.changesCount
            try db.execute(sql: "DELETE FROM card_profile WHERE handle = ?", arguments: [Data(handle)])
            return rows
        }
        try checkpoint()
        return count
    }

    public func profile(handle: [UInt8]) throws(StoreError) -> [UInt8]? {
        try run { db in
            try Data.fetchOne(db, sql: "SELECT sealed FROM card_profile WHERE handle = ?", arguments: [Data(handle)])
        }.map { Array($0) }
    }

    public func saveProfile(handle: [UInt8], sealed: [UInt8]) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO card_profile (handle, sealed) VALUES (?, ?)",
                arguments: [Data(handle), Data(sealed)])
        }
        // The replaced profile (a PIN verifier, a wrong-PIN count) leaves no copy in the WAL.
        try checkpoint()
    }

    public func isBlocked(handle: [UInt8]) throws(StoreError) -> Bool {
        try run { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM blocked_card WHERE handle = ?)", arguments: [Data(handle)])
        } ?? false
    }

    public func block(handle: [UInt8]) throws(StoreError) -> Int {
        let count = try delete { db in
            try db.execute(sql: "DELETE FROM stay WHERE handle = ?", arguments: [Data(handle)])
            let rows = db.changesCount
            try db.execute(sql: "DELETE FROM card_profile WHERE handle = ?", arguments: [Data(handle)])
            try db.execute(sql: "INSERT OR IGNORE INTO blocked_card (handle) VALUES (?)", arguments: [Data(handle)])
            return rows
        }
        try checkpoint()
        return count
    }

    public func expire(throughHour hour: Int64) throws(StoreError) -> Int {
        let count = try delete { db in
            try db.execute(sql: "DELETE FROM stay WHERE expiry_hour <= ?", arguments: [hour])
            return db.changesCount
        }
        try checkpoint()
        return count
    }

    public func wipe() throws(StoreError) {
        try delete { db in
            try db.execute(sql: "DELETE FROM stay")
            try db.execute(sql: "DELETE FROM card_profile")
            try db.execute(sql: "DELETE FROM blocked_card")
        }
        try checkpoint()
    }

    public func counts() throws(StoreError) -> StoreCounts {
        try run { db in
            let stays = try Int.fetchOne(db, sql: "SELECT count(*) FROM stay") ?? 0
            let cards = try Int.fetchOne(db, sql: "SELECT count(DISTINCT handle) FROM stay") ?? 0
            var byHour = [Int64: Int]()
            for row in try Row.fetchAll(db, sql: "SELECT expiry_hour, count(*) AS n FROM stay GROUP BY expiry_hour") {
                byHour[row["expiry_hour"]] = row["n"]
            }
            return StoreCounts(stays: stays, cards: cards, staysByExpiryHour: byHour)
        }
    }

    /// `PRAGMA integrity_check`: true if SQLite finds the file sound.
    public func integrityCheck() throws(StoreError) -> Bool {
        try run { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"] }
    }

    /// Closes the database. Further calls fail.
    public func close() throws(StoreError) {
        do { try queue.close() } catch { throw Self.classify(error, directory: directory) }
    }

    // MARK: - Plumbing

    private var directory: String { String(path.dropLast(Self.fileName.count + 1)) }

    /// Empties the WAL into the database file and truncates it to zero bytes.
    private func checkpoint() throws(StoreError) {
        try run { db in
            let result = try db.checkpoint(.truncate)
            // Only this connection uses the file, so the checkpoint must have copied every frame.
            guard result.walFrameCount == 0 || result.walFrameCount == result.checkpointedFrameCount else {
                throw StoreError.ioFailure(code: 5)
            }
        }
    }

    private func write<T>(_ body: @escaping (Database) throws -> T) throws(StoreError) -> T {
        try refuseWhileFull()
        return try guarded { try queue.write(body) }
    }

    /// Deletions free space, so they run even while the store is full.
    private func delete<T>(_ body: @escaping (Database) throws -> T) throws(StoreError) -> T {
        try guarded { try queue.write(body) }
    }

    /// After `storageFull`, refuses writes until there is room again.
    private func refuseWhileFull() throws(StoreError) {
        guard failure.withLock({ $0 }) == .storageFull else { return }
        var info = statvfs()
        var room = statvfs(directory, &info) == 0 && Int(info.f_bavail) * Int(info.f_frsize) >= minimumFreeBytes
        if room, let maximumPageCount {
            let pages = (try? queue.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") }) ?? nil
            room = (pages ?? maximumPageCount) + 16 <= maximumPageCount
        }
        guard room else { throw .storageFull }
        failure.withLock { if $0 == .storageFull { $0 = nil } }
    }

    private func run<T>(_ body: @escaping (Database) throws -> T) throws(StoreError) -> T {
        try guarded { try queue.writeWithoutTransaction(body) }
    }

    private func guarded<T>(_ body: () throws -> T) throws(StoreError) -> T {
        if let sticky = failure.withLock({ $0 }), sticky == .corrupt { throw sticky }
        do {
            return try body()
        } catch {
            let storeError = (error as? StoreError) ?? Self.classify(error, directory: directory)
            if storeError == .corrupt || storeError == .storageFull { failure.withLock { $0 = storeError } }
            throw storeError
        }
    }

    static func classify(_ error: any Error, directory: String) -> StoreError {
        if let storeError = error as? StoreError { return storeError }
        guard let databaseError = error as? DatabaseError else { return .ioFailure(code: -1) }
        switch databaseError.resultCode {
        case .SQLITE_FULL: return .storageFull
        // Another process holds a lock past the busy timeout: not an I/O error of the SD card.
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        case .SQLITE_READONLY: return .readOnly
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .corrupt
        case .SQLITE_CANTOPEN:
            return diagnose(directory: directory) ?? .cannotOpen
        case .SQLITE_IOERR:
            // SQLite reports ENOSPC and EROFS met mid-write as plain I/O errors: ask the file system which it was.
            return diagnose(directory: directory) ?? .ioFailure(code: databaseError.extendedResultCode.rawValue)
        default:
            return .ioFailure(code: databaseError.extendedResultCode.rawValue)
        }
    }

    static func classify(errno code: Int32, directory: String) -> StoreError {
        switch code {
        case EROFS, EACCES, EPERM: .readOnly
        case ENOSPC, EDQUOT: .storageFull
        default: .cannotOpen
        }
    }

    /// Read-only or full file system, from `statvfs` on the state directory.
    private static func diagnose(directory: String) -> StoreError? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        if info.f_flag & UInt(ST_RDONLY) != 0 { return .readOnly }
        if info.f_bavail == 0 { return .storageFull }
        if access(directory, W_OK) != 0 { return .readOnly }
        return nil
    }
}
