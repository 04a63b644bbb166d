/// One row of the check-in store: everything the store ever holds about a stay. Without the card's record key the
/// row says nothing but its handle (a per-card pseudonym), its size and its expiry hour.
public struct StoredStay: Sendable, Equatable {
    /// Random 16-byte stay id; a row is named by (handle, id).
    public var id: [UInt8]
    /// The card's lookup handle (32 bytes).
    public var handle: [UInt8]
    /// Nonce · AES-256-GCM ciphertext · tag; the associated data binds it to `handle` and `id`.
    public var sealed: [UInt8]
    /// The hour (hours since the epoch, UTC) from whose start the row may be deleted.
    public var expiryHour: Int64

    public init(id: [UInt8], handle: [UInt8], sealed: [UInt8], expiryHour: Int64) {
        self.id = id
        self.handle = handle
        self.sealed = sealed
        self.expiryHour = expiryHour
    }
}

/// What the store can tell without any card: counts and expiry hours only.
public struct StoreCounts: Sendable, Equatable {
    public var stays: Int
    public var cards: Int
    /// Rows per expiry hour (hours since the epoch).
    public var staysByExpiryHour: [Int64: Int]

    public init(stays: Int, cards: Int, staysByExpiryHour: [Int64: Int]) {
        self.stays = stays
        self.cards = cards
        self.staysByExpiryHour = staysByExpiryHour
    }
}

/// The check-in store port. Every mutating call is durable when it returns (the kiosk acknowledges a tap only
/// then) and atomic (all of it or nothing). Deleting calls leave no copy of the deleted bytes in any file.
public protocol CheckInStore: Sendable {
    /// The rows under `handle`.
    func stays(handle: [UInt8]) throws(StoreError) -> [StoredStay]
    /// Inserts or replaces `upserts` and deletes the rows with ids `deletions`, all under `handle`, in one
    /// transaction. Rows of other handles are never touched, whatever their ids.
    func commit(handle: [UInt8], upserts: [StoredStay], deletions: [[UInt8]]) throws(StoreError)
    /// Deletes every row under `handle`, and the card's profile; returns how many rows.
    func deleteAll(handle: [UInt8]) throws(StoreError) -> Int
    /// Deletes every row whose expiry hour is `hour` or earlier; returns how many.
    func expire(throughHour hour: Int64) throws(StoreError) -> Int
    /// Deletes every row, profile and block of every card.
    func wipe() throws(StoreError)
    /// The sealed profile of the card with `handle` (`CardProfile`), if one was saved.
    func profile(handle: [UInt8]) throws(StoreError) -> [UInt8]?
    /// Saves (replaces) the sealed profile of the card with `handle`, durably; the replaced bytes leave no copy.
    func saveProfile(handle: [UInt8], sealed: [UInt8]) throws(StoreError)
    /// Whether the card with `handle` was blocked on this kiosk.
    func isBlocked(handle: [UInt8]) throws(StoreError) -> Bool
    /// Blocks the card with `handle`: deletes its rows and profile and remembers only the handle as blocked, in one
    /// transaction; returns how many rows went.
    func block(handle: [UInt8]) throws(StoreError) -> Int
    /// Counts and expiry hours.
    func counts() throws(StoreError) -> StoreCounts
    /// The kiosk's handle salt (mixed into every card's key derivation). If there is none yet, stores `fresh`
    /// durably and returns it; afterwards always returns the stored one.
    func handleSalt(orStore fresh: [UInt8]) throws(StoreError) -> [UInt8]
}

/// Why the store failed. Messages say what a field worker can do; they carry no stored data.
public enum StoreError: Error, Sendable, Equatable {
    /// The storage is full: nothing new can be written.
    case storageFull
    /// The database file or its file system is read-only.
    case readOnly
    /// The database file is damaged or is not a kiosk database.
    case corrupt
    /// The state directory or database cannot be opened or created.
    case cannotOpen
    /// Another I/O failure (SQLite extended result code).
    case ioFailure(code: Int32)
    /// The database was written by a newer kiosk version.
    case newerSchema
    /// Another process holds the database locked (busy past the store's wait): nothing is wrong with the storage.
    case busy
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .storageFull:
            "the kiosk's storage is full. Free space on the data partition; stored check-ins are safe."
        case .readOnly:
            "the kiosk's storage is read-only. Check the SD card (it may be worn out or locked) and the state directory's permissions; stored check-ins are safe."
        case .corrupt:
            "the check-in database is damaged. Do not delete it; keep the kiosk off and contact support to recover it."
        case .cannotOpen:
            "the check-in database cannot be opened. Check that the state directory exists and is writable."
        case .ioFailure(let code):
            "the storage reported an input/output error (code \(code)). Check the SD card."
        case .newerSchema:
            "the check-in database was written by a newer kiosk version. Install that version again."
        case .busy:
            "the check-in database is locked by another program. Stop any other program using the kiosk's state directory (a copy, a backup, sqlite3); stored check-ins are safe."
        }
    }
}
