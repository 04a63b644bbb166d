import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// The check-in lifecycle through `CheckInDesk`, with the in-memory store, real OpenSSL crypto and a manual clock.
@Suite struct CheckInDeskTests {
    let crypto = OpenSSLCrypto()
    let store = InMemoryCheckInStore()
    let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))  // a Tuesday, 14:13 UTC
    var desk: CheckInDesk { CheckInDesk(store: store, crypto: crypto) }

    static func venue(_ name: String, minutes: Double = 120, eventEnd: Date? = nil) -> StayVenue {
        StayVenue(
            locationId: Array(name.utf8) + [UInt8](repeating: 0, count: 32 - name.utf8.count),
            description: name, address: "\(name) Street 1",
            autoCheckout: AutoCheckoutRule(maximumStay: minutes * 60, eventEnd: eventEnd))
    }

    let cafe = venue("Cafe")
    let library = venue("Library")

    func card() throws -> CardSecret { try CardSecret.generate(kind: .visitor, crypto: crypto) }

    @Test func tapChecksInThenOut() throws {
        let card = try self.card()
        let start = clock.read().now
        guard case .checkedIn(let id, let auto, false) = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("first tap did not check in")
            return
        }
        #expect(auto == start.addingTimeInterval(7200))
        clock.advance(by: 45 * 60)
        guard case .checkedOut(id, _) = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("not checked out")
            return
        }
        let stays = try desk.stays(of: card, clock: clock.read())
        #expect(stays.count == 1)
        #expect(stays[0].start == start && stays[0].end == start.addingTimeInterval(45 * 60))
        #expect(stays[0].venueDescription == "Cafe")
        #expect(stays[0].text() == "Cafe, Cafe Street 1 — 2026-09-21 14:13–14:58")
    }

    @Test func tapWithinDebounceDoesNothingAndSaysSo() throws {
        let card = try self.card()
        guard case .checkedIn = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        let commits = store.commitCount
        clock.advance(by: 10)
        #expect(desk.tap(card, at: cafe, clock: clock.read()) == .alreadyRegistered)
        #expect(store.commitCount == commits)
        #expect(try desk.stays(of: card, clock: clock.read()).first?.end == nil)
        clock.advance(by: 25)
        guard case .checkedOut = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("no checkout")
            return
        }
        clock.advance(by: 5)
        #expect(desk.tap(card, at: cafe, clock: clock.read()) == .alreadyRegistered)
    }

    @Test func tapAtAnotherVenueEndsTheOldStayFirst() throws {
        let card = try self.card()
        guard case .checkedIn(let first, _, _) = desk.tap(card, at: library, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        clock.advance(by: 600)
        guard case .checkedIn(let second, _, true) = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("the tap at the other venue did not end the old stay")
            return
        }
        let stays = try desk.stays(of: card, clock: clock.read())
        #expect(stays.first { $0.id == first }?.end == clock.read().now)
        #expect(stays.first { $0.id == second }?.end == nil)
    }

    @Test func openStayEndsAutomaticallyAndNextTapChecksInAgain() throws {
        let card = try self.card()
        let start = clock.read().now
        guard case .checkedIn(let first, _, _) = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        clock.advance(by: 5 * 3600)
        // The stay ended on its own after 2 hours: this tap is a new check-in, not a 5-hour stay.
        guard case .checkedIn(let second, _, false) = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("the tap after the automatic end did not check in")
            return
        }
        #expect(first != second)
        let old = try #require(try desk.stays(of: card, clock: clock.read()).first { $0.id == first })
        #expect(old.end == start.addingTimeInterval(7200))
    }

    @Test func eventEndClosesTheStay() throws {
        let card = try self.card()
        let end = clock.read().now.addingTimeInterval(1800)
        let event = Self.venue("Concert", minutes: 600, eventEnd: end)
        guard case .checkedIn(_, let auto, _) = desk.tap(card, at: event, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        #expect(auto == end)
        clock.advance(by: 3 * 3600)
        #expect(try desk.stays(of: card, clock: clock.read()).first?.end == end)
    }

    /// An event that has ended takes no check-in (as Corona-Warn-App refused an ended event's code); the stays of
    /// those who were there ended with it.
    @Test func anEndedEventTakesNoCheckIn() throws {
        let (staying, late) = (try self.card(), try self.card())
        let end = clock.read().now.addingTimeInterval(1800)
        let event = Self.venue("Concert", minutes: 600, eventEnd: end)
        guard case .checkedIn = desk.tap(staying, at: event, clock: clock.read()) else {
            Issue.record("no check-in before the end")
            return
        }
        clock.advance(by: 1800)
        #expect(desk.tap(late, at: event, clock: clock.read()) == .refused(.eventEnded))
        #expect(try desk.stays(of: late, clock: clock.read()).isEmpty)
        #expect(desk.tap(staying, at: event, clock: clock.read()) == .refused(.eventEnded))
        #expect(try desk.stays(of: staying, clock: clock.read()).map(\.end) == [end])
    }

    @Test func dailyCapOfTwentyCheckIns() throws {
        let card = try self.card()
        // Start of a UTC day, so the 40 taps stay within it.
        clock.set(Date(timeIntervalSince1970: 1_790_035_200))
        for _ in 0..<20 {
            guard case .checkedIn = desk.tap(card, at: cafe, clock: clock.read()) else {
                Issue.record("check-in refused early")
                return
            }
            clock.advance(by: 60)
            guard case .checkedOut = desk.tap(card, at: cafe, clock: clock.read()) else {
                Issue.record("no checkout")
                return
            }
            clock.advance(by: 60)
        }
        #expect(desk.tap(card, at: cafe, clock: clock.read()) == .refused(.dailyLimitReached(limit: 20)))
        #expect(try desk.stays(of: card, clock: clock.read()).count == 20)
        // Another card is not affected; the next UTC day the card may check in again.
        guard case .checkedIn = desk.tap(try self.card(), at: cafe, clock: clock.read()) else {
            Issue.record("other card refused")
            return
        }
        clock.set(Date(timeIntervalSince1970: 1_790_035_200 + 86_400))
        guard case .checkedIn = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("refused the next day")
            return
        }
    }

    @Test func unsynchronizedClockRefusesAndStoresNothing() throws {
        let card = try self.card()
        clock.setSynchronized(false)
        let outcome = desk.tap(card, at: cafe, clock: clock.read())
        #expect(outcome == .refused(.clockNotSynchronized))
        #expect(try store.counts().stays == 0)
        if case .refused(let reason) = outcome { #expect(reason.description.contains("Clock not set")) }
        // A clock that never knew the time: every stay may be past its 14 days (there are none here).
        #expect(try desk.expire(clock: clock.read()) == 0)
    }

    @Test func staffCardDoesNotCheckIn() throws {
        let staff = try CardSecret.generate(kind: .staff, crypto: crypto)
        #expect(desk.tap(staff, at: cafe, clock: clock.read()) == .refused(.staffCard))
    }

    @Test func cardsSeeOnlyTheirOwnStays() throws {
        let alice = try self.card()
        let bob = try self.card()
        _ = desk.tap(alice, at: cafe, clock: clock.read())
        _ = desk.tap(bob, at: library, clock: clock.read())
        #expect(try desk.stays(of: alice, clock: clock.read()).map(\.venueDescription) == ["Cafe"])
        #expect(try desk.stays(of: bob, clock: clock.read()).map(\.venueDescription) == ["Library"])
        #expect(try store.counts().cards == 2)
    }

    @Test func deleteOneStayThenAllThenWipe() throws {
        let card = try self.card()
        let other = try self.card()
        for _ in 0..<3 {
            _ = desk.tap(card, at: cafe, clock: clock.read())
            clock.advance(by: 3600)
        }
        _ = desk.tap(other, at: cafe, clock: clock.read())
        let stays = try desk.stays(of: card, clock: clock.read())
        #expect(stays.count == 2)
        // The other card cannot delete this card's stay.
        #expect(try desk.deleteStay(stays[0].id, of: other) == false)
        #expect(try desk.deleteStay(stays[0].id, of: card) == true)
        #expect(try desk.stays(of: card, clock: clock.read()).map(\.id) == [stays[1].id])
        #expect(try desk.deleteAll(of: card) == 1)
        #expect(try desk.stays(of: card, clock: clock.read()).isEmpty)
        #expect(try store.counts().stays == 1)
        try desk.wipeKiosk()
        #expect(try store.counts().stays == 0)
    }

    @Test func tamperedOrMovedRowsDoNotOpen() throws {
        let alice = try self.card()
        let bob = try self.card()
        _ = desk.tap(alice, at: cafe, clock: clock.read())
        _ = desk.tap(bob, at: cafe, clock: clock.read())
        let aliceKeys = try desk.keys(for: alice)
        let bobKeys = try desk.keys(for: bob)
        let aliceRow = try #require(try store.stays(handle: aliceKeys.handle).first)
        // Bob's row re-filed under Alice's handle (an attacker with the database file): does not authenticate.
        var moved = try #require(try store.stays(handle: bobKeys.handle).first)
        moved.handle = aliceKeys.handle
        try store.commit(handle: aliceKeys.handle, upserts: [moved], deletions: [])
        var flipped = aliceRow
        flipped.sealed[20] ^= 1
        try store.commit(handle: aliceKeys.handle, upserts: [flipped], deletions: [])
        #expect(try desk.stays(of: alice, clock: clock.read()).isEmpty)
    }

    @Test func storedRowsContainNoPlaintext() throws {
        let card = try self.card()
        _ = desk.tap(card, at: cafe, clock: clock.read())
        let row = try #require(store.allRows.first)
        let needle = Array("Cafe".utf8)
        #expect(!row.sealed.indices.contains { row.sealed[$0...].starts(with: needle) })
        #expect(!row.sealed.indices.contains { row.sealed[$0...].starts(with: cafe.locationId.prefix(8)) })
    }

    @Test func keysUsedForATapAreWiped() throws {
        let recorder = WipeRecordingCrypto(wrapping: crypto)
        let desk = CheckInDesk(store: store, crypto: recorder)
        let card = try self.card()
        _ = desk.tap(card, at: cafe, clock: clock.read())
        clock.advance(by: 600)
        _ = desk.tap(card, at: cafe, clock: clock.read())
        let keys = Set(recorder.keysUsed)
        #expect(keys.count == 1)
        for key in keys { #expect(recorder.wipedBuffers.contains(key)) }
    }

    @Test func storeFailureRefusesWithAClearMessageAndLosesNothing() throws {
        let card = try self.card()
        guard case .checkedIn = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("no check-in")
            return
        }
        store.fail(with: .storageFull)
        clock.advance(by: 600)
        let outcome = desk.tap(card, at: cafe, clock: clock.read())
        #expect(outcome == .refused(.storeUnavailable(.storageFull)))
        if case .refused(let reason) = outcome { #expect(reason.description.contains("storage is full")) }
        store.heal()
        #expect(try desk.stays(of: card, clock: clock.read()).count == 1)
        guard case .checkedOut = desk.tap(card, at: cafe, clock: clock.read()) else {
            Issue.record("no checkout after healing")
            return
        }
    }
}
