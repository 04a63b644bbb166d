import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// The holder's session on a diary card: PIN, settings, deleting and marking stays, each one transaction.
@Suite struct DiaryDeskSessionTests {
    let crypto = OpenSSLCrypto()
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static var today: DiaryDay { DiaryDay(RetentionPolicy.dayNumber(start)) }
    let keys = SoftwareRegionKeys(
        cardMaster: [UInt8](repeating: 0x11, count: 16), dayKey: [UInt8](repeating: 0x22, count: 16),
        day: DiaryRetention.oldestOpenDay(today: today))
    let uid: [UInt8] = [0x04, 0x51, 0x7A, 0x22, 0x61, 0x70, 0x80]
    var desk: DiaryDesk { DiaryDesk(keys: keys, crypto: crypto) }

    func at(_ seconds: TimeInterval) -> ClockReading {
        ClockReading(now: Self.start.addingTimeInterval(seconds), isSynchronized: true)
    }

    /// A card with three finished stays (Cafe, Library, Baker) and one open (Park).
    func cardWithStays() throws -> MemoryDiaryCard {
        let card = MemoryDiaryCard(uid: uid)
        var seconds: TimeInterval = 0
        for name in ["Cafe", "Library", "Baker", "Park"] {
            _ = try desk.tap(card, at: DiaryDeskTests.venue(name), clock: at(seconds)).get()
            if name != "Park" { _ = try desk.tap(card, at: DiaryDeskTests.venue(name), clock: at(seconds + 600)).get() }
            seconds += 3600
        }
        return card
    }

    @Test func deletingOneStayKeepsTheOthersAsTheyWere() throws {
        let card = try cardWithStays()
        let before = card.ring
        let stays = try desk.stays(of: card, clock: at(4 * 3600))
        let library = try #require(stays.first { $0.venueDescription == "Library" })
        #expect(try desk.delete([library.id], of: card) == 1)
        #expect(card.ring == [before[0], before[2]], "the other records are kept byte for byte")
        #expect(try desk.stays(of: card, clock: at(4 * 3600)).map(\.venueDescription) == ["Park", "Baker", "Cafe"])
        let park = try #require(stays.first { $0.venueDescription == "Park" })
        #expect(try desk.delete([park.id], of: card) == 1)
        #expect(try DiaryHeader(encoded: card.header).openStay == nil)
    }

    @Test func deletingEverythingLeavesNoStayButTheSettings() throws {
        let card = try cardWithStays()
        try desk.saveSettings(CardProfile(matchingAllowed: true, language: "fr"), of: card)
        try desk.deleteAll(of: card)
        #expect(card.ring.isEmpty)
        let header = try DiaryHeader(encoded: card.header)
        #expect(header.openStay == nil)
        #expect(header.profile.language == "fr")
        #expect(header.profile.matchingAllowed == true)
        #expect(try desk.stays(of: card, clock: at(4 * 3600)).isEmpty)
    }

    @Test func wrongPINsAreCountedOnTheCardAtEveryKiosk() throws {
        let card = try cardWithStays()
        try desk.setPIN("4711", of: card)
        let other = DiaryDesk(keys: keys, crypto: crypto)
        let now: Int64 = 1_790_000_000
        for remaining in (1...4).reversed() {
            #expect(try other.checkPIN("0000", of: card, now: now) == .wrong(remaining: remaining))
        }
        #expect(try desk.checkPIN("0000", of: card, now: now) == .locked(until: now + 3600))
        #expect(try other.checkPIN("4711", of: card, now: now + 10) == .locked(until: now + 3600))
        #expect(try other.checkPIN("4711", of: card, now: now + 3600) == .accepted)
        #expect(try DiaryHeader(encoded: card.header).profile.wrongPINs == 0)
        card.leaveBeforeCommit = true
        #expect(throws: DiaryDesk.Failure.cardGone) { try desk.checkPIN("1234", of: card, now: now + 3700) }
    }

    @Test func aPINVerifierIsTheCardsOwn() throws {
        let card = try cardWithStays()
        try desk.setPIN("4711", of: card)
        var otherUID = uid
        otherUID[0] ^= 0xFF
        let other = MemoryDiaryCard(uid: otherUID)
        other.header = card.header
        #expect(try desk.checkPIN("4711", of: other, now: 0) == .wrong(remaining: 4))
    }

    @Test func reportedStaysAreMarkedAndStillOpen() throws {
        let card = try cardWithStays()
        let stays = try desk.stays(of: card, clock: at(4 * 3600))
        let chosen = Set(stays.filter { $0.venueDescription == "Baker" || $0.venueDescription == "Park" }.map(\.id))
        try desk.markReported(chosen, of: card, clock: at(4 * 3600))
        let after = try desk.stays(of: card, clock: at(4 * 3600))
        #expect(after.filter(\.reported).map(\.venueDescription).sorted() == ["Baker", "Park"])
        #expect(after.count == 4)
    }

    @Test func aPushedOutNoticeIsToldOnce() throws {
        let card = MemoryDiaryCard(uid: uid, ringRecords: 3)
        var seconds: TimeInterval = 0
        var told: [Bool] = []
        for _ in 0..<3 {
            _ = try desk.tap(card, at: DiaryDeskTests.venue("Cafe"), clock: at(seconds)).get()
            told.append(try desk.tap(card, at: DiaryDeskTests.venue("Cafe"), clock: at(seconds + 600)).get().pushedOut)
            seconds += 3600
        }
        #expect(told == [false, false, true])
        try desk.acknowledgePushedOut(of: card)
        #expect(try DiaryHeader(encoded: card.header).pushedOutUntold == false)
    }
}
