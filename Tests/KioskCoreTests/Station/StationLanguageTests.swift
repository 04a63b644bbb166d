import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// The station speaks the kiosk's language, the one a visitor chooses on the idle screen, and the one a card
/// remembers for its holder.
@Suite struct StationLanguageTests {
    static func screen(_ harness: MachineHarness) -> ScreenModel { harness.machine.screen(now: harness.now) }

    @Test func theConfiguredLanguageIsTheKiosksOwn() {
        var harness = MachineHarness(configuration: StationConfiguration(staffCode: "STAFF-2026-secret", language: .de))
        harness.bind()
        harness.clock.advance(by: 60)
        let idle = Self.screen(harness)
        #expect(idle.language == "de")
        #expect(idle.title == Catalog.of(.de)[.stationIdleTitle])
        #expect(idle.title != Catalog.english[.stationIdleTitle])
        let tapped = harness.run(.cardRead(.card(StationFixtures.card())))
        #expect(tapped.messages.first?.title == StationTexts(.de).checkedIn.title)
    }

    @Test func aVisitorChoosesALanguageOnTheIdleScreenAndItLastsWhileTheyUseTheKiosk() {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.advance(by: 60)
        harness.run(.chosen("language"))
        let offered = Self.screen(harness)
        // Each language named in itself, the current one selected first.
        #expect(offered.choices.map(\.label).prefix(4) == ["English", "Deutsch", "Français", "Italiano"])
        #expect(offered.selectedID == "language:en")
        harness.run(.chosen("language:fr"))
        let french = Self.screen(harness)
        #expect(french.language == "fr")
        #expect(french.title == Catalog.of(.fr)[.stationIdleTitle])
        #expect(french.choices.map(\.label).contains(Catalog.of(.fr)[.stationMyCheckIns]))
        let tapped = harness.run(.cardRead(.card(StationFixtures.card())))
        #expect(tapped.messages.first?.title == StationTexts(.fr).checkedIn.title)
        // Nobody at the kiosk for a while: it speaks its own language again.
        harness.clock.advance(by: CheckInMachine.visitorLanguageTime + 1)
        harness.run(.tick)
        #expect(Self.screen(harness).language == "en")
        #expect(Self.screen(harness).title == Catalog.english[.stationIdleTitle])
        // A tap's result still on the screen when another language is chosen: nothing stays in the old language.
        harness.run(.cardRead(.card(StationFixtures.card())))
        harness.run(.chosen("language"))
        harness.run(.chosen("language:de"))
        let german = Self.screen(harness)
        #expect(german.language == "de" && german.title == Catalog.of(.de)[.stationIdleTitle])
        #expect(!german.readingOrder.contains(StationTexts(.en).checkedIn.title))
    }

    @Test func aCardRemembersItsHoldersLanguage() throws {
        let card = StationFixtures.card()
        var harness = MachineHarness()
        harness.bind()
        harness.run(.cardRead(.card(card)))
        harness.run(.cardRemoved)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        #expect(Self.screen(harness).language == "en")
        harness.run(.chosen("settings"))
        #expect(Self.screen(harness).offers("language"))
        harness.run(.chosen("language"))
        harness.run(.chosen("language:it"))
        let settings = Self.screen(harness)
        #expect(settings.language == "it")
        #expect(settings.title == Catalog.of(.it)[.sessionSettings])
        #expect(try harness.desk.profile(of: card).language == "it")
        harness.run(.cardRemoved)
        // The idle screen stays the kiosk's; the next session of this card opens in Italian.
        harness.clock.advance(by: 60)
        #expect(Self.screen(harness).language == "en")
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        let home = Self.screen(harness)
        #expect(home.language == "it")
        #expect(home.title == Catalog.of(.it)[.sessionHomeTitle])
    }

    /// Issue 23: a person chooses Italian on the idle screen and staff enrol a card for them: its questions (matching,
    /// a PIN) are in Italian, the language is saved with the answers, and the card's next session opens in Italian
    /// without a visit to the settings.
    @Test func aNewCardIsAskedInTheLanguageChosenOnTheIdleScreenAndKeepsIt() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.advance(by: 60)
        harness.run(.chosen("language"))
        harness.run(.chosen("language:it"))
        #expect(Self.screen(harness).language == "it")
        harness.openStaff()
        let card = try harness.enrolBlankCard()
        let italian = Catalog.of(.it)
        let matching = Self.screen(harness)
        #expect(matching.choices.map(\.id) == ["yes", "no", "language"])
        #expect(matching.language == "it")
        #expect(matching.title == italian[.sessionMatchingQuestionTitle])
        #expect(
            matching.choices.map(\.label) == [
                italian[.sessionMatchingQuestionYes], italian[.sessionMatchingQuestionNo], italian[.sessionLanguage],
            ])
        harness.run(.chosen("yes"))
        let pinOffer = Self.screen(harness)
        #expect(pinOffer.language == "it" && pinOffer.title == italian[.sessionPinOfferTitle])
        harness.run(.chosen("no-pin"))
        let profile = try harness.desk.profile(of: card)
        #expect(profile.language == "it" && profile.matchingAllowed == true)
        harness.run(.staffCommand(.leave))
        // Later, nobody's choice left at the kiosk: it speaks English; the card's session opens in Italian.
        harness.clock.advance(by: CheckInMachine.visitorLanguageTime + 60)
        harness.run(.tick)
        #expect(Self.screen(harness).language == "en")
        // The tap itself is answered in Italian: the card remembers it.
        let tapped = harness.run(.cardRead(.card(card)))
        #expect(tapped.messages.last?.title == italian[.stationCheckedInTitle], "\(tapped.messages)")
        #expect(Self.screen(harness).language == "it")
        harness.run(.chosen("session"))
        let home = Self.screen(harness)
        #expect(home.language == "it")
        #expect(home.title == italian[.sessionHomeTitle])
        // Once the holder has left, the next person is greeted in the kiosk's language.
        harness.run(.cardRemoved)
        harness.clock.advance(by: 60)
        harness.run(.tick)
        #expect(Self.screen(harness).language == "en")
    }

    /// A card whose holder chose Italian, tapped while staff mode is open: staff mode keeps its language, and the
    /// next holder whose card staff enrol is not asked in the tapping card's language.
    @Test func aCardsLanguageAtATapInStaffModeDoesNotStayWithStaff() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.advance(by: 60)
        harness.run(.chosen("language"))
        harness.run(.chosen("language:it"))
        harness.openStaff()
        let card = try harness.enrolBlankCard()
        harness.run(.chosen("no"))
        harness.run(.chosen("no-pin"))
        harness.run(.cardRemoved)
        harness.run(.staffCommand(.leave))
        harness.clock.advance(by: CheckInMachine.visitorLanguageTime + 60)
        harness.run(.tick)
        harness.openStaff()
        #expect(Self.screen(harness).language == "en")
        let tapped = harness.run(.cardRead(.card(card)))
        #expect(tapped.taps == 1, "the tap is recorded in staff mode too")
        harness.run(.cardRemoved)
        #expect(Self.screen(harness).language == "en")
        harness.randomByte = 0x61
        _ = try harness.enrolBlankCard()
        #expect(Self.screen(harness).language == "en", "the next holder's questions")
    }

    /// A holder who chose no language before staff began chooses it at the first question: the questions go on in
    /// it, and the card keeps it.
    @Test func aNewHolderChoosesTheirLanguageAtTheFirstQuestion() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        let card = try harness.enrolBlankCard()
        #expect(Self.screen(harness).language == "en")
        harness.run(.chosen("language"))
        let languages = Self.screen(harness)
        #expect(languages.choices.map(\.id) == ["language:en", "language:de", "language:fr", "language:it", "back"])
        harness.run(.chosen("language:fr"))
        let french = Catalog.of(.fr)
        let matching = Self.screen(harness)
        #expect(matching.language == "fr" && matching.title == french[.sessionMatchingQuestionTitle])
        #expect(matching.selected == nil, "yes and no alike: nothing selected")
        harness.run(.chosen("yes"))
        #expect(Self.screen(harness).title == french[.sessionPinOfferTitle])
        harness.run(.chosen("no-pin"))
        #expect(try harness.desk.profile(of: card).language == "fr")
        // "Back" from the languages changes nothing.
        harness.randomByte = 0x51
        harness.run(.cardRemoved)
        harness.run(.staffCommand(.enrolCard))
        let second = harness.run(.cardRead(.blank))
        let other = try #require(second.compactMap { if case .enrolCard(let s) = $0 { s } else { nil } }.first)
        harness.run(.chosen("language"))
        harness.run(.chosen("back"))
        #expect(Self.screen(harness).language == "en")
        harness.run(.chosen("no"))
        harness.run(.chosen("no-pin"))
        #expect(try harness.desk.profile(of: other).language == nil)
    }

    /// Two cards enrolled one after the other: the first holder chose Italian and their card keeps it; the second
    /// holder sees the questions in the language left on the screen, but nothing of the first holder's choice is
    /// saved with their card.
    @Test func theNextHolderDoesNotInheritTheLanguageChoiceOfTheOneBefore() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.advance(by: 60)
        harness.run(.chosen("language"))
        harness.run(.chosen("language:it"))
        harness.openStaff()
        var cards = [CardSecret]()
        for index in 0..<2 {
            harness.randomByte = 0x42 + UInt8(index)  // two different cards
            harness.run(.staffCommand(.enrolCard))
            let enrolled = harness.run(.cardRead(.blank))
            cards.append(try #require(enrolled.compactMap { if case .enrolCard(let s) = $0 { s } else { nil } }.first))
            harness.run(.chosen("no"))
            harness.run(.chosen("no-pin"))
            harness.run(.cardRemoved)
        }
        #expect(cards[0] != cards[1])
        #expect(try harness.desk.profile(of: cards[0]).language == "it")
        #expect(try harness.desk.profile(of: cards[1]).language == nil)
    }

    /// Without a language chosen, enrolment saves none: the card follows the kiosk's language.
    @Test func aNewCardWithoutAChosenLanguageKeepsNone() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        let card = try harness.enrolBlankCard()
        #expect(Self.screen(harness).language == "en")
        harness.run(.chosen("no"))
        harness.run(.chosen("no-pin"))
        let profile = try harness.desk.profile(of: card)
        #expect(profile.language == nil && profile.matchingAllowed == false)
    }

    @Test func alwaysSpeakIsTheHoldersChoiceKeptWithTheirCard() throws {
        let card = StationFixtures.card()
        var harness = MachineHarness()
        harness.bind()
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("settings"))
        #expect(try harness.desk.profile(of: card).alwaysSpeak == false)
        harness.run(.chosen("always-speak"))
        #expect(try harness.desk.profile(of: card).alwaysSpeak == true)
        #expect(Self.screen(harness).lines.contains(Catalog.english[.speechAlwaysOn]))
    }
}
