import Foundation
import KioskOpenSSL
import KioskSimulation
import Testing

@testable import KioskCore

@Suite struct StayReportedTests {
    let crypto = OpenSSLCrypto()

    @Test func reportedFlagRoundTripsAndOldStaysReadUnchanged() throws {
        let id = try StayID.random(using: crypto)
        var stay = Stay(
            id: id, locationId: [1, 2, 3], venueDescription: "Hall", venueAddress: "",
            start: Date(timeIntervalSince1970: 1_790_000_000),
            latestEnd: Date(timeIntervalSince1970: 1_790_003_600))
        let plain = StayCoding.encode(stay)
        #expect(StayCoding.decode(plain, id: id)?.reported == false)
        stay.reported = true
        let marked = StayCoding.encode(stay)
        #expect(marked == plain + [1])
        #expect(StayCoding.decode(marked, id: id)?.reported == true)
        #expect(StayCoding.decode(plain + [2], id: id) == nil)
        #expect(StayCoding.decode(marked + [1], id: id) == nil)
    }

    @Test func markedStaysAreNotMatchedAgainstWarnings() async throws {
        let store = InMemoryCheckInStore()
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
        let venue = StayVenue(
            locationId: [UInt8](repeating: 9, count: 32), description: "Hall", address: "",
            autoCheckout: AutoCheckoutRule(maximumStay: 3600))
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: 7200)
        let stays = try desk.reportableStays(of: card, clock: clock.read())
        #expect(stays.count == 1)
        let everything: @Sendable ([MatchableStay]) async -> ExposureResult? = { stays in
            stays.isEmpty
                ? nil
                : ExposureResult(
                    matches: [
                        ExposureMatch(
                            stayId: stays[0].id, day: 20_717, overlapMinutes: 30,
                            transmissionRiskLevel: 5, normalizedTime: 30)
                    ],
                    riskLevelByDay: [20_717: 2])
        }
        #expect(try await desk.warningNotice(for: card, clock: clock.read(), match: everything) != nil)
        #expect(try desk.markReported(Set(stays.map(\.id)), of: card) == 1)
        #expect(try desk.markReported(Set(stays.map(\.id)), of: card) == 0)
        #expect(try await desk.warningNotice(for: card, clock: clock.read(), match: everything) == nil)
    }
}
