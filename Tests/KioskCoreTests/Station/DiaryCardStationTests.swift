import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// A diary card at the station (docs/diary-card.md, "At the station"): the machine decides for it as for any
/// visitor card, the runner's work is done on the card (`DiaryDesk`, here on a card in memory), nothing of it is
/// kept by the kiosk, and a card that left refuses.
@Suite struct DiaryCardStationTests {
    let crypto = OpenSSLCrypto()
    let uid: [UInt8] = [0x04, 0x61, 0x12, 0x23, 0x34, 0x45, 0x56]

    /// A bound kiosk with a made diary card (its holder allowed matching) on its reader as placement 7.
    func harness() throws -> (MachineHarness, MemoryDiaryCard) {
        var harness = MachineHarness()
        harness.bind()
        let today = DiaryDay(RetentionPolicy.dayNumber(harness.now.now))
        let keys = SoftwareRegionKeys(
            cardMaster: [UInt8](repeating: 0x31, count: 16), dayKey: [UInt8](repeating: 0x32, count: 16),
            day: DiaryRetention.oldestOpenDay(today: today))
        let card = MemoryDiaryCard(uid: uid)
        card.header = try DiaryHeader(ringRecords: card.ringRecords).encoded()
        harness.diary = (DiaryDesk(keys: keys, crypto: crypto), card, 7)
        return (harness, card)
    }

    func onReader(_ placement: UInt64 = 7, secret byte: UInt8 = 0xD1) throws -> DiaryCardOnReader {
        DiaryCardOnReader(
            placement: placement,
            secret: try CardSecret(kind: .visitor, entropy: [UInt8](repeating: byte, count: 16)))
    }

    @Test func aTapChecksInAndOutOnTheCardAndTheKioskKeepsNothing() throws {
        var (harness, card) = try harness()
        let checkIn = harness.run(.cardRead(.diary(try onReader())))
        guard
            case .recordTap(.diary(let tapped), _) = checkIn.first(where: {
                if case .recordTap = $0 { true } else { false }
            })
        else {
            Issue.record("no tap: \(checkIn)")
            return
        }
        #expect(tapped.placement == 7)
        guard case .checkedIn = harness.tapOutcomes.last else {
            Issue.record("not checked in: \(harness.tapOutcomes)")
            return
        }
        #expect(checkIn.patterns == [.accepted])
        #expect(try DiaryHeader(encoded: card.header).openStay != nil)
        // Nothing of the card in the kiosk's store.
        #expect(try harness.store.counts().stays == 0 && harness.store.counts().cards == 0)
        harness.run(.cardRemoved)

        harness.clock.advance(by: 600)
        let checkOut = harness.run(.cardRead(.diary(try onReader(8))))
        #expect(checkOut.messages.isEmpty == false)
        guard case .refused(.cardLeft) = harness.tapOutcomes.last else {
            Issue.record("a job for placement 8 found placement 7's card: \(harness.tapOutcomes)")
            return
        }
        #expect(checkOut.messages.last?.body == StationTexts().refusal(.cardLeft))
        #expect(try DiaryHeader(encoded: card.header).openStay != nil, "nothing changed on the card")
        harness.run(.cardRemoved)

        harness.diary?.placement = 9
        harness.run(.cardRead(.diary(try onReader(9))))
        guard case .checkedOut = harness.tapOutcomes.last else {
            Issue.record("not checked out: \(harness.tapOutcomes)")
            return
        }
        #expect(card.ring.count == 1)
        #expect(try harness.store.counts().stays == 0 && harness.store.counts().cards == 0)
    }

    @Test func itsHolderSeesAndDeletesTheCardsStaysWithoutBlocking() throws {
        var (harness, card) = try harness()
        harness.run(.cardRead(.diary(try onReader())))
        // The card lies on the reader: “My check-ins” opens its session without another tap.
        harness.run(.chosen("session"))
        let home = harness.machine.screen(now: harness.now)
        #expect(home.lines.contains("This card holds 1 stay."))
        harness.run(.chosen("delete"))
        let menu = harness.machine.screen(now: harness.now)
        #expect(menu.choices.map(\.id) == ["delete-one", "delete-all", "back"])
        harness.run(.chosen("block"))
        #expect(harness.machine.screen(now: harness.now).choices.map(\.id) == menu.choices.map(\.id))
        harness.run(.chosen("delete-all"))
        #expect(
            harness.machine.screen(now: harness.now).lines == [
                "Your 1 stay on this card will be deleted. Your settings stay.",
                "No kiosk can open it again; it cannot be brought back.",
            ])
        harness.run(.chosen("delete"))
        #expect(try DiaryHeader(encoded: card.header).openStay == nil)
        #expect(harness.machine.screen(now: harness.now).lines.contains("This card holds no stays."))
        // The card leaves: its holder's session goes with it.
        harness.run(.cardRemoved)
        #expect(!harness.machine.isSessionOpen)
    }

    @Test func aFullCardsHolderIsToldAtTheTapAndOnceInTheirSession() throws {
        var (harness, _) = try harness()
        // A diary of two stays: the third finished stay pushes out the first, a day old at most.
        let card = MemoryDiaryCard(uid: uid, ringRecords: 2)
        card.header = try DiaryHeader(ringRecords: 2).encoded()
        harness.diary?.card = card
        var last = [StationAction]()
        for _ in 0..<6 {
            harness.clock.advance(by: 600)
            last = harness.run(.cardRead(.diary(try onReader())))
            harness.run(.cardRemoved)
        }
        guard case .checkedOut = harness.tapOutcomes.last else {
            Issue.record("not checked out: \(harness.tapOutcomes)")
            return
        }
        let told = StationTexts().cardWasFull
        #expect(last.messages.last?.body.hasSuffix(told) == true)
        #expect(harness.tapOutcomes.count == 6)
        // In the session it is said once: the card then forgets it.
        harness.run(.cardRead(.diary(try onReader())))
        harness.run(.chosen("session"))
        #expect(harness.machine.screen(now: harness.now).lines.contains(told))
        #expect(try DiaryHeader(encoded: card.header).pushedOutUntold == false)
        harness.run(.cardRemoved)
        harness.clock.advance(by: 60)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.diary(try onReader())))
        #expect(!harness.machine.screen(now: harness.now).lines.contains(told))
    }

    @Test func aTapSaysWhetherItsHolderAllowsMatchingAndOnlyThenAreItsStaysReadToMatch() throws {
        let (harness, card) = try harness()
        let desk = try #require(harness.diary?.desk)
        let venue = try #require(harness.machine.state.venue).stayVenue
        let first = desk.stationTap(card, at: venue, clock: harness.now)
        guard case .checkedIn = first.outcome else {
            Issue.record("not checked in: \(first.outcome)")
            return
        }
        #expect(!first.matchingAllowed, "matching was never allowed")
        #expect(try desk.matchable(of: card, clock: harness.now).stays.isEmpty)
        try desk.saveSettings(CardProfile(matchingAllowed: true), of: card)
        let later = ClockReading(now: harness.now.now.addingTimeInterval(600), isSynchronized: true)
        let second = desk.stationTap(card, at: venue, clock: later)
        #expect(second.matchingAllowed)
        #expect(try desk.matchable(of: card, clock: later).stays.count == 1)
    }

    /// A diary card's news comes after its tap's light: the machine tells a warning found then as news while the
    /// card still lies on the reader, and drops it once its holder has gone; it keeps no record of it.
    @Test func newsFoundAfterTheTapIsToldOnlyWhileTheCardIsThere() throws {
        var (harness, _) = try harness()
        let tapped = harness.run(.cardRead(.diary(try onReader())))
        #expect(tapped.patterns == [.accepted])
        let notice = WarningNotice(
            acknowledgementTag: [UInt8](repeating: 0xA1, count: 32), exposureDays: [20_400], isHighRisk: false,
            expiryHour: 500_000)
        let told = harness.run(.tapNews(notice, placement: 7))
        #expect(told.patterns.isEmpty, "no light or sound of its own")
        #expect(told.messages.last?.body.contains(StationTexts().newsForCard.body) == true)
        #expect(!told.contains { if case .persist = $0 { true } else { false } })
        #expect(harness.machine.state.warnings.isEmpty, "nothing of a diary card's warning is kept by the kiosk")
        #expect(harness.run(.tapNews(notice, placement: 8)).messages.isEmpty, "another placement's")
        harness.run(.cardRemoved)
        #expect(harness.run(.tapNews(notice, placement: 7)).messages.isEmpty, "its holder has gone")
    }

    @Test func theDailyExpiryMovesTheRatchetOnlyWithASynchronizedClock() throws {
        let today = DiaryDay(RetentionPolicy.dayNumber(StationFixtures.start))
        let keys = SoftwareRegionKeys(
            cardMaster: [UInt8](repeating: 0x31, count: 16), dayKey: [UInt8](repeating: 0x32, count: 16),
            day: DiaryRetention.oldestOpenDay(today: today))
        let desk = DiaryDesk(keys: keys, crypto: crypto)
        let later = StationFixtures.start.addingTimeInterval(3 * 86_400)
        // A clock not yet set could be ahead: a key it destroyed would never come back.
        try desk.forgetOldDays(clock: ClockReading(now: later, isSynchronized: false))
        #expect(keys.oldestDay == DiaryRetention.oldestOpenDay(today: today))
        try desk.forgetOldDays(clock: ClockReading(now: later, isSynchronized: true))
        #expect(keys.oldestDay == DiaryRetention.oldestOpenDay(today: today + 3))
    }

    @Test func aCardOfAnotherRegionIsRefusedOnceAndSaysWhy() throws {
        var (harness, _) = try harness()
        let actions = harness.run(.cardRead(.foreign(.otherRegion)))
        #expect(actions.taps == 0)
        #expect(actions.patterns == [.refused])
        #expect(actions.messages.last?.body.hasPrefix(StationTexts().foreignCard(.otherRegion)) == true)
        for language in Language.allCases {
            #expect(!StationTexts(language).foreignCard(.otherRegion).isEmpty)
            #expect(StationTexts(language).refusal(.cardLeft) != StationTexts(language).refusal(.diaryUnreadable))
        }
    }

    @Test func aDiaryCardIsNotEnrolled() throws {
        var (harness, _) = try harness()
        harness.openStaff()
        harness.run(.staffCommand(.enrolCard))
        let actions = harness.run(.cardRead(.diary(try onReader())))
        #expect(!actions.contains { if case .enrolCard = $0 { true } else { false } })
        #expect(actions.taps == 0)
        #expect(actions.patterns == [.refused])
    }

    func staffStep(_ harness: MachineHarness) -> StaffStep? {
        if case .staff(let step, _) = harness.machine.mode { step } else { nil }
    }

    /// Staff enrolling a card with a factory-new DESFire card on the reader make it a diary card: no kiosk card is
    /// written, no personal QR card printed, nothing persisted; the station says so, and staff mode goes back to its
    /// menu. A card that left before it was made is said so, and staff can place it again.
    @Test func staffEnrollingACardMakeANewDESFireCardADiaryCard() throws {
        var (harness, _) = try harness()
        harness.openStaff()
        harness.run(.staffCommand(.enrolCard))
        let made = harness.run(.cardRead(.newDiaryCard))
        #expect(made.contains { if case .makeDiaryCard = $0 { true } else { false } })
        #expect(!made.contains { if case .enrolCard = $0 { true } else { false } })
        #expect(!made.contains { if case .print = $0 { true } else { false } })
        #expect(!made.contains { if case .persist = $0 { true } else { false } })
        #expect(made.messages.last?.title == StationTexts().catalog[.staffDiaryCardMadeTitle])
        #expect(made.patterns == [.accepted])
        #expect(staffStep(harness) == .menu)

        harness.run(.staffCommand(.enrolCard))
        harness.makeDiaryResult = .failure(.cardRemoved)
        let left = harness.run(.cardRead(.newDiaryCard))
        #expect(left.patterns == [.error])
        #expect(left.messages.last?.body.contains(StationTexts().failure(.cardRemoved)) == true)
        #expect(staffStep(harness) == .awaitingBlankCard)
    }

    /// Outside staff mode a new DESFire card is a card not enrolled yet; a staff card cannot be one.
    @Test func aNewDESFireCardIsNoVisitorsOrStaffCard() throws {
        var (harness, _) = try harness()
        let tapped = harness.run(.cardRead(.newDiaryCard))
        #expect(tapped.taps == 0)
        #expect(tapped.patterns == [.refused])
        #expect(tapped.messages.last == StationTexts().blankCard)
        #expect(!tapped.contains { if case .makeDiaryCard = $0 { true } else { false } })
        harness.openStaff()
        harness.run(.staffCommand(.enrolStaffCard))
        let staffCard = harness.run(.cardRead(.newDiaryCard))
        #expect(!staffCard.contains { if case .makeDiaryCard = $0 { true } else { false } })
        #expect(staffCard.patterns == [.refused])
    }

    /// A diary card's holder acknowledges their warning in their session: it is kept on the card (its profile), the
    /// kiosk keeps no record of it, and the card's next session, at any kiosk, shows it acknowledged.
    @Test func aDiaryCardsHolderAcknowledgesTheirWarningOnTheCard() throws {
        var (harness, card) = try harness()
        let desk = try #require(harness.diary?.desk)
        try desk.saveSettings(CardProfile(matchingAllowed: true), of: card)
        let placed = try onReader()
        harness.run(.cardRead(.diary(placed)))
        let notice = WarningNotice(
            acknowledgementTag: (0..<32).map { UInt8($0) }, exposureDays: [RetentionPolicy.dayNumber(harness.now.now)],
            isHighRisk: false, expiryHour: 900_000)
        harness.warnings[placed.secret.printedText] = notice
        harness.run(.chosen("session"))
        harness.run(.chosen("warning"))
        let acknowledged = harness.run(.chosen("acknowledge"))
        #expect(
            acknowledged.contains {
                if case .cardRequest(.diary, .acknowledgeWarning) = $0 { true } else { false }
            })
        #expect(harness.machine.state.warnings.isEmpty, "the kiosk keeps no record of it")
        #expect(
            harness.machine.screen(now: harness.now).choices.contains { $0.id == "back" }, "the warning stays shown")
        let profile = try DiaryHeader(encoded: card.header).profile
        #expect(profile.acknowledgedWarning == CardProfile.acknowledgement(of: notice, using: crypto))
        #expect(profile.acknowledges(notice, using: crypto))
        harness.run(.cardRemoved)

        // Put back: another placement, the same card.
        harness.diary?.placement = 8
        harness.run(.cardRead(.diary(try onReader(8))))
        let session = harness.run(.chosen("session"))
        #expect(!session.messages.contains { $0.title == StationTexts().newsForCard.title })
        harness.run(.chosen("warning"))
        let screen = harness.machine.screen(now: harness.now)
        #expect(screen.choices.contains { $0.id == "back" }, "the warning is shown: \(screen.choices.map(\.id))")
        #expect(!screen.choices.contains { $0.id == "acknowledge" }, "and already acknowledged")
    }

    /// The largest profile a diary card keeps — a PIN's verifier, a language, an acknowledged warning — fits its
    /// header and reads back the same; one without an acknowledgement reads back without one.
    @Test func anAcknowledgedWarningFitsTheHeaderBesideAPIN() throws {
        var header = DiaryHeader(ringRecords: 34)
        header.profile = CardProfile(
            matchingAllowed: true, pinVerifier: [UInt8](repeating: 0x5A, count: 32), wrongPINs: 4,
            lockedUntil: 1_790_000_000, language: "it", alwaysSpeak: true)
        header.profile.acknowledgedWarning = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(try DiaryHeader(encoded: header.encoded()).profile == header.profile)
        header.profile.acknowledgedWarning = nil
        #expect(try DiaryHeader(encoded: header.encoded()).profile.acknowledgedWarning == nil)
    }
}
