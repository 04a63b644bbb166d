import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// A diary card's taps and diary through `DiaryDesk`, with real OpenSSL crypto, the region's key schedule in
/// memory and a card whose two files keep DESFire's transaction.
@Suite struct DiaryDeskTests {
    let crypto = OpenSSLCrypto()
    static let start = Date(timeIntervalSince1970: 1_790_000_000)  // a Tuesday, 14:13 UTC
    static var today: DiaryDay { DiaryDay(RetentionPolicy.dayNumber(start)) }
    let keys = SoftwareRegionKeys(
        cardMaster: [UInt8](repeating: 0x11, count: 16), dayKey: [UInt8](repeating: 0x22, count: 16),
        day: DiaryRetention.oldestOpenDay(today: today))
    let uid: [UInt8] = [0x04, 0x51, 0x7A, 0x22, 0x61, 0x70, 0x80]
    var desk: DiaryDesk { DiaryDesk(keys: keys, crypto: crypto) }

    static func venue(_ name: String, minutes: Double = 120) -> StayVenue {
        StayVenue(
            locationId: Array(name.utf8) + [UInt8](repeating: 0, count: 32 - name.utf8.count),
            description: name, address: "\(name) Street 1",
            autoCheckout: AutoCheckoutRule(maximumStay: minutes * 60))
    }

    let cafe = venue("Cafe")
    let library = venue("Library")

    func at(_ seconds: TimeInterval) -> ClockReading {
        ClockReading(now: Self.start.addingTimeInterval(seconds), isSynchronized: true)
    }

    func tap(_ card: MemoryDiaryCard, _ venue: StayVenue, _ seconds: TimeInterval) throws -> DiaryDesk.Tap {
        try desk.tap(card, at: venue, clock: at(seconds)).get()
    }

    @Test func theLayoutFitsAFourKilobyteCard() throws {
        #expect(try DiaryHeader(ringRecords: 28).encoded().count == DiaryHeader.size(ringRecords: 28))
        #expect(DiaryHeader.size(ringRecords: 28) == 416)
        // A 28-record ring: 3,136 bytes, beside a 416-byte header kept twice (832 bytes).
        #expect(DiaryLayout.memory(ringRecords: 28) == 3968)
        #expect(DiaryLayout.ringRecords(freeMemory: 3968) == 28)
        #expect(DiaryLayout.ringRecords(freeMemory: 3967) == 27)
        #expect(DiaryLayout.ringRecords(freeMemory: 16_000) == 64)
        #expect(DiaryLayout.ringRecords(freeMemory: 100) == nil)
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        _ = try tap(card, cafe, 600)
        #expect(card.ring.map(\.count) == [DiaryLayout.recordSize])
    }

    @Test func aCheckInReadsNoStayButTheOpenOneAndACheckOutAppendsIt() throws {
        let card = MemoryDiaryCard(uid: uid)
        guard case .checkedIn(let id, _, false) = try tap(card, cafe, 0).outcome else {
            Issue.record("the first tap did not check in")
            return
        }
        #expect(card.ring.isEmpty)
        #expect(try DiaryHeader(encoded: card.header).openStay != nil)
        #expect(try tap(card, cafe, 10).outcome == .alreadyRegistered)
        #expect(card.writes == 1, "a repeated tap writes nothing")
        #expect(try tap(card, cafe, 1800).outcome == .checkedOut(id, stayedFor: 1800))
        #expect(card.ringReads == 0, "taps never read the ring")
        #expect(card.ring.count == 1)
        #expect(try DiaryHeader(encoded: card.header).openStay == nil)
        let stays = try desk.stays(of: card, clock: at(1900))
        #expect(stays.count == 1)
        #expect(stays.first?.venueDescription == "Cafe")
        #expect(stays.first?.checkedOut == Self.start.addingTimeInterval(1800))
    }

    @Test func aTapWritesOnlyTheHeadersBytesThatChanged() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        let checkIn = card.headerChanges.reduce(0) { $0 + $1.bytes.count }
        _ = try tap(card, cafe, 1800)
        let checkOut = card.headerChanges.reduce(0) { $0 + $1.bytes.count } - checkIn
        #expect(card.header.count == 416)
        #expect(checkIn <= 140 && checkOut <= 160, "\(checkIn) and \(checkOut) of 416 bytes")
        #expect(try desk.stays(of: card, clock: at(1900)).count == 1)
        #expect(
            DiaryHeaderChange.between([0, 1, 2, 3], [0, 9, 2, 9])
                == [DiaryHeaderChange(offset: 1, bytes: [9, 2, 9])])
        #expect(DiaryHeaderChange.between([1, 2], [1, 2]).isEmpty)
        #expect(DiaryHeaderChange.between([1], [1, 2]) == [DiaryHeaderChange(offset: 0, bytes: [1, 2])])
        let far = [UInt8](repeating: 0, count: 40)
        var changed = far
        changed[0] = 1
        changed[39] = 1
        #expect(DiaryHeaderChange.between(far, changed).map(\.offset) == [0, 39])
    }

    @Test func aTapAtAnotherVenueEndsTheOpenStayThere() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        guard case .checkedIn(_, _, true) = try tap(card, library, 900).outcome else {
            Issue.record("the tap at the library did not end the stay at the cafe")
            return
        }
        let stays = try desk.stays(of: card, clock: at(1000))
        #expect(stays.map(\.venueDescription) == ["Library", "Cafe"])
        #expect(stays.last?.checkedOut == Self.start.addingTimeInterval(900))
        #expect(stays.first?.checkedOut == nil)
    }

    @Test func aStayEndedByItsVenuesRuleMovesToTheRingAtTheNextTap() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        guard case .checkedIn = try tap(card, cafe, 3 * 3600).outcome else {
            Issue.record("a tap after the automatic end did not check in anew")
            return
        }
        #expect(card.ring.count == 1)
        let stays = try desk.stays(of: card, clock: at(3 * 3600 + 60))
        #expect(stays.count == 2)
        #expect(stays.last?.end(asOf: at(3 * 3600).now) == Self.start.addingTimeInterval(7200))
    }

    @Test func aCardPulledAwayBeforeTheCommitKeepsItsDiary() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        let before = (card.header, card.ring)
        card.leaveBeforeCommit = true
        #expect(desk.tap(card, at: cafe, clock: at(1800)) == .failure(.cardGone))
        #expect(card.header == before.0 && card.ring == before.1)
        guard case .checkedOut = try tap(card, cafe, 1900).outcome else {
            Issue.record("the next tap did not check out")
            return
        }
    }

    /// A card with one finished stay: its record and share (which opens it; without it, nothing does).
    func finishedStay() throws -> (MemoryDiaryCard, [UInt8], [UInt8]) {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        _ = try tap(card, cafe, 600)
        let record = try #require(card.ring.first)
        let share = try DiaryHeader(encoded: card.header).shares[0]
        #expect(!DiaryShare.isDeleted(share))
        #expect(
            DiarySealing.open(
                record, share: DiaryShare.deleted, uid: uid, keys: keys, today: Self.today, crypto: crypto) == nil)
        return (card, record, share)
    }

    @Test func aStayOpensUntilTheEndOfItsFourteenthDayAndNeverAfter() throws {
        let (card, record, share) = try finishedStay()
        let fourteenDays = TimeInterval(DiaryRetention.days * 86_400)
        let lastDay = Self.today + DiaryRetention.days
        try keys.advance(today: lastDay)
        #expect(DiarySealing.open(record, share: share, uid: uid, keys: keys, today: lastDay, crypto: crypto) != nil)
        try keys.advance(today: lastDay + 1)
        #expect(
            DiarySealing.open(record, share: share, uid: uid, keys: keys, today: lastDay + 1, crypto: crypto) == nil)
        #expect(try desk.stays(of: card, clock: at(fourteenDays + 86_400)).isEmpty)
        #expect(throws: RegionKeyError.dayUnavailable(Self.today)) {
            _ = try keys.stayKeyMaterial(day: Self.today, uid: uid, today: lastDay + 1)
        }
    }

    @Test func anOpenStayWhoseDayKeyIsGoneIsDroppedAtTheNextTap() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        let later = TimeInterval((DiaryRetention.days + 2) * 86_400)
        try keys.advance(today: Self.today + DiaryRetention.days + 2)
        guard case .checkedIn(_, _, false) = try tap(card, cafe, later).outcome else {
            Issue.record("the tap did not start a new stay")
            return
        }
        #expect(card.ring.isEmpty, "the unreadable stay is not moved into the ring")
        #expect(try desk.stays(of: card, clock: at(later + 60)).count == 1)
    }

    @Test func aTapReadsTheHeadersTapPartAndOneShareOnlyWhenItOverwritesARecord() throws {
        let card = MemoryDiaryCard(uid: uid, ringRecords: 3)
        card.header = try DiaryHeader(ringRecords: 3).encoded()
        var time: TimeInterval = 0
        for _ in 0..<2 {
            _ = try tap(card, cafe, time)
            _ = try tap(card, cafe, time + 600)
            time += 1200
        }
        #expect(card.headerBytesRead == 4 * DiaryHeader.tapBytes, "no share read while the ring has room")
        _ = try tap(card, cafe, time)
        _ = try tap(card, cafe, time + 600)
        // The third stay overwrites the first: its share, 8 bytes, decides whether a young stay gave way.
        #expect(card.headerBytesRead == 6 * DiaryHeader.tapBytes + 8)
        #expect(try DiaryHeader(encoded: card.header).pushedOutUntold)
        #expect(try desk.stays(of: card, clock: at(time + 700)).count == 2)
    }

    @Test func aCardBackFromADrawerHasItsExpiredStaysClearedAtItsNextTap() throws {
        let card = MemoryDiaryCard(uid: uid)
        _ = try tap(card, cafe, 0)
        _ = try tap(card, cafe, 3600)
        _ = try tap(card, library, 7200)
        #expect(card.ring.count == 1)
        #expect(try DiaryHeader(encoded: card.header).openStay != nil)
        // 15 days later the day's key is gone everywhere; at the next tap the card's copies go too.
        let later = TimeInterval((DiaryRetention.days + 1) * 86_400)
        try keys.advance(today: Self.today + DiaryRetention.days + 1)
        guard case .checkedIn(_, _, false) = try tap(card, cafe, later).outcome else {
            Issue.record("the tap did not start a new stay")
            return
        }
        #expect(card.ring.isEmpty)
        let header = try DiaryHeader(encoded: card.header)
        #expect(header.shares.allSatisfy(DiaryShare.isDeleted))
        #expect(header.appended == 0)
        #expect(try desk.stays(of: card, clock: at(later + 60)).map(\.venueDescription) == ["Cafe"])
        // A card tapped within the 14 days keeps its stays.
        let kept = MemoryDiaryCard(uid: uid)
        _ = try tap(kept, cafe, later)
        _ = try tap(kept, cafe, later + 3600)
        _ = try tap(kept, cafe, later + TimeInterval(13 * 86_400))
        #expect(kept.ring.count == 1)
    }

    @Test func aRecordOfAnotherCardOrMovedElsewhereDoesNotOpen() throws {
        let (_, record, share) = try finishedStay()
        var other = uid
        other[6] ^= 1
        #expect(
            DiarySealing.open(record, share: share, uid: other, keys: keys, today: Self.today, crypto: crypto) == nil)
        var renumbered = record
        renumbered[5] ^= 1
        #expect(
            DiarySealing.open(renumbered, share: share, uid: uid, keys: keys, today: Self.today, crypto: crypto) == nil)
        var flipped = record
        flipped[50] ^= 1
        #expect(
            DiarySealing.open(flipped, share: share, uid: uid, keys: keys, today: Self.today, crypto: crypto) == nil)
        #expect(
            DiarySealing.open(
                [UInt8](repeating: 0, count: 112), share: share, uid: uid, keys: keys, today: Self.today, crypto: crypto
            ) == nil)
    }

    @Test func aFullDiaryDropsItsOldestStayAndTellsWhenItWasStillYoung() throws {
        let card = MemoryDiaryCard(uid: uid)
        var seconds: TimeInterval = 0
        for _ in 0..<card.ringRecords - 1 {
            _ = try tap(card, cafe, seconds)
            #expect(try tap(card, cafe, seconds + 600).pushedOut == false)
            seconds += 3600
        }
        #expect(card.ring.count == 27)
        _ = try tap(card, cafe, seconds)
        #expect(try tap(card, cafe, seconds + 600).pushedOut, "a stay of today was pushed out")
        #expect(card.ring.count == 27)
        #expect(try desk.stays(of: card, clock: at(seconds + 700)).count == 27)
    }

    @Test func theDailyLimitCountsFromTheHeader() throws {
        let card = MemoryDiaryCard(uid: uid)
        var seconds: TimeInterval = 0
        var policy = CheckInPolicy.default
        policy.dailyLimit = 3
        let desk = DiaryDesk(keys: keys, crypto: crypto, policy: policy)
        for _ in 0..<3 {
            guard case .checkedIn = try desk.tap(card, at: cafe, clock: at(seconds)).get().outcome else {
                Issue.record("a check-in under the limit was refused")
                return
            }
            _ = try desk.tap(card, at: cafe, clock: at(seconds + 120)).get()
            seconds += 240
        }
        #expect(
            try desk.tap(card, at: cafe, clock: at(seconds)).get().outcome
                == .refused(.dailyLimitReached(limit: 3)))
    }

    @Test func aLongNameIsCutAtACharacter() throws {
        let name = "Café Zürich — Bäckerei und Konditorei am Marktplatz"
        let stay = Stay(
            id: DiaryStayID.make(7), locationId: [UInt8](repeating: 9, count: 32), venueDescription: name,
            venueAddress: "x", start: Self.start, latestEnd: Self.start.addingTimeInterval(3600))
        let bytes = try #require(DiaryStayCoding.encode(stay))
        #expect(bytes.count == DiaryStayCoding.size)
        let back = try #require(DiaryStayCoding.decode(bytes, id: stay.id))
        #expect(name.hasPrefix(back.venueDescription))
        #expect(back.venueDescription.utf8.count <= DiaryStayCoding.nameBytes)
        #expect(DiaryStayID.number(of: stay.id) == 7)
    }

    @Test func aNameReadFromACardCarriesNoControlCharacter() throws {
        let stay = Stay(
            id: DiaryStayID.make(1), locationId: [UInt8](repeating: 9, count: 32),
            venueDescription: "Bar\u{1B}[2J\u{202E}x", venueAddress: "", start: Self.start,
            latestEnd: Self.start.addingTimeInterval(3600))
        let bytes = try #require(DiaryStayCoding.encode(stay))
        let back = try #require(DiaryStayCoding.decode(bytes, id: stay.id))
        #expect(!OutsideText.containsUnsafe(back.venueDescription))
        #expect(back.venueDescription.hasPrefix("Bar"))
    }
}
