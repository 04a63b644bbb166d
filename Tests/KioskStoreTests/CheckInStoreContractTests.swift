import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// One contract, two stores: whatever the core relies on holds for the in-memory fake and for SQLite alike.
@Suite struct CheckInStoreContractTests {
    enum Kind: String, CaseIterable, Sendable { case inMemory, sqlite }

    /// A store of `kind` and a clean-up action.
    static func make(_ kind: Kind) throws -> (any CheckInStore, () -> Void) {
        switch kind {
        case .inMemory:
            return (InMemoryCheckInStore(), {})
        case .sqlite:
            let directory = TemporaryDirectory("contract")
            return (try SQLiteCheckInStore(directory: directory.path), { directory.remove() })
        }
    }

    static func row(_ id: UInt8, handle: UInt8, day: Int64, payload: UInt8 = 0) -> StoredStay {
        StoredStay(
            id: [UInt8](repeating: id, count: 16), handle: [UInt8](repeating: handle, count: 32),
            sealed: [UInt8](repeating: payload, count: 40), expiryHour: day)
    }

    @Test(arguments: Kind.allCases) func commitThenReadBack(kind: Kind) throws {
        let (store, cleanUp) = try Self.make(kind)
        defer { cleanUp() }
        let a = Self.row(1, handle: 0xa, day: 100)
        let b = Self.row(2, handle: 0xa, day: 101)
        let c = Self.row(3, handle: 0xc, day: 100)
        try store.commit(handle: a.handle, upserts: [a, b], deletions: [])
        try store.commit(handle: c.handle, upserts: [c], deletions: [])
        #expect(Set(try store.stays(handle: a.handle).map(\.id)) == [a.id, b.id])
        #expect(try store.stays(handle: c.handle) == [c])
        #expect(try store.stays(handle: [UInt8](repeating: 0xee, count: 32)).isEmpty)
        #expect(try store.counts() == StoreCounts(stays: 3, cards: 2, staysByExpiryHour: [100: 2, 101: 1]))
    }

    @Test(arguments: Kind.allCases) func upsertReplacesAndDeletionIsScopedToTheHandle(kind: Kind) throws {
        let (store, cleanUp) = try Self.make(kind)
        defer { cleanUp() }
        let a = Self.row(1, handle: 0xa, day: 100)
        try store.commit(handle: a.handle, upserts: [a], deletions: [])
        var updated = a
        updated.sealed = [9, 9, 9]
        updated.expiryHour = 90
        try store.commit(handle: a.handle, upserts: [updated], deletions: [])
        #expect(try store.stays(handle: a.handle) == [updated])
        // Another handle can neither overwrite nor delete the row, even with the same id.
        var foreign = Self.row(1, handle: 0xb, day: 1)
        foreign.sealed = [6]
        try store.commit(handle: foreign.handle, upserts: [foreign], deletions: [a.id])
        #expect(try store.stays(handle: a.handle) == [updated])
        #expect(try store.stays(handle: foreign.handle).isEmpty)
        try store.commit(handle: foreign.handle, upserts: [foreign], deletions: [])
        #expect(try store.stays(handle: a.handle) == [updated])
        #expect(try store.stays(handle: foreign.handle) == [foreign])
        // Upsert and deletion in one commit.
        let b = Self.row(2, handle: 0xa, day: 100)
        try store.commit(handle: a.handle, upserts: [b], deletions: [a.id])
        #expect(try store.stays(handle: a.handle) == [b])
    }

    @Test(arguments: Kind.allCases) func deleteAllExpireAndWipe(kind: Kind) throws {
        let (store, cleanUp) = try Self.make(kind)
        defer { cleanUp() }
        for id in UInt8(1)...6 {
            let row = Self.row(id, handle: id % 2 == 0 ? 0xa : 0xb, day: 100 + Int64(id))
            try store.commit(handle: row.handle, upserts: [row], deletions: [])
        }
        #expect(try store.deleteAll(handle: [UInt8](repeating: 0xa, count: 32)) == 3)
        #expect(try store.counts().stays == 3)
        // Rows 1, 3, 5 expire on days 101, 103, 105: "today" deletes those due today or earlier.
        #expect(try store.expire(throughHour: 100) == 0)
        #expect(try store.expire(throughHour: 103) == 2)
        #expect(try store.counts().staysByExpiryHour == [105: 1])
        try store.wipe()
        #expect(try store.counts() == StoreCounts(stays: 0, cards: 0, staysByExpiryHour: [:]))
    }

    @Test(arguments: Kind.allCases) func handleSaltIsCreatedOnceAndKept(kind: Kind) throws {
        let (store, cleanUp) = try Self.make(kind)
        defer { cleanUp() }
        let first = [UInt8](repeating: 1, count: 32)
        let second = [UInt8](repeating: 2, count: 32)
        #expect(try store.handleSalt(orStore: first) == first)
        #expect(try store.handleSalt(orStore: second) == first)
    }

    @Test func sqliteHandleSaltSurvivesReopening() throws {
        let directory = TemporaryDirectory("salt")
        defer { directory.remove() }
        let salt = [UInt8](repeating: 7, count: 32)
        let store = try SQLiteCheckInStore(directory: directory.path)
        #expect(try store.handleSalt(orStore: salt) == salt)
        try store.close()
        let reopened = try SQLiteCheckInStore(directory: directory.path)
        #expect(try reopened.handleSalt(orStore: [UInt8](repeating: 8, count: 32)) == salt)
    }

    @Test(arguments: Kind.allCases) func fullLifecycleThroughTheDesk(kind: Kind) throws {
        let (store, cleanUp) = try Self.make(kind)
        defer { cleanUp() }
        let crypto = OpenSSLCrypto()
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        guard case .checkedIn(let id, _, _) = desk.tap(card, at: testVenue, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        clock.advance(by: 900)
        guard case .checkedOut(id, _) = desk.tap(card, at: testVenue, clock: clock.read()) else {
            Issue.record("not checked out")
            return
        }
        let stays = try desk.stays(of: card, clock: clock.read())
        #expect(stays.map(\.id) == [id])
        #expect(stays.first?.text() == "Town Hall, Market Square 2 — 2026-09-21 14:13–14:28")
    }
}
