public import Foundation

/// What the kiosk should say now, decided by the station from the screen alone: speech never says what the screen
/// would not show to the same person.
public enum SpeechCue: Sendable, Equatable {
    /// Say `text` in `language` with `voice`, interrupting whatever is being said.
    case say(text: String, language: Language, voice: SpeechVoice)
    /// Stop at once (the screen changed to one that is not to be spoken, e.g. a session closed).
    case stop
}

/// Speech: no activation needed. Holding either button for two seconds (`.speakRequested`) says the current screen
/// and keeps speaking each new screen for the person at the kiosk until it has been left alone for
/// `visitorLanguageTime`; a card holder who chose "always speak" is spoken to from the moment their session opens.
/// A new screen interrupts what is being said; moving the selection says the selected choice; holding again repeats.
extension CheckInMachine {
    /// How long a button is held to hear the screen.
    public static let speechHoldTime: TimeInterval = 2

    /// Whether the kiosk speaks each screen now (for the person who asked, or a holder who chose "always speak").
    public func isSpeaking(now: Date) -> Bool {
        if session?.view?.contents.profile.alwaysSpeak == true { return true }
        guard let since = speechRequested else { return false }
        return now.timeIntervalSince(since) < Self.visitorLanguageTime
    }

    /// What to say after the last event (the runner asks after each one and on every tick), if anything.
    public mutating func speech(now: ClockReading) -> SpeechCue? {
        // Nobody asked for speech and nothing may be playing: no screen to build (this runs after every tap).
        let speaking = isSpeaking(now: now.now)
        guard speaking || mayBeSpeaking || speakNow else { return nil }
        let screen = screen(now: now)
        let identity = Self.spokenIdentity(of: screen)
        let previous = lastSpoken
        lastSpoken = (identity, screen.selected)
        let repeatNow = speakNow
        speakNow = false
        guard speaking else {
            // Whatever was being said belongs to a screen that is gone (only when something was said at all).
            guard mayBeSpeaking, previous.map({ $0.identity != identity }) == true else { return nil }
            mayBeSpeaking = false
            return .stop
        }
        mayBeSpeaking = true
        let language = screen.catalog.language
        let voice = self.voice
        let announcement = speechAnnouncement
        speechAnnouncement = nil
        if repeatNow || previous?.identity != identity {
            return .say(text: Self.spokenText(of: screen), language: language, voice: voice)
        }
        if let announcement {
            return .say(text: announcement, language: language, voice: voice)
        }
        if previous?.selected != screen.selected, let index = screen.selected, screen.choices.indices.contains(index) {
            return .say(text: Self.spokenChoice(of: screen, at: index), language: language, voice: voice)
        }
        return nil
    }

    /// The voice the kiosk speaks with now: the one the person at the kiosk chose, else the venue's.
    public var voice: SpeechVoice { visitorVoice ?? configuration.voice }

    // MARK: - The visitor's volume and speed

    /// The choice every spoken screen with choices ends with: it opens the speech settings.
    static let speechSettingsChoice = "speech-settings"

    /// `screen` as the person being spoken to sees it: with the choice that opens the speech settings last (only
    /// while the kiosk speaks for them, and not on the settings themselves).
    func offeringSpeechSettings(_ screen: ScreenModel, now: Date) -> ScreenModel {
        guard isSpeaking(now: now), !screen.choices.isEmpty, speechSettingsDeadline(now: now) == nil else {
            return screen
        }
        var offered = screen
        offered.choices.append(.init(id: Self.speechSettingsChoice, label: screen.catalog[.speechSettings]))
        return offered
    }

    /// The speech settings' deadline, while they are open (they wait `answerTime`).
    func speechSettingsDeadline(now: Date) -> Date? {
        guard let opened = speechSettingsOpened, now.timeIntervalSince(opened) < answerTime else { return nil }
        return opened.addingTimeInterval(answerTime)
    }

    /// The speech settings: the volume and speed now, louder, quieter, faster, slower and back.
    func speechSettingsScreen() -> ScreenModel {
        let catalog = texts.catalog
        return ScreenModel(
            kind: "prompt", title: catalog[.speechSettingsTitle],
            lines: [volumeLine(catalog), rateLine(catalog), catalog[.speechSettingsLast]],
            choices: [
                .init(id: "speech-louder", label: catalog[.speechLouder]),
                .init(id: "speech-quieter", label: catalog[.speechQuieter]),
                .init(id: "speech-faster", label: catalog[.speechFaster]),
                .init(id: "speech-slower", label: catalog[.speechSlower]),
                .init(id: "speech-back", label: catalog[.sessionBack]),
            ], language: language.rawValue, buttonHint: texts.buttonHint)
    }

    private func volumeLine(_ catalog: Catalog) -> String {
        catalog.text(
            .speechVolumeLevel,
            ["level": String(voice.volumeLevel), "levels": String(SpeechVoice.volumeLevels.upperBound)])
    }

    private func rateLine(_ catalog: Catalog) -> String {
        catalog.text(.speechRateLevel, ["words": String(voice.rate)])
    }

    /// A choice that belongs to speech (opening its settings, or one of them), handled whatever else is on; nil
    /// for any other choice.
    mutating func chosenForSpeech(_ id: String, now: ClockReading) -> [StationAction]? {
        switch id {
        case Self.speechSettingsChoice: speechSettingsOpened = now.now
        case "speech-louder", "speech-quieter":
            visitorVoice = id == "speech-louder" ? voice.louder() : voice.quieter()
            speechSettingsOpened = now.now
            speechAnnouncement = volumeLine(texts.catalog)
        case "speech-faster", "speech-slower":
            visitorVoice = id == "speech-faster" ? voice.faster() : voice.slower()
            speechSettingsOpened = now.now
            speechAnnouncement = rateLine(texts.catalog)
        case "speech-back": speechSettingsOpened = nil
        case "more-time" where speechSettingsOpened != nil: speechSettingsOpened = now.now
        default: return nil
        }
        // Time spent on the settings is time spent at the kiosk: an open session waits.
        session?.touched(now: now.now)
        return []
    }

    /// A button was held for `speechHoldTime`: say this screen now, and the next ones.
    mutating func speakRequested(now: ClockReading) {
        speechRequested = now.now
        speakNow = true
    }

    /// What a screen says: title, text, list, keypad, every choice, which one is selected, and how the buttons work —
    /// in reading order, one sentence per part.
    public static func spokenText(of screen: ScreenModel) -> String {
        var spoken = screen
        // A PIN's dots are not read out: its text already says how many digits were typed, never which.
        if spoken.keypad?.purpose == .pin { spoken.keypad?.shown = "" }
        var parts = spoken.readingOrder
        if let index = screen.selected, screen.choices.indices.contains(index) {
            parts.append(spoken.catalog.text(.speechSelected, ["choice": screen.choices[index].label]))
        }
        return parts.map(sentence).joined(separator: " ")
    }

    /// The selected choice alone, with where it is among the choices.
    public static func spokenChoice(of screen: ScreenModel, at index: Int) -> String {
        return screen.catalog.text(
            .speechChoiceCount,
            ["number": String(index + 1), "count": String(screen.choices.count), "choice": screen.choices[index].label])
    }

    /// A part of the screen as a sentence (a label without a full stop gets one, so the voice pauses after it).
    static func sentence(_ part: String) -> String {
        guard let last = part.last else { return part }
        return ".!?:…".contains(last) ? part : part + "."
    }

    /// What makes a screen new for speech: everything it says except which choice is selected and the digits of
    /// its text (a countdown — "closes in 19 seconds" — is said once, not every second).
    static func spokenIdentity(of screen: ScreenModel) -> String {
        var copy = screen
        copy.selected = nil
        copy.lines = copy.lines.map { $0.filter { !$0.isASCII || !$0.isNumber } }
        return copy.readingOrder.joined(separator: "\u{1F}")
    }
}
