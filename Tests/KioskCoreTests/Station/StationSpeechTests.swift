import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Speech decided by the station from the screen: nothing needs switching on (a button held two seconds speaks), a
/// new screen interrupts, the selected choice is said as the buttons move, a holder's "always speak" speaks their
/// session, and nothing is said that the screen does not show to the same person.
@Suite struct StationSpeechTests {
    /// Runs `event` like the runner: the event, then what to say.
    @discardableResult
    static func run(_ harness: inout MachineHarness, _ event: StationEvent, _ spoken: inout [SpeechCue]) -> ScreenModel
    {
        harness.run(event)
        if let cue = harness.machine.speech(now: harness.now) { spoken.append(cue) }
        return harness.machine.screen(now: harness.now)
    }

    static func said(_ cues: [SpeechCue]) -> [String] {
        cues.compactMap { if case .say(let text, _, _) = $0 { text } else { nil } }
    }

    @Test func nothingIsSaidUntilAButtonIsHeldThenEveryScreenIs() {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.advance(by: 60)
        var spoken = [SpeechCue]()
        Self.run(&harness, .tick, &spoken)
        Self.run(&harness, .navigated(.next), &spoken)
        #expect(Self.said(spoken).isEmpty, "no speech before anyone asked for it")
        let idle = Self.run(&harness, .speakRequested, &spoken)
        #expect(
            spoken.last == .say(text: CheckInMachine.spokenText(of: idle), language: .en, voice: harness.machine.voice))
        let text = Self.said(spoken).last ?? ""
        for part in idle.readingOrder { #expect(text.contains(part)) }
        #expect(text.contains("Selected: Language."), "which choice the buttons would choose")
        // Moving the selection says the choice alone, with where it is (the last choice, while the kiosk speaks,
        // opens the volume and speed of speech).
        #expect(idle.choices.last?.id == "speech-settings")
        Self.run(&harness, .navigated(.next), &spoken)
        #expect(Self.said(spoken).last == "Choice 3 of 3: Volume and speed of speech.")
        Self.run(&harness, .navigated(.next), &spoken)
        #expect(Self.said(spoken).last == "Choice 1 of 3: My check-ins.")
        // Holding again repeats the whole screen.
        Self.run(&harness, .speakRequested, &spoken)
        #expect(Self.said(spoken).last?.hasPrefix(idle.title) == true)
        // A tap: the new screen is said at once (it interrupts what was being said).
        let tapped = Self.run(&harness, .cardRead(.card(StationFixtures.card())), &spoken)
        #expect(Self.said(spoken).last == CheckInMachine.spokenText(of: tapped))
        #expect(tapped.title == "Checked in")
        // Left alone, the kiosk stops speaking; the next screen is not said.
        harness.clock.advance(by: CheckInMachine.visitorLanguageTime + 1)
        let before = spoken.count
        Self.run(&harness, .tick, &spoken)
        #expect(spoken.count == before || spoken.last == .stop)
        #expect(Self.said(Array(spoken[before...])).isEmpty)
        // The next person's tap and choices do not bring speech back: they ask for it themselves.
        harness.clock.advance(by: 60)
        Self.run(&harness, .cardRead(.card(StationFixtures.card())), &spoken)
        Self.run(&harness, .navigated(.next), &spoken)
        #expect(Self.said(Array(spoken[before...])).isEmpty)
        #expect(!harness.machine.isSpeaking(now: harness.now.now))
    }

    @Test func aHolderWhoChoseAlwaysSpeakIsSpokenToAndTakingTheCardAwayStopsIt() throws {
        let card = StationFixtures.card()
        var harness = MachineHarness()
        harness.bind()
        var spoken = [SpeechCue]()
        Self.run(&harness, .chosen("session"), &spoken)
        Self.run(&harness, .cardRead(.card(card)), &spoken)
        Self.run(&harness, .chosen("settings"), &spoken)
        Self.run(&harness, .chosen("always-speak"), &spoken)
        Self.run(&harness, .cardRemoved, &spoken)
        #expect(try harness.desk.profile(of: card).alwaysSpeak)
        spoken = []
        harness.clock.advance(by: 600)
        Self.run(&harness, .tick, &spoken)
        Self.run(&harness, .chosen("session"), &spoken)
        #expect(Self.said(spoken).isEmpty)
        let home = Self.run(&harness, .cardRead(.card(card)), &spoken)
        #expect(home.isPrivate)
        #expect(Self.said(spoken).last == CheckInMachine.spokenText(of: home), "spoken without holding a button")
        // The card leaves: what was being said of the session stops at once, nothing of it is said again.
        Self.run(&harness, .cardRemoved, &spoken)
        #expect(spoken.last == .stop)
    }

    /// A blind visitor who reads French, with the two buttons and speech only: asks for speech, chooses French,
    /// checks in, opens the session with the card kept on the reader, hears the stays, shares two of them with
    /// consent and has them printed. Every choice is found by listening to what the selection says; every
    /// utterance is exactly what the screen showed, in French.
    @Test func aBlindVisitorInFrenchUsesTheKioskWithButtonsAndSpeechAlone() throws {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card)
        harness.clock.advance(by: 60)
        harness.run(.tick)
        var spoken = [SpeechCue]()
        var screens = [ScreenModel]()
        func step(_ event: StationEvent) {
            screens.append(Self.run(&harness, event, &spoken))
        }
        /// Presses "next" until the voice names `label`, then "choose" — as a person who cannot see the screen.
        func pick(_ label: String) throws {
            for _ in 0..<40 {
                step(.navigated(.next))
                if let last = Self.said(spoken).last, last.hasSuffix(": \(label).") {
                    step(.navigated(.choose))
                    return
                }
            }
            Issue.record("never heard \(label)")
            throw CancellationError()
        }
        let french = Catalog.of(.fr)
        step(.speakRequested)
        try pick("Language")
        try pick("Français")
        #expect(spoken.last.map { if case .say(_, .fr, _) = $0 { true } else { false } } == true)
        // The tap checks in (light and sound, and the screen said in French); the card stays on the reader.
        step(.cardRead(.card(card)))
        #expect(
            Self.said(spoken).last?.hasPrefix(french[.stationCheckedOutTitle]) == true
                || Self.said(spoken).last?.hasPrefix(french[.stationCheckedInTitle]) == true)
        try pick(french[.stationMyCheckIns])
        let home = try #require(screens.last)
        #expect(home.isPrivate && home.language == "fr")
        // The stays are heard: every line of the list is in what was said.
        let heard = Self.said(spoken).last ?? ""
        #expect(home.items.count == 3)
        for item in home.items { #expect(heard.contains(item)) }
        #expect(heard.contains(french.count(.sessionCount, 3)))
        try pick(french[.sessionShare])
        let toggles = (screens.last?.choices ?? []).filter { $0.id.hasPrefix("toggle:") }
        try pick(toggles[0].label)
        let again = (screens.last?.choices ?? []).filter { $0.id.hasPrefix("toggle:") }
        try pick(again[1].label)
        try pick(french[.sessionShareContinue])
        try pick(french[.sessionSymptomsNone])
        try pick(french[.sessionOutputPrint])
        #expect(screens.last?.lines == [french[.consentDisclosure]])
        try pick(french[.sessionShareContinue])
        let question = try #require(screens.last)
        #expect(question.selected == nil, "no default answer")
        try pick(french[.consentYes])
        let preview = try #require(harness.delivered.first)
        #expect(preview.items.count == 2 && preview.output == .print)
        // What the receipt says is heard too: what to do with it, and that its codes say nothing readable.
        let sent = Self.said(spoken).last ?? ""
        #expect(sent.contains(french[.sessionSentPrint]) && sent.contains(french[.receiptReportHandOver]))
        #expect(sent.contains(french[.receiptReportOpaque]))
        #expect(preview.lines(in: french, zone: StationFixtures.zone) == question.items)
        // The transcript: each utterance is the screen it was said on, or its selected choice — in French.
        let languages = spoken.compactMap { if case .say(_, let language, _) = $0 { language } else { nil } }
        let firstFrench = try #require(languages.firstIndex(of: .fr))
        #expect(languages[firstFrench...].allSatisfy { $0 == .fr }, "after French was chosen, all is said in French")
        #expect(Self.said(spoken)[firstFrench...].allSatisfy { !$0.contains("Selected:") && !$0.contains("Choice ") })
        for (screen, cue) in zip(screens, spoken) where screen.language == "fr" {
            guard case .say(let text, _, _) = cue else { continue }
            let whole = CheckInMachine.spokenText(of: screen)
            let choice = screen.selected.map { CheckInMachine.spokenChoice(of: screen, at: $0) }
            #expect(text == whole || text == choice)
        }
    }

    @Test func aPINsDotsAreNeverSaidOnlyHowManyDigitsWereTyped() {
        let catalog = Catalog.english
        let pin = ScreenModel(
            kind: "prompt", title: catalog[.sessionPinTitle], lines: [catalog.count(.sessionDigitsTyped, 2)],
            choices: [.init(id: "key:1", label: "1"), .init(id: "key:ok", label: "OK")],
            keypad: .init(purpose: .pin, shown: "••", keys: ["1"]))
        let said = CheckInMachine.spokenText(of: pin)
        #expect(!said.contains("•"))
        #expect(said.contains("2 digits typed."))
        // A verification code is not secret: what was typed is said.
        var code = pin
        code.keypad = .init(purpose: .verificationCode, shown: "ABC12", keys: ["A"])
        #expect(CheckInMachine.spokenText(of: code).contains("ABC12"))
    }

    /// A countdown is said once when it appears, not again every second.
    @Test func aCountdownIsSaidOnceNotEverySecond() {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card)
        var spoken = [SpeechCue]()
        Self.run(&harness, .speakRequested, &spoken)
        Self.run(&harness, .chosen("session"), &spoken)
        Self.run(&harness, .codeScanned(card.printedText), &spoken)
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit - VisitorSession.inactivityWarning)
        let before = spoken.count
        Self.run(&harness, .tick, &spoken)
        #expect(spoken.count == before + 1)
        #expect(Self.said(spoken).last?.contains("20 seconds") == true)
        for _ in 0..<5 {
            harness.clock.advance(by: 1)
            Self.run(&harness, .tick, &spoken)
        }
        #expect(spoken.count == before + 1, "not said again as the seconds count down")
    }

    /// The person being spoken to sets their own volume and speed (EN 301 549 5.1.3.11, 5.1.3.12; ADA 707.5) from
    /// the choice every spoken screen ends with; each change is said at once in the new voice; the settings give
    /// back the screen under them; the next person hears the venue's voice again.
    @Test func aVisitorSetsTheirOwnVolumeAndSpeedAndTheNextPersonHearsTheVenues() throws {
        var configuration = StationConfiguration(staffCode: "STAFF-2026-secret")
        configuration.voice = SpeechVoice(volume: 60, rate: 150)
        var harness = MachineHarness(configuration: configuration)
        harness.bind()
        harness.clock.advance(by: 60)
        var spoken = [SpeechCue]()
        let silent = Self.run(&harness, .tick, &spoken)
        #expect(!silent.offers("speech-settings"), "offered only while the kiosk speaks")
        let idle = Self.run(&harness, .speakRequested, &spoken)
        #expect(idle.choices.last == .init(id: "speech-settings", label: "Volume and speed of speech"))
        let settings = Self.run(&harness, .chosen("speech-settings"), &spoken)
        #expect(settings.title == "Speech")
        #expect(settings.lines.prefix(2) == ["Volume 6 of 10.", "Speed: 150 words a minute."])
        #expect(
            settings.choices.map(\.id) == [
                "speech-louder", "speech-quieter", "speech-faster", "speech-slower", "speech-back",
            ])
        #expect(Self.said(spoken).last == CheckInMachine.spokenText(of: settings))
        Self.run(&harness, .chosen("speech-louder"), &spoken)
        #expect(spoken.last == .say(text: "Volume 7 of 10.", language: .en, voice: SpeechVoice(volume: 70, rate: 150)))
        Self.run(&harness, .chosen("speech-slower"), &spoken)
        let slower = Self.run(&harness, .chosen("speech-slower"), &spoken)
        #expect(slower.lines[1] == "Speed: 100 words a minute.")
        #expect(
            spoken.last
                == .say(text: "Speed: 100 words a minute.", language: .en, voice: SpeechVoice(volume: 70, rate: 100)))
        // Back: the screen under the settings, said in the visitor's voice; a tap too.
        let back = Self.run(&harness, .chosen("speech-back"), &spoken)
        #expect(back.kind == "idle")
        #expect(
            spoken.last
                == .say(
                    text: CheckInMachine.spokenText(of: back), language: .en, voice: SpeechVoice(volume: 70, rate: 100))
        )
        Self.run(&harness, .cardRead(.card(StationFixtures.card())), &spoken)
        guard case .say(_, _, let voice) = spoken.last else { throw CancellationError() }
        #expect(voice == SpeechVoice(volume: 70, rate: 100))
        // Left alone: the next person who asks for speech hears the venue's voice.
        harness.clock.advance(by: CheckInMachine.visitorLanguageTime + 1)
        Self.run(&harness, .tick, &spoken)
        Self.run(&harness, .speakRequested, &spoken)
        guard case .say(_, _, let next) = spoken.last else { throw CancellationError() }
        #expect(next == configuration.voice)
        #expect(harness.machine.voice == configuration.voice)
    }

    /// A visitor can make speech quieter, never silent, and louder up to full volume; the rate stays within what
    /// espeak-ng speaks.
    @Test func volumeAndSpeedStayWithinTheirBounds() {
        var voice = SpeechVoice(volume: 80, rate: 150)
        for _ in 0..<20 { voice = voice.quieter() }
        #expect(voice.volume == 10 && voice.volumeLevel == 1)
        for _ in 0..<20 { voice = voice.louder() }
        #expect(voice.volume == 100 && voice.volumeLevel == 10)
        for _ in 0..<30 { voice = voice.slower() }
        #expect(voice.rate == SpeechVoice.rates.lowerBound)
        for _ in 0..<30 { voice = voice.faster() }
        #expect(voice.rate == SpeechVoice.rates.upperBound)
        #expect(SpeechVoice(volume: 0, rate: 150).volumeLevel == 1, "a venue's silence counts as the lowest level")
        #expect(SpeechVoice(volume: 84, rate: 150).louder().volume == 90)
    }

    /// The settings wait the venue's time to answer: twenty seconds before they close they say so, with a tone, and offer more time; an
    /// open printed-code session under them waits for them, then comes back with its whole time.
    @Test func theSpeechSettingsWarnBeforeTheyCloseAndASessionUnderThemWaits() throws {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card)
        var spoken = [SpeechCue]()
        Self.run(&harness, .speakRequested, &spoken)
        Self.run(&harness, .chosen("session"), &spoken)
        let home = Self.run(&harness, .codeScanned(card.printedText), &spoken)
        #expect(home.isPrivate && home.offers("speech-settings"))
        Self.run(&harness, .chosen("speech-settings"), &spoken)
        harness.clock.advance(by: harness.machine.answerTime - CheckInMachine.timeWarning)
        let actions = harness.run(.tick)
        #expect(actions.contains(.indicate(.timeRunningOut)))
        let warned = harness.machine.screen(now: harness.now)
        #expect(warned.title == "Speech" && warned.offers("more-time"))
        #expect(warned.lines.last == "This screen closes in 20 seconds. Choose “More time” to stay.")
        Self.run(&harness, .chosen("more-time"), &spoken)
        // Longer than a session waits: the session under the settings is still open when they close.
        harness.clock.advance(by: harness.machine.answerTime - 1)
        Self.run(&harness, .tick, &spoken)
        #expect(harness.machine.screen(now: harness.now).title == "Speech")
        harness.clock.advance(by: 2)
        let under = Self.run(&harness, .tick, &spoken)
        #expect(under.isPrivate && under.title == home.title, "the session comes back")
        #expect(harness.machine.isSessionOpen)
        harness.clock.advance(by: VisitorSession.defaultInactivityLimit - VisitorSession.inactivityWarning - 1)
        Self.run(&harness, .tick, &spoken)
        #expect(harness.machine.isSessionOpen, "with its whole time")
    }
}
