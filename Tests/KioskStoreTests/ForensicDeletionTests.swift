import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// Write stays, delete them (one stay, all of a card, expiry, wipe), then scan every file of the state directory
/// for every byte string the store held for them: id, handle, every sealed version. None may remain.
@Suite struct ForensicDeletionTests {
    enum Deletion: String, CaseIterable, Sendable { case deleteStay, deleteAll, expire, wipe }

    /// Byte strings that identify the victim card's rows: ids, handle, and 16-byte pieces of each sealed version.
    static func needles(of rows: [StoredStay]) -> [[UInt8]] {
        var out = [[UInt8]]()
        for row in rows {
            out.append(row.id)
            out.append(row.handle)
            var offset = 0
            while offset + 16 <= row.sealed.count {
                out.append(Array(row.sealed[offset..<(offset + 16)]))
                offset += 8
            }
        }
        return out
    }

    static func remaining(_ needles: [[UInt8]], in directory: TemporaryDirectory) throws -> [String] {
        var found = [String]()
        for (name, contents) in try directory.files() {
            for needle in needles where contents.contains(bytes: needle) {
                found.append("\(name): \(needle.count)-byte string")
            }
        }
        return found
    }

    @Test(arguments: Deletion.allCases) func deletedStaysLeaveNoBytesInAnyFile(deletion: Deletion) throws {
        let directory = TemporaryDirectory("forensic")
        defer { directory.remove() }
        let crypto = OpenSSLCrypto()
        let store = try SQLiteCheckInStore(directory: directory.path)
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
        let victim = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let bystander = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let victimHandle = try desk.keys(for: victim).handle

        // The victim checks in and out (two sealed versions of one stay), then in again; others check in around it.
        var rowsSeen = [StoredStay]()
        for _ in 0..<3 {
            _ = desk.tap(victim, at: testVenue, clock: clock.read())
            rowsSeen += try store.stays(handle: victimHandle)
            clock.advance(by: 600)
        }
        // The bystander's stays come later, so that expiry removes only the victim's.
        clock.advance(by: 3 * 86_400)
        for _ in 0..<3 {
            _ = desk.tap(bystander, at: testVenue, clock: clock.read())
            clock.advance(by: 600)
        }
        let needles = Self.needles(of: rowsSeen)
        #expect(rowsSeen.count >= 3)
        // Control: before deletion the scan finds them, so the scan can fail.
        #expect(!(try Self.remaining(needles, in: directory)).isEmpty)

        switch deletion {
        case .deleteStay:
            for stay in try desk.stays(of: victim, clock: clock.read()) { try desk.deleteStay(stay.id, of: victim) }
        case .deleteAll:
            #expect(try desk.deleteAll(of: victim) == 2)
        case .expire:
            let victimEnd = Date(timeIntervalSince1970: 1_790_000_000 + 1200 + 7200)
            clock.set(victimEnd.addingTimeInterval(15 * 86_400))
            #expect(try desk.expire(clock: clock.read()) == 2)
        case .wipe:
            try desk.wipeKiosk()
        }
        #expect(try store.stays(handle: victimHandle).isEmpty)
        let left = try Self.remaining(needles, in: directory)
        #expect(left.isEmpty, "deleted bytes remain: \(left)")
        #expect(try store.integrityCheck())
        if deletion != .wipe {
            #expect(
                try desk.stays(of: bystander, clock: ClockReading(now: clock.read().now, isSynchronized: true)).count
                    == 2)
        }
        let names = try directory.files().keys.sorted()
        #expect(names.contains(SQLiteCheckInStore.fileName))
        #expect(names.contains(SQLiteCheckInStore.fileName + "-wal"))
    }

    enum CardDeletion: String, CaseIterable, Sendable { case deleteAll, block, wipe, newPIN }

    /// A card's profile (its PIN verifier, its wrong-PIN count, its permission) goes with the card's data: "delete
    /// everything", "block my card" and a wipe leave none of its sealed bytes in any file; a replaced profile (a new
    /// PIN) leaves no copy of the old one. A blocked card keeps only its handle.
    @Test(arguments: CardDeletion.allCases) func aCardsProfileLeavesNoBytesInAnyFile(deletion: CardDeletion) throws {
        let directory = TemporaryDirectory("forensic-profile")
        defer { directory.remove() }
        let crypto = OpenSSLCrypto()
        let store = try SQLiteCheckInStore(directory: directory.path)
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let handle = try desk.keys(for: card).handle
        _ = desk.tap(card, at: testVenue, clock: clock.read())
        var sealed = [[UInt8]]()
        try desk.saveProfile(CardProfile(matchingAllowed: true), of: card)
        sealed.append(try #require(try store.profile(handle: handle)))
        try desk.setPIN("4711", of: card)
        sealed.append(try #require(try store.profile(handle: handle)))
        _ = try desk.checkPIN("0000", of: card, now: 1_790_000_100)
        sealed.append(try #require(try store.profile(handle: handle)))
        let needles = sealed.flatMap { version in
            stride(from: 0, to: version.count - 16, by: 8).map { Array(version[$0..<($0 + 16)]) }
        }
        #expect(!(try Self.remaining(needles, in: directory)).isEmpty, "control: the profile is in the files")

        switch deletion {
        case .deleteAll: try desk.deleteAll(of: card)
        case .block: try desk.block(card)
        case .wipe: try desk.wipeKiosk()
        case .newPIN: try desk.setPIN("2580", of: card)
        }
        let left = try Self.remaining(needles, in: directory)
        #expect(left.isEmpty, "profile bytes remain: \(left)")
        #expect(try store.integrityCheck())
        switch deletion {
        case .block:
            #expect(try store.isBlocked(handle: handle))
            #expect(try store.stays(handle: handle).isEmpty && store.profile(handle: handle) == nil)
        case .newPIN:
            #expect(try desk.checkPIN("2580", of: card, now: 1_790_000_200) == .accepted)
        default:
            #expect(try store.profile(handle: handle) == nil && !store.isBlocked(handle: handle))
        }
    }

    @Test func databaseIsConfiguredForDurabilityAndDeletion() throws {
        let directory = TemporaryDirectory("pragmas")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        try store.close()
        // Read the settings back with the sqlite3 library through a second store: WAL is persistent in the file.
        let header = try #require(try directory.files()[SQLiteCheckInStore.fileName])
        // Bytes 18 and 19 of the header are 2 in WAL mode.
        #expect(header[18] == 2 && header[19] == 2)
    }

    /// A warning the station remembered for a card (its acknowledgement tag) goes when the stays it concerns go:
    /// the machine drops the record in its expiry hour and saves the state; no copy of the tag may remain.
    @Test func aWarningRecordDroppedWithItsStaysLeavesNoBytesInAnyFile() throws {
        let directory = TemporaryDirectory("forensic-warning")
        defer { directory.remove() }
        let crypto = OpenSSLCrypto()
        let store = try SQLiteCheckInStore(directory: directory.path)
        let tag = try crypto.randomBytes(count: 32)
        let kept = try crypto.randomBytes(count: 32)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let hour = RetentionPolicy.hourNumber(start)
        var state = StationState(
            warnings: [
                WarningRecord(tag: tag, expiryHour: hour + 2, slipPrinted: true),
                WarningRecord(tag: kept, expiryHour: hour + 400),
            ])
        try store.saveStationState(state)
        // Other saves in between, as taps make them.
        for minutes in 1...5 {
            state.openCheckInEnds = [start.addingTimeInterval(TimeInterval(minutes) * 3600)]
            try store.saveStationState(state)
        }
        let hexTag = Array(tag.map { String($0) }.joined(separator: ",").utf8)
        #expect(!(try Self.remaining([hexTag], in: directory)).isEmpty, "control: the tag is in the files")

        // The machine drops it at a tick in its expiry hour, and persists.
        var machine = CheckInMachine(configuration: .default, state: state, crypto: crypto)
        let actions = machine.handle(
            .tick, now: ClockReading(now: start.addingTimeInterval(2 * 3600 + 5), isSynchronized: true))
        var persisted: StationState?
        for case .persist(let saved) in actions { persisted = saved }
        let saved = try #require(persisted)
        #expect(saved.warnings.map(\.expiryHour) == [hour + 400])
        try store.saveStationState(saved)
        let left = try Self.remaining([hexTag], in: directory)
        #expect(left.isEmpty, "the dropped record remains: \(left)")
        #expect(try store.loadStationState()?.warnings.count == 1)
    }
}
