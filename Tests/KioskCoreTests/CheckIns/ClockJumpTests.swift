import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Clock jumps forwards and backwards never give a negative stay, a stay longer than the venue's rule, or a
/// premature or missed expiry.
@Suite struct ClockJumpTests {
    let crypto = OpenSSLCrypto()
    let store = InMemoryCheckInStore()
    let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
    var desk: CheckInDesk { CheckInDesk(store: store, crypto: crypto) }
    let venue = StayVenue(
        locationId: [UInt8](repeating: 7, count: 32), description: "Hall", address: "",
        autoCheckout: AutoCheckoutRule(maximumStay: 3600))

    @Test func forwardJumpCannotStretchAStay() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let start = clock.read().now
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: 30 * 86_400 / 3)  // ten days ahead
        let stays = try desk.stays(of: card, clock: clock.read())
        #expect(stays.count == 1)
        #expect(stays[0].end == start.addingTimeInterval(3600))
    }

    @Test func backwardJumpBeyondDebounceIsRefusedNotANegativeStay() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: -600)
        #expect(desk.tap(card, at: venue, clock: clock.read()) == .refused(.clockBehindLastTap))
        clock.advance(by: 1200)
        guard case .checkedOut = desk.tap(card, at: venue, clock: clock.read()) else {
            Issue.record("no checkout")
            return
        }
        for stay in try desk.stays(of: card, clock: clock.read()) {
            let end = try #require(stay.end)
            #expect(end >= stay.start)
            #expect(end.timeIntervalSince(stay.start) <= 3600)
        }
    }

    @Test func smallBackwardStepCountsAsDebounce() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: -5)
        #expect(desk.tap(card, at: venue, clock: clock.read()) == .alreadyRegistered)
    }

    @Test(arguments: [-7200.0, -30.0, 0.0, 30.0, 1800.0, 3599.0, 3600.0, 3601.0, 86_400.0, -34_560_000.0] as [Double])
    func checkoutIsClampedToTheStay(offset: TimeInterval) {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var stay = Stay(
            id: StayID(bytes: [UInt8](repeating: 1, count: 16))!, locationId: [], venueDescription: "",
            venueAddress: "", start: start, latestEnd: start.addingTimeInterval(3600))
        stay.checkOut(at: start.addingTimeInterval(offset))
        let end = stay.end(asOf: start)!
        #expect(end >= start)
        #expect(end <= start.addingTimeInterval(3600))
    }

    @Test func expiryNeverEarlyNeverMissed() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let start = clock.read().now
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: 1800)
        _ = desk.tap(card, at: venue, clock: clock.read())
        let end = start.addingTimeInterval(1800)

        // Exactly 14 days after the end, and on every day before: still there (expiry runs, deletes nothing).
        for day in 0...14 {
            clock.set(end.addingTimeInterval(TimeInterval(day) * 86_400))
            #expect(try desk.expire(clock: clock.read()) == 0)
            #expect(try desk.stays(of: card, clock: clock.read()).count == 1)
        }
        // A wall clock set years ahead but not synchronized is not read: within the boot that knew the time, expiry
        // runs on the floor (here a day after the end) and nothing is lost.
        let wrong = ClockReading(
            now: end.addingTimeInterval(3 * 365 * 86_400), isSynchronized: false, floor: end.addingTimeInterval(86_400))
        #expect(try desk.expire(clock: wrong) == 0)
        #expect(try store.counts().stays == 1)
        // Past 14 days, the card no longer shows it even before the store's expiry ran…
        clock.setSynchronized(true)
        clock.set(end.addingTimeInterval(14 * 86_400 + 60))
        #expect(try desk.stays(of: card, clock: clock.read()).isEmpty)
        // …and a late expiry run (the kiosk was off for weeks, or the clock jumped ahead) deletes it: not missed.
        clock.set(end.addingTimeInterval(40 * 86_400))
        #expect(try desk.expire(clock: clock.read()) == 1)
        #expect(try store.counts().stays == 0)
    }

    @Test func expiryHourBoundsRetentionBetween14DaysAndAnHourMore() {
        let policy = RetentionPolicy.default
        for seconds in stride(from: 0.0, to: 2 * 86_400, by: 599) {
            let end = Date(timeIntervalSince1970: 1_790_006_400 + seconds)
            let hour = policy.expiryHour(forStayEndingAt: end)
            let firstDeletion = Date(timeIntervalSince1970: TimeInterval(hour) * 3600)
            #expect(firstDeletion.timeIntervalSince(end) > 14 * 86_400)
            #expect(firstDeletion.timeIntervalSince(end) <= 14 * 86_400 + 3600)
        }
    }

    @Test func expiredStaysFoundAtATapAreDeleted() throws {
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: 20 * 86_400)
        guard case .checkedIn = desk.tap(card, at: venue, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        #expect(try store.counts().stays == 1)
    }
}
