import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// Full disk, read-only file system or file, damaged file: a clear error, nothing acknowledged is lost, new
/// check-ins are refused until the cause is fixed, and opening again gives the same answer (no crash loop).
@Suite(.serialized) struct StoreFailureTests {
    let crypto = OpenSSLCrypto()
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Taps distinct cards until the store refuses; returns the stored cards and the refusal.
    func fill(_ desk: CheckInDesk, limit: Int) throws -> (stored: [CardSecret], refusal: TapRefusal?) {
        var stored = [CardSecret]()
        for index in 0..<limit {
            let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
            switch desk.tap(
                card, at: testVenue,
                clock: ClockReading(now: start.addingTimeInterval(Double(index)), isSynchronized: true))
            {
            case .checkedIn: stored.append(card)
            case .refused(let reason): return (stored, reason)
            default: Issue.record("unexpected outcome")
            }
        }
        return (stored, nil)
    }

    func expectAllPresent(_ cards: [CardSecret], in store: any CheckInStore) throws {
        let desk = CheckInDesk(store: store, crypto: crypto)
        for card in cards {
            #expect(try desk.stays(of: card, clock: ClockReading(now: start, isSynchronized: true)).count == 1)
        }
    }

    @Test func fullDatabaseRefusesAndKeepsAcknowledgedStays() throws {
        let directory = TemporaryDirectory("full")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path, maximumPageCount: 12)
        var (stored, refusal) = try fill(CheckInDesk(store: store, crypto: crypto), limit: 5000)
        #expect(refusal == .storeUnavailable(.storageFull))
        #expect(refusal?.description.contains("storage is full") == true)
        #expect(stored.count > 5)
        // Still refusing while full, even for a small row that might fit a page.
        #expect(
            try fill(CheckInDesk(store: store, crypto: crypto), limit: 1).refusal == .storeUnavailable(.storageFull))
        try expectAllPresent(stored, in: store)
        #expect(try store.integrityCheck())
        try store.close()
        // Restarted while still full: reading and "delete all my data" work; new check-ins are still refused.
        let stillFull = try SQLiteCheckInStore(directory: directory.path, maximumPageCount: 12)
        let fullDesk = CheckInDesk(store: stillFull, crypto: crypto)
        try expectAllPresent(stored, in: stillFull)
        #expect(try fullDesk.deleteAll(of: stored[0]) == 1)
        let erased = stored.removeFirst()
        #expect(try fullDesk.stays(of: erased, clock: ClockReading(now: start, isSynchronized: true)).isEmpty)
        try stillFull.close()
        // Fixed (room again): everything acknowledged is there and check-ins resume.
        let roomy = try SQLiteCheckInStore(directory: directory.path)
        try expectAllPresent(stored, in: roomy)
        #expect(try fill(CheckInDesk(store: roomy, crypto: crypto), limit: 3).refusal == nil)
    }

    @Test(.enabled(if: Mounting.available, "needs root to mount a small tmpfs"))
    func fullFileSystemRefusesAndRecovers() throws {
        let directory = TemporaryDirectory("tmpfs-full")
        defer { directory.remove() }
        #expect(Mounting.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path]) == 0)
        defer { Mounting.run("/bin/umount", ["-l", directory.path]) }
        let state = directory.path + "/state"
        let store = try SQLiteCheckInStore(directory: state, minimumFreeBytes: 64 << 10)
        let (first, _) = try fill(CheckInDesk(store: store, crypto: crypto), limit: 20)
        #expect(first.count == 20)
        // Fill the file system with something else.
        let filler = directory.path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let block = Data(repeating: 0x55, count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try? handle.close()
        var (more, refusal) = try fill(CheckInDesk(store: store, crypto: crypto), limit: 2000)
        #expect(refusal == .storeUnavailable(.storageFull), "got \(String(describing: refusal))")
        try expectAllPresent(first + more, in: store)
        // Fixed: the filler goes, check-ins resume, nothing was lost.
        try FileManager.default.removeItem(atPath: filler)
        let after = try fill(CheckInDesk(store: store, crypto: crypto), limit: 3)
        #expect(after.refusal == nil, "got \(String(describing: after.refusal))")
        more += after.stored
        try expectAllPresent(first + more, in: store)
        #expect(try store.integrityCheck())
        try store.close()
    }

    @Test(.enabled(if: Mounting.available, "needs root to remount a tmpfs read-only"))
    func readOnlyFileSystemRefusesWithAClearMessage() throws {
        let directory = TemporaryDirectory("tmpfs-ro")
        defer { directory.remove() }
        #expect(Mounting.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path]) == 0)
        defer { Mounting.run("/bin/umount", ["-l", directory.path]) }
        let state = directory.path + "/state"
        let store = try SQLiteCheckInStore(directory: state)
        let (stored, _) = try fill(CheckInDesk(store: store, crypto: crypto), limit: 5)
        try store.close()
        #expect(Mounting.run("/bin/mount", ["-o", "remount,ro", directory.path]) == 0)
        // Opening on a read-only file system: a clear refusal, either at open or at the first tap.
        for _ in 0..<2 {
            do {
                let readOnly = try SQLiteCheckInStore(directory: state)
                let refusal = try fill(CheckInDesk(store: readOnly, crypto: crypto), limit: 1).refusal
                #expect(refusal == .storeUnavailable(.readOnly), "got \(String(describing: refusal))")
                try? readOnly.close()
            } catch let error as StoreError {
                #expect(error == .readOnly, "got \(error)")
                #expect(error.description.contains("read-only"))
            }
        }
        #expect(Mounting.run("/bin/mount", ["-o", "remount,rw", directory.path]) == 0)
        let healed = try SQLiteCheckInStore(directory: state)
        try expectAllPresent(stored, in: healed)
        #expect(try fill(CheckInDesk(store: healed, crypto: crypto), limit: 1).refusal == nil)
        try healed.close()
    }

    /// Root ignores file permissions, so a read-only file can only be tested as another user.
    @Test(.enabled(if: getuid() != 0, "root ignores file permissions; the read-only file system test covers root"))
    func readOnlyFileRefusesWithAClearMessage() throws {
        let directory = TemporaryDirectory("ro-file")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        let (stored, _) = try fill(CheckInDesk(store: store, crypto: crypto), limit: 3)
        try store.close()
        for name in try directory.files().keys { chmod(directory.path + "/" + name, 0o444) }
        chmod(directory.path, 0o555)
        defer { chmod(directory.path, 0o700) }
        do {
            let readOnly = try SQLiteCheckInStore(directory: directory.path)
            #expect(
                try fill(CheckInDesk(store: readOnly, crypto: crypto), limit: 1).refusal == .storeUnavailable(.readOnly)
            )
        } catch let error as StoreError {
            #expect(error == .readOnly || error == .cannotOpen, "got \(error)")
        }
        chmod(directory.path, 0o700)
        for name in try directory.files().keys { chmod(directory.path + "/" + name, 0o600) }
        try expectAllPresent(stored, in: try SQLiteCheckInStore(directory: directory.path))
    }

    @Test func damagedHeaderIsReportedAndTheFileLeftAlone() throws {
        let directory = TemporaryDirectory("corrupt-header")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        _ = try fill(CheckInDesk(store: store, crypto: crypto), limit: 3)
        try store.close()
        let path = directory.path + "/" + SQLiteCheckInStore.fileName
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for index in 0..<100 { bytes[index] = UInt8(truncatingIfNeeded: index &* 37) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        // Opening twice gives the same clear error (no crash, no repair attempt that could lose data).
        for _ in 0..<2 {
            #expect(throws: StoreError.corrupt) { _ = try SQLiteCheckInStore(directory: directory.path) }
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        #expect(StoreError.corrupt.description.contains("damaged"))
    }

    @Test func damagedPageIsFoundAtStartUp() throws {
        let directory = TemporaryDirectory("corrupt-page")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        _ = try fill(CheckInDesk(store: store, crypto: crypto), limit: 200)
        try store.close()
        let path = directory.path + "/" + SQLiteCheckInStore.fileName
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 4 * 4096)
        // Scribble over the b-tree page headers of pages 2 and 3 (the tables and indexes).
        for page in 1...3 { for offset in 0..<64 { bytes[page * 4096 + offset] = 0xa5 } }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.corrupt) { _ = try SQLiteCheckInStore(directory: directory.path) }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
    }

    /// A database another program holds locked is said to be locked, not an SD card I/O error; once the other
    /// program lets go, check-ins resume. The lock is taken by the sqlite3 shell, and the test waits for it to say
    /// so.
    @Test func aDatabaseLockedByAnotherProgramIsSaidToBeLocked() throws {
        let directory = TemporaryDirectory("locked")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ClockReading(now: start, isSynchronized: true)
        #expect(
            desk.tap(try CardSecret.generate(kind: .visitor, crypto: crypto), at: testVenue, clock: clock).isCheckIn)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [directory.path + "/checkins.sqlite"]
        let input = Pipe()
        let output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        try shell.run()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        var said = ""
        while !said.contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        #expect(said.contains("locked"), "the shell took the lock")
        let refused = desk.tap(try CardSecret.generate(kind: .visitor, crypto: crypto), at: testVenue, clock: clock)
        #expect(refused == .refused(.storeUnavailable(.busy)))
        #expect(StoreError.busy.description.contains("locked by another program"))
        input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        shell.waitUntilExit()
        #expect(
            desk.tap(try CardSecret.generate(kind: .visitor, crypto: crypto), at: testVenue, clock: clock).isCheckIn)
    }

    @Test func errorsCarryNoPersonalData() {
        let all: [StoreError] = [
            .storageFull, .readOnly, .corrupt, .cannotOpen, .ioFailure(code: 778), .newerSchema, .busy,
        ]
        for error in all {
            let text = error.description
            #expect(!text.contains("Town Hall") && !text.contains("Market Square"))
            #expect(text.count > 20)
        }
    }
}

extension TapOutcome {
    fileprivate var isCheckIn: Bool { if case .checkedIn = self { true } else { false } }
}
