import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// The station state in the kiosk's database: saved durably, read back after reopening, kept by a wipe of the stays.
@Suite struct StationStateStoreTests {
    static let state = StationState(
        venue: BoundVenue(
            format: "cwa", locationId: [UInt8](repeating: 7, count: 32), description: "Bakery",
            address: "Main St 1", maximumStay: 7200, eventEnd: nil, fingerprint: "0A1B-2C3D",
            cwaFields: nil, posterURL: nil),
        openCheckInEnds: [Date(timeIntervalSince1970: 1_772_452_800)],
        warnings: [WarningRecord(tag: [1, 2, 3], expiryHour: 492_720, slipPrinted: true)])

    @Test func savedStateSurvivesReopeningAndWipes() throws {
        let directory = TemporaryDirectory("station-state")
        defer { directory.remove() }
        var store: SQLiteCheckInStore? = try SQLiteCheckInStore(directory: directory.path)
        #expect(try store?.loadStationState() == nil)
        try store?.saveStationState(Self.state)
        let desk = CheckInDesk(store: store!, crypto: OpenSSLCrypto())
        let venue = Self.state.venue!.stayVenue
        let clock = ClockReading(now: Date(timeIntervalSince1970: 1_772_445_600), isSynchronized: true)
        guard
            case .checkedIn = desk.tap(
                try CardSecret.generate(kind: .visitor, crypto: OpenSSLCrypto()), at: venue,
                clock: clock)
        else {
            Issue.record("tap not stored")
            return
        }
        try store?.close()
        store = nil

        let reopened = try SQLiteCheckInStore(directory: directory.path)
        #expect(try reopened.loadStationState() == Self.state)
        try reopened.wipe()
        #expect(try reopened.counts().stays == 0)
        #expect(try reopened.loadStationState() == Self.state)
        var changed = Self.state
        changed.venue = nil
        try reopened.saveStationState(changed)
        #expect(try reopened.loadStationState() == changed)
        try reopened.setSetting("station.state", to: nil)
        #expect(try reopened.loadStationState() == nil)
    }

    @Test func damagedStateIsReportedNotGuessed() throws {
        let directory = TemporaryDirectory("station-state-bad")
        defer { directory.remove() }
        let store = try SQLiteCheckInStore(directory: directory.path)
        try store.setSetting("station.state", to: Array("{not json".utf8))
        #expect(throws: StoreError.corrupt) { try store.loadStationState() }
    }

    @Test func inMemoryFakeFollowsTheSameContract() throws {
        let store = InMemoryStationStateStore()
        #expect(try store.loadStationState() == nil)
        try store.saveStationState(Self.state)
        #expect(try store.loadStationState() == Self.state)
        store.fail(with: .storageFull)
        #expect(throws: StoreError.storageFull) { try store.saveStationState(.initial) }
        store.heal()
        #expect(try store.loadStationState() == Self.state)
    }
}
