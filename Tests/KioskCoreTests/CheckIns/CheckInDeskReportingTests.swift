import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// `CheckInDesk.reportableStays`: what the consent flow lists for a card.
@Suite struct CheckInDeskReportingTests {
    let crypto = OpenSSLCrypto()
    let store = InMemoryCheckInStore()
    let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))  // 2026-09-22 14:13:20 UTC
    var desk: CheckInDesk { CheckInDesk(store: store, crypto: crypto) }

    func venue(_ name: String, address: String) -> StayVenue {
        StayVenue(
            locationId: [UInt8](repeating: UInt8(name.count), count: 32), description: name, address: address,
            autoCheckout: AutoCheckoutRule(maximumStay: 7200))
    }

    @Test func listsTheCardsOwnStaysNewestFirstWithLocationIdsAndAnOpenStayEndingNow() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let other = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let bakery = venue("Bakery", address: "Main Street 1")
        let museum = venue("Museum of Art", address: "")
        let start = Int64(clock.read().now.timeIntervalSince1970)
        _ = desk.tap(card, at: bakery, clock: clock.read())
        clock.advance(by: 3000)
        _ = desk.tap(card, at: bakery, clock: clock.read())
        _ = desk.tap(other, at: museum, clock: clock.read())
        clock.advance(by: 600)
        _ = desk.tap(card, at: museum, clock: clock.read())
        clock.advance(by: 900)

        let stays = try desk.reportableStays(of: card, clock: clock.read())
        #expect(stays.map(\.venueName) == ["Museum of Art", "Bakery, Main Street 1"])
        #expect(stays.map(\.locationId) == [museum.locationId, bakery.locationId])
        #expect(stays[1].start == start && stays[1].end == start + 3000)
        // Still checked in: the stay runs until now.
        #expect(stays[0].start == start + 3600 && stays[0].end == start + 4500)
        #expect(Set(stays.map(\.id)).count == 2 && stays.allSatisfy { $0.id.count == 32 })
        #expect(try desk.reportableStays(of: other, clock: clock.read()).map(\.venueName) == ["Museum of Art"])
    }
}
