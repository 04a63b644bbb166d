import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// The card holder's own session, through the station machine with a real desk (OpenSSL, in-memory store): opened
/// without checking in or out, the holder's stays and their count, deleting, blocking, the PIN, permission to
/// match, sharing with consent, and closing.
@Suite struct VisitorSessionTests {
    /// A bound kiosk where `card` checked in three times (10:00–11:00, 12:00–13:00, 14:00 still open), on `screen`
    /// (a large panel unless said: all three stays on one page).
    static func harnessWithStays(_ card: CardSecret, screen: ScreenGeometry = StationFixtures.largePanel)
        -> MachineHarness
    {
        var configuration = StationConfiguration(staffCode: "STAFF-2026-secret", timeZone: StationFixtures.zone)
        configuration.screen = screen
        var harness = MachineHarness(configuration: configuration)
        harness.bind()
        for _ in 0..<2 {
            harness.run(.cardRead(.card(card)))
            harness.clock.advance(by: 3600)
            harness.run(.cardRead(.card(card)))
            harness.run(.cardRemoved)
            harness.clock.advance(by: 3600)
        }
        harness.run(.cardRead(.card(card)))
        harness.run(.cardRemoved)
        return harness
    }

    static func screen(_ harness: MachineHarness) -> ScreenModel { harness.machine.screen(now: harness.now) }

    @Test func myCheckInsThenATapOpensTheSessionWithoutCheckingInOrOut() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        let stored = harness.store.allRows.count
        #expect(Self.screen(harness).choices.map(\.id) == ["session", "language"])
        harness.run(.chosen("session"))
        #expect(Self.screen(harness).title == StationTexts().sessionPrompt.title)
        let opened = harness.run(.cardRead(.card(card)))
        #expect(opened.taps == 0, "the tap opened the session: no check-in or out")
        #expect(harness.store.allRows.count == stored)
        let home = Self.screen(harness)
        #expect(home.isPrivate)
        #expect(home.title == "Your check-ins")
        // UI-2 and UI-3: every stay with its venue, day and times, and how many.
        #expect(home.lines.contains("This kiosk holds 3 stays for this card."))
        #expect(home.items.count == 3)
        // In the venue's zone (Europe/Rome, UTC+1 in March), "today" as of the session, never "UTC".
        #expect(home.items.allSatisfy { $0.contains("Friseur") && $0.contains("today, ") && !$0.contains("UTC") })
        #expect(home.items.first?.contains("open") == true)
        #expect(home.items.last?.contains("today, 11:00\u{2060}–\u{2060}12:00, ended") == true, "\(home.items)")
        // Taking the card away closes it at once: nothing of it on the screen.
        harness.run(.cardRemoved)
        let after = Self.screen(harness)
        #expect(!after.isPrivate)
        #expect(!after.readingOrder.joined().contains("Friseur"))
        #expect(!harness.machine.isSessionOpen)
    }

    @Test func keepingTheCardOnTheReaderAfterATapOffersTheSession() {
        let card = StationFixtures.card()
        var harness = MachineHarness()
        harness.bind()
        harness.run(.cardRead(.card(card)))
        #expect(Self.screen(harness).choices.map(\.id) == ["session", "language"])
        harness.run(.chosen("session"))
        #expect(harness.machine.isSessionOpen)
        #expect(Self.screen(harness).lines.contains("This kiosk holds 1 stay for this card."))
        // Taken away after the tap: no session is offered for it any more.
        harness.run(.chosen("done"))
        harness.run(.cardRemoved)
        harness.run(.chosen("session"))
        #expect(!harness.machine.isSessionOpen)
        #expect(Self.screen(harness).title == StationTexts().sessionPrompt.title)
    }

    @Test func deletingOneThenEverything() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("delete"))
        #expect(Self.screen(harness).choices.map(\.id) == ["delete-one", "delete-all", "block", "back"])
        harness.run(.chosen("delete-one"))
        let pick = Self.screen(harness)
        #expect(pick.choices.filter { $0.id.hasPrefix("stay:") }.count == 3)
        let oldest = try #require(pick.choices.last { $0.id.hasPrefix("stay:") })
        harness.run(.chosen(oldest.id))
        #expect(Self.screen(harness).title == "Delete this stay?")
        harness.run(.chosen("delete"))
        var home = Self.screen(harness)
        #expect(home.lines.contains("The stay was deleted."))
        #expect(home.lines.contains("This kiosk holds 2 stays for this card."))
        #expect(harness.store.allRows.count == 2)

        harness.run(.chosen("delete"))
        harness.run(.chosen("delete-all"))
        #expect(Self.screen(harness).lines.first == "All 2 stays and your settings on this kiosk will be deleted.")
        harness.run(.chosen("keep"))
        #expect(harness.store.allRows.count == 2)
        harness.run(.chosen("delete"))
        harness.run(.chosen("delete-all"))
        harness.run(.chosen("delete"))
        home = Self.screen(harness)
        #expect(home.lines.contains("Everything was deleted."))
        #expect(home.lines.contains("This kiosk holds no stays for this card."))
        #expect(harness.store.allRows.isEmpty)
    }

    @Test func blockingDeletesEverythingAndTheCardIsUselessHere() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        // The printed code opens the session just as the card does.
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.run(.chosen("delete"))
        harness.run(.chosen("block"))
        #expect(Self.screen(harness).title == "Block this card?")
        let blocked = harness.run(.chosen("block"))
        #expect(blocked.messages.last?.title == "Card blocked")
        #expect(!harness.machine.isSessionOpen)
        #expect(harness.store.allRows.isEmpty)
        // Neither a tap nor a session works for it any more.
        harness.clock.advance(by: 3600)
        let tap = harness.run(.cardRead(.card(card)))
        #expect(harness.tapOutcomes.last == .refused(.cardBlocked))
        #expect(tap.patterns == [.refused])
        #expect(harness.store.allRows.isEmpty)
        harness.run(.chosen("session"))
        let refused = harness.run(.codeScanned(card.printedText))
        #expect(refused.messages.last?.body == TapRefusal.cardBlocked.description)
        #expect(!harness.machine.isSessionOpen)
    }

    @Test func aPINGuardsTheSessionAndFiveWrongOnesLockItForAnHour() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("settings"))
        harness.run(.chosen("set-pin"))
        for key in "4711" { harness.run(.chosen("key:\(key)")) }
        harness.run(.chosen("key:ok"))
        #expect(Self.screen(harness).title == "Type the new PIN again")
        for key in "4711" { harness.run(.chosen("key:\(key)")) }
        harness.run(.chosen("key:ok"))
        #expect(Self.screen(harness).lines.contains("PIN: set."))
        // Never in clear: the stored profile does not contain the digits.
        harness.run(.chosen("done"))
        harness.run(.cardRemoved)

        // Tapping in and out never needs it.
        harness.clock.advance(by: 600)
        harness.run(.cardRead(.card(card)))
        #expect(harness.tapOutcomes.last.map { if case .checkedOut = $0 { true } else { false } } == true)
        harness.run(.cardRemoved)

        // The session asks for it; the PIN screen says how many digits, never which.
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        var screen = Self.screen(harness)
        #expect(screen.title == "Your PIN" && screen.items.isEmpty)
        for key in "12" { harness.run(.chosen("key:\(key)")) }
        screen = Self.screen(harness)
        #expect(screen.keypad?.shown == "••" && screen.lines.contains("2 digits typed."))
        #expect(!screen.lines.joined().contains("12"))
        for attempt in 1...4 {
            for key in "0000" { harness.run(.chosen("key:\(key)")) }
            harness.run(.chosen("key:ok"))
            #expect(Self.screen(harness).lines.first?.contains("\(5 - attempt) tr") == true, "\(attempt)")
        }
        // A new harness over the same store: the count survives a restart.
        var restarted = MachineHarness(store: harness.store)
        restarted.clock.set(harness.now.now)
        restarted.run(.chosen("session"))
        restarted.run(.cardRead(.card(card)))
        for key in "9999" { restarted.run(.chosen("key:\(key)")) }
        let locked = restarted.run(.chosen("key:ok"))
        #expect(locked.messages.last?.body.contains("locked") == true)
        #expect(!restarted.machine.isSessionOpen)
        // Locked: even the right PIN does not open it within the hour…
        restarted.run(.chosen("session"))
        let stillLocked = restarted.run(.cardRead(.card(card)))
        #expect(stillLocked.messages.last?.body.contains("locked") == true)
        // …and it opens again after the hour, with the right PIN.
        restarted.clock.advance(by: 3601)
        restarted.run(.chosen("session"))
        restarted.run(.cardRead(.card(card)))
        for key in "4711" { restarted.run(.chosen("key:\(key)")) }
        restarted.run(.chosen("key:ok"))
        #expect(Self.screen(restarted).title == "Your check-ins")
    }

    @Test func matchingIsAskedAtEnrolmentWithTwoEqualAnswersAndChangedInTheSession() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        let card = try harness.enrolBlankCard()
        let question = Self.screen(harness)
        // Yes and no, equal; then the holder's language, before answering.
        #expect(question.choices.map(\.id) == ["yes", "no", "language"])
        #expect(question.selected == nil, "no default")
        harness.run(.chosen("yes"))
        #expect(Self.screen(harness).choices.map(\.id) == ["set-pin", "no-pin"])
        harness.run(.chosen("no-pin"))
        // The holder hears how to use the printed card they were handed with the answers saved.
        let saved = Self.screen(harness)
        #expect(saved.title == "Saved")
        #expect(saved.lines.joined().contains(Catalog.english[.receiptCardUse]))
        #expect(saved.lines.joined().contains(Catalog.english[.receiptCardKey]))
        #expect(try harness.desk.profile(of: card).matchingAllowed == true)
        #expect(try harness.desk.profile(of: card).hasPIN == false)
        harness.run(.staffCommand(.leave))

        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("session"))
        harness.run(.chosen("settings"))
        harness.run(.chosen("matching"))
        #expect(Self.screen(harness).selected == nil)
        harness.run(.chosen("no"))
        #expect(try harness.desk.profile(of: card).matchingAllowed == false)
        #expect(Self.screen(harness).lines.contains("Warnings: your stays are not checked."))
    }

    /// Issue 23: every visitor text of a session, from the tap to the consent preview, gives times as the venue's
    /// clocks show them (Europe/Rome here, UTC+1 in March: the stays of 10:00–11:00 UTC read 11:00–12:00), in
    /// natural words, with no-break characters inside, and never says "UTC".
    @Test func noVisitorTextSaysUTCAndTimesAreTheVenues() throws {
        let card = StationFixtures.card()
        var configuration = StationConfiguration(staffCode: "STAFF-2026-secret", timeZone: StationFixtures.zone)
        configuration.screen = StationFixtures.largePanel
        var harness = MachineHarness(configuration: configuration)
        harness.bind()
        var texts = [String]()
        func read(_ actions: [StationAction]) {
            texts += actions.messages.flatMap { [$0.title, $0.body] }
            texts += Self.screen(harness).readingOrder
        }
        for _ in 0..<2 {
            read(harness.run(.cardRead(.card(card))))
            harness.clock.advance(by: 3600)
            read(harness.run(.cardRead(.card(card))))
            harness.run(.cardRemoved)
            harness.clock.advance(by: 3600)
        }
        read(harness.run(.cardRead(.card(card))))
        harness.run(.cardRemoved)
        for step in ["session"] { read(harness.run(.chosen(step))) }
        read(harness.run(.cardRead(.card(card))))
        let home = Self.screen(harness)
        #expect(home.items.last == "Friseur, Berlin: today, 11:00\u{2060}–\u{2060}12:00, ended", "\(home.items)")
        for step in ["delete", "delete-one", "back", "share"] { read(harness.run(.chosen(step))) }
        let toggles = Self.screen(harness).choices.filter { $0.id.hasPrefix("toggle:") }
        #expect(toggles.contains { $0.label == "Not selected: Friseur, Berlin, today, 11:00\u{2060}–\u{2060}12:00" })
        for toggle in toggles.prefix(2) { read(harness.run(.chosen(toggle.id))) }
        for step in ["continue", "week", "print", "continue"] { read(harness.run(.chosen(step))) }
        let consent = Self.screen(harness)
        #expect(consent.choices.map(\.id) == ["yes", "no"])
        #expect(consent.items.contains { $0.hasPrefix("Friseur, Berlin: today, ") && $0.contains("\u{2060}–\u{2060}") })
        #expect(texts.contains { $0.contains("ends by itself at") }, "the check-in's end was read")
        #expect(!texts.isEmpty && !texts.contains { $0.contains("UTC") }, "\(texts.filter { $0.contains("UTC") })")
        #expect(!texts.contains { $0.contains("2026-03-02") }, "no ISO date to a visitor")
    }

    @Test func sharingFollowsTheConsentRulesAndDeliversExactlyThePreview() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("share"))
        var screen = Self.screen(harness)
        // UI-8: nothing preselected.
        let toggles = screen.choices.filter { $0.id.hasPrefix("toggle:") }
        #expect(toggles.count == 3 && toggles.allSatisfy { $0.label.hasPrefix("Not selected") })
        harness.run(.chosen("continue"))
        #expect(Self.screen(harness).title == "Share after a positive test", "nothing selected: no way on")
        harness.run(.chosen(toggles[1].id))
        harness.run(.chosen(toggles[2].id))
        harness.run(.chosen("continue"))
        harness.run(.chosen("week"))
        harness.run(.chosen("print"))
        // UI-7: the disclosure before the question.
        screen = Self.screen(harness)
        #expect(screen.lines == [ConsentFlow.disclosure()])
        harness.run(.chosen("continue"))
        // UI-6, UI-9: the exact preview; yes and no alike, nothing selected.
        screen = Self.screen(harness)
        #expect(screen.choices.map(\.id) == ["yes", "no"])
        #expect(screen.selected == nil)
        #expect(screen.items.first?.hasPrefix("2 reports will leave this kiosk") == true)
        // The buttons never choose without a selection; "next" selects the first answer, not a default.
        harness.run(.navigated(.choose))
        #expect(harness.delivered.isEmpty)
        harness.run(.chosen("yes"))
        let preview = try #require(harness.delivered.first)
        #expect(preview.items.count == 2 && preview.output == .print)
        #expect(preview.lines(in: .english, zone: StationFixtures.zone) == screen.items)
        // Asked again every time: a second share starts from nothing selected.
        harness.run(.chosen("share"))
        #expect(Self.screen(harness).choices.filter { $0.label.hasPrefix("Selected") }.isEmpty)
    }

    /// Uploading with the verification code shown to the camera as a QR code; then another code ends the session.
    @Test func theVerificationCodeCanBeShownAndAnotherCodeEndsTheSession() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.outputs = [.print, .upload]
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.run(.chosen("share"))
        let toggle = try #require(Self.screen(harness).choices.last { $0.id.hasPrefix("toggle:") })
        harness.run(.chosen(toggle.id))
        harness.run(.chosen("continue"))
        harness.run(.chosen("none"))
        harness.run(.chosen("upload"))
        #expect(Self.screen(harness).keypad?.purpose == .verificationCode)
        harness.run(.codeScanned("NOT A CODE"))
        #expect(Self.screen(harness).lines.first?.hasPrefix("That is not a verification code") == true)
        harness.run(.codeScanned("ABCDE-FGHJK"))
        harness.run(.chosen("continue"))
        harness.run(.chosen("yes"))
        #expect(harness.delivered.last?.output == .upload(verificationCode: "ABCDE-FGHJK"))
        #expect(harness.machine.isSessionOpen)
        // A venue's code shown now ends the session.
        harness.run(.codeScanned(StationFixtures.cwaCode))
        #expect(!harness.machine.isSessionOpen)
    }

    @Test func twoButtonsReachEveryChoice() {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        // Idle: one choice, selected; choosing it asks for the card.
        harness.run(.navigated(.choose))
        harness.run(.cardRead(.card(card)))
        let home = Self.screen(harness)
        #expect(home.selected == 0)
        // "next" walks the choices in order and wraps.
        var seen = [String]()
        for _ in home.choices {
            seen.append(Self.screen(harness).selectedID ?? "")
            harness.run(.navigated(.next))
        }
        #expect(seen == home.choices.map(\.id))
        #expect(Self.screen(harness).selectedID == home.choices.first?.id)
        // Down to "Delete or block", choose, down to "Delete everything", then choose.
        for entry in ["delete", "delete-all"] {
            while Self.screen(harness).selectedID != entry { harness.run(.navigated(.next)) }
            harness.run(.navigated(.choose))
        }
        #expect(Self.screen(harness).title == "Delete everything?")
    }

    /// A destructive question starts on the safe answer: a double press of "choose" (a tremor) on "Delete this stay",
    /// "Delete everything" or "Block this card" keeps everything.
    @Test func destructiveQuestionsStartOnTheSafeAnswer() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.navigated(.choose))
        harness.run(.cardRead(.card(card)))
        let rows = harness.store.allRows.count
        #expect(rows > 0)
        for (entry, question) in [
            ("delete-all", "Delete everything?"), ("block", "Block this card?"),
        ] {
            for step in ["delete", entry] {
                while Self.screen(harness).selectedID != step { harness.run(.navigated(.next)) }
                harness.run(.navigated(.choose))
            }
            let asked = Self.screen(harness)
            #expect(asked.title == question)
            #expect(asked.selectedID == "keep", "\(question) starts on \(asked.selectedID ?? "nothing")")
            harness.run(.navigated(.choose))
            #expect(harness.store.allRows.count == rows, "\(question) kept all")
            #expect(harness.machine.isSessionOpen)
        }
    }

    /// The share screen tells the truth: "None is selected" only while none is, and a touched stay is the one marked
    /// (its label says "Selected", the outline is on it), not the first; nothing is outlined before a choice.
    @Test func theShareScreenSaysWhatIsSelectedAndMarksTheTouchedStay() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.run(.chosen("share"))
        var screen = Self.screen(harness)
        let toggles = screen.choices.filter { $0.id.hasPrefix(VisitorSession.toggleChoicePrefix) }
        #expect(toggles.count >= 2)
        #expect(screen.lines.contains("None is selected yet.") && screen.selected == nil, "\(screen.lines)")
        let touched = toggles[1]
        harness.run(.chosen(touched.id))
        screen = Self.screen(harness)
        #expect(!screen.lines.joined().contains("None is selected"), "\(screen.lines)")
        #expect(screen.lines.contains("1 of \(toggles.count) selected."), "\(screen.lines)")
        #expect(screen.selectedID == touched.id, "the outline is on the touched stay")
        #expect(screen.choices.first { $0.id == touched.id }?.label.hasPrefix("Selected:") == true)
        #expect(screen.choices.first { $0.id == toggles[0].id }?.label.hasPrefix("Not selected:") == true)
        // Unpicked again: none, and said so.
        harness.run(.chosen(touched.id))
        #expect(Self.screen(harness).lines.contains("None is selected yet."))
    }

    @Test func aPrintedCodesSessionEndsAfterInactivityWithAWarningFirst() {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit - 10)
        // The warning: on the screen and with a tone, once.
        #expect(harness.run(.tick).patterns == [.timeRunningOut])
        let warned = Self.screen(harness)
        #expect(warned.offers("more-time"))
        #expect(warned.lines.last?.contains("close in 10 seconds") == true)
        harness.clock.advance(by: 1)
        #expect(harness.run(.tick).patterns.isEmpty, "one tone per quiet spell, not one per second")
        harness.run(.chosen("more-time"))
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit - 1)
        harness.run(.tick)
        #expect(harness.machine.isSessionOpen)
        harness.clock.advance(by: 1)
        let closed = harness.run(.tick)
        #expect(!harness.machine.isSessionOpen)
        #expect(closed.messages.last?.title == "Closed")
        #expect(!Self.screen(harness).readingOrder.joined().contains("Friseur"))
    }

    /// In the middle of consent too, the end is announced first and more time offered (never silently).
    @Test func consentIsNeverClosedSilently() throws {
        let card = StationFixtures.card()
        var harness = Self.harnessWithStays(card)
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.run(.chosen("share"))
        let toggle = try #require(Self.screen(harness).choices.first { $0.id.hasPrefix("toggle:") })
        harness.run(.chosen(toggle.id))
        harness.run(.chosen("continue"))
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit - VisitorSession.inactivityWarning)
        #expect(harness.run(.tick).patterns == [.timeRunningOut])
        #expect(Self.screen(harness).offers("more-time"))
        harness.run(.chosen("more-time"))
        #expect(harness.machine.isSessionOpen)
        #expect(Self.screen(harness).title == "When did symptoms begin?", "more time keeps the step")
    }

    /// The venue sets a longer time to answer; the warning still comes 20 seconds before its end.
    @Test func theSessionsTimeToAnswerIsConfigured() {
        let card = StationFixtures.card()
        var configuration = StationConfiguration(staffCode: "STAFF-2026-secret")
        configuration.sessionInactivity = 300
        var harness = MachineHarness(configuration: configuration)
        harness.bind()
        harness.run(.chosen("session"))
        harness.run(.codeScanned(card.printedText))
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit + 60)
        #expect(harness.run(.tick).patterns.isEmpty)
        #expect(harness.machine.isSessionOpen, "not closed at the default's time")
        harness.clock.advance(by: 300 - VisitorSession.inactivityWarning - VisitorSession.defaultInactivityLimit - 60)
        #expect(harness.run(.tick).patterns == [.timeRunningOut])
        harness.clock.advance(by: VisitorSession.inactivityWarning)
        harness.run(.tick)
        #expect(!harness.machine.isSessionOpen)
    }

    /// The wait for a card after "My check-ins" and the language list end by themselves: each says so first (screen,
    /// tone) and offers more time.
    @Test func waitingScreensWarnBeforeTheyEndAndOfferMoreTime() {
        var harness = MachineHarness()
        harness.bind()
        harness.run(.chosen("session"))
        harness.clock.advance(by: CheckInMachine.sessionRequestTime - CheckInMachine.timeWarning - 1)
        #expect(harness.run(.tick).patterns.isEmpty)
        #expect(!Self.screen(harness).offers("more-time"))
        harness.clock.advance(by: 2)
        #expect(harness.run(.tick).patterns == [.timeRunningOut])
        let warned = Self.screen(harness)
        #expect(warned.offers("more-time"))
        #expect(warned.lines.last == "This screen closes in 19 seconds. Choose “More time” to stay.")
        #expect(harness.run(.tick).patterns.isEmpty, "one tone")
        harness.run(.chosen("more-time"))
        #expect(Self.screen(harness).title == StationTexts().sessionPrompt.title)
        #expect(!Self.screen(harness).offers("more-time"))
        harness.clock.advance(by: CheckInMachine.sessionRequestTime - 1)
        harness.run(.tick)
        #expect(Self.screen(harness).title == StationTexts().sessionPrompt.title, "more time given")
        harness.clock.advance(by: 1)
        harness.run(.tick)
        #expect(Self.screen(harness).title != StationTexts().sessionPrompt.title)

        harness.run(.chosen("language"))
        harness.clock.advance(by: harness.machine.answerTime - CheckInMachine.timeWarning)
        #expect(harness.run(.tick).patterns == [.timeRunningOut])
        #expect(Self.screen(harness).offers("more-time") && Self.screen(harness).offers("language:de"))
        // The venue's time to answer: the language list waits as long as a printed code's session.
        #expect(harness.machine.answerTime == VisitorSession.defaultInactivityLimit)
        #expect(CheckInMachine.timeWarning >= 20, "WCAG 2.2.1: at least 20 seconds to ask for more")
    }
}
