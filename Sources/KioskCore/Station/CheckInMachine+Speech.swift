public import Foundation

/// What the kiosk should say now, decided by the station from the screen alone: speech never says what the screen
/// would not show to the same person.
public enum SpeechCue: Sendable, Equatable {
    /// Say `text` in `language` with `voice`, interrupting whatever is being said.
    case say(text: String, language: Language, voice: SpeechVoice)
    /// Stop at once (the screen changed to one that is not to be spoken, e.g. a session closed).
    case stop
}

/// What speech remembers of the screen, apart from any person: the screen last considered and its selected choice,
/// whether to say the screen again now, and whether anything may still be playing (a stop is sent only then).
struct StationSpeech: Sendable {
    /// The screen last considered, by a hash of what it says (never its words: they may be a visitor's who has left),
    /// and its selected choice.
    var lastSpoken: (identity: Int, selected: Int?)?
    var speakNow = false
    var mayBeSpeaking = false
}

/// Speech: no activation needed. Holding either button for two seconds (`.speakRequested`) says the current screen
/// and keeps speaking each new screen for that person until they leave (`VisitorContext`); a card holder who chose
/// "always speak" is spoken to from the moment their session opens. A new screen interrupts what is being said;
/// moving the selection says the selected choice; holding again repeats. A PIN's digits are never said: on a PIN
/// keypad a digit key is named by a word that is the same for every digit, and only how many digits were typed is
/// said (EN 301 549 5.1.3.9: a loudspeaker is not private).
extension CheckInMachine {
    /// How long a button is held to hear the screen.
    public static let speechHoldTime: TimeInterval = 2

    /// Whether the kiosk speaks each screen now: for the person here who asked, or a holder who chose "always speak".
    public func isSpeaking(now: Date) -> Bool {
        guard let person else { return false }
        if person.session?.view?.contents.profile.alwaysSpeak == true { return true }
        return person.speech.requested
    }

    /// What to say after the last event (the runner asks after each one and on every tick), if anything.
    public mutating func speech(now: ClockReading) -> SpeechCue? {
        // Nobody asked for speech and nothing may be playing: no screen to build (this runs after every tap).
        let speaking = isSpeaking(now: now.now)
        guard speaking || speech.mayBeSpeaking || speech.speakNow else { return nil }
        let screen = screen(now: now)
        let identity = Self.spokenIdentity(of: screen).hashValue
        let previous = speech.lastSpoken
        speech.lastSpoken = (identity, screen.selected)
        let repeatNow = speech.speakNow
        speech.speakNow = false
        guard speaking else {
            // Whatever was being said belongs to a screen that is gone (only when something was said at all).
            guard speech.mayBeSpeaking, previous.map({ $0.identity != identity }) == true else { return nil }
            speech.mayBeSpeaking = false
            return .stop
        }
        speech.mayBeSpeaking = true
        let language = screen.catalog.language
        let voice = self.voice
        let announcement = person?.speech.announcement
        person?.speech.announcement = nil
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
    public var voice: SpeechVoice { person?.speech.voice ?? configuration.voice }

    // MARK: - The visitor's volume and speed

    /// `screen` as the person being spoken to sees it: with the choice that opens the speech settings last (only
    /// while the kiosk speaks for them, and not on the settings themselves).
    func offeringSpeechSettings(_ screen: ScreenModel, now: Date) -> ScreenModel {
        guard isSpeaking(now: now), !screen.choices.isEmpty, speechSettingsDeadline(now: now) == nil else {
            return screen
        }
        var offered = screen
        offered.choices.append(StationChoice.speechSettings.choice(screen.catalog[.speechSettings]))
        return offered
    }

    /// The speech settings' deadline, while they are open (they wait `answerTime`).
    func speechSettingsDeadline(now: Date) -> Date? {
        guard let opened = person?.speech.settingsOpened, now.timeIntervalSince(opened) < answerTime else { return nil }
        return opened.addingTimeInterval(answerTime)
    }

    /// The speech settings: the volume and speed now, louder, quieter, faster, slower and back.
    func speechSettingsScreen() -> ScreenModel {
        let catalog = texts.catalog
        return ScreenModel(
            kind: "prompt", title: catalog[.speechSettingsTitle],
            lines: [volumeLine(catalog), rateLine(catalog), catalog[.speechSettingsLast]],
            choices: [
                StationChoice.speechLouder.choice(catalog[.speechLouder]),
                StationChoice.speechQuieter.choice(catalog[.speechQuieter]),
                StationChoice.speechFaster.choice(catalog[.speechFaster]),
                StationChoice.speechSlower.choice(catalog[.speechSlower]),
                StationChoice.speechBack.choice(catalog[.sessionBack]),
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

    /// A choice that belongs to speech (opening its settings, or one of them), handled whatever else is on; false
    /// for any other choice.
    mutating func chosenForSpeech(_ choice: StationChoice, now: ClockReading) -> Bool {
        guard var person else { return false }
        switch choice {
        case .speechSettings: person.speech.settingsOpened = now.now
        case .speechLouder, .speechQuieter:
            person.speech.voice = choice == .speechLouder ? voice.louder() : voice.quieter()
            person.speech.settingsOpened = now.now
        case .speechFaster, .speechSlower:
            person.speech.voice = choice == .speechFaster ? voice.faster() : voice.slower()
            person.speech.settingsOpened = now.now
        case .speechBack: person.speech.settingsOpened = nil
        case .moreTime where person.speech.settingsOpened != nil: person.speech.settingsOpened = now.now
        default: return false
        }
        // Time spent on the settings is time spent at the kiosk: an open session waits.
        person.session?.touched(now: now.now)
        self.person = person
        let announcement: String?
        switch choice {
        case .speechLouder, .speechQuieter: announcement = volumeLine(texts.catalog)
        case .speechFaster, .speechSlower: announcement = rateLine(texts.catalog)
        default: announcement = nil
        }
        if let announcement { self.person?.speech.announcement = announcement }
        return true
    }

    /// A button was held for `speechHoldTime`: say this screen now, and the next ones, for this person.
    mutating func speakRequested(now: ClockReading) {
        personActs(now: now)
        person?.speech.requested = true
        speech.speakNow = true
    }

    /// What a screen says: title, text, list, keypad, every choice, which one is selected, and how the buttons work —
    /// in reading order, one sentence per part. A PIN keypad's dots are not read and its selected digit not named.
    public static func spokenText(of screen: ScreenModel) -> String {
        var spoken = screen
        // A PIN's dots are not read out: its text already says how many digits were typed, never which.
        if spoken.keypad?.purpose == .pin { spoken.keypad?.shown = "" }
        var parts = spoken.readingOrder
        if let index = screen.selected, screen.choices.indices.contains(index) {
            parts.append(spoken.catalog.text(.speechSelected, ["choice": spokenLabel(of: screen, at: index)]))
        }
        // How to type a PIN by ear when no digit is said: the selection is back on 0 after each digit.
        if screen.keypad?.purpose == .pin { parts.append(spoken.catalog[.speechPINRule]) }
        return parts.map(sentence).joined(separator: " ")
    }

    /// The selected choice alone, with where it is among the choices; on a PIN keypad a digit key is only "a digit
    /// key", without its place (its place would tell the digit).
    public static func spokenChoice(of screen: ScreenModel, at index: Int) -> String {
        if isSecretKey(screen, at: index) { return screen.catalog[.speechPINKey] }
        return screen.catalog.text(
            .speechChoiceCount,
            ["number": String(index + 1), "count": String(screen.choices.count), "choice": screen.choices[index].label])
    }

    /// A choice's label as speech may say it.
    static func spokenLabel(of screen: ScreenModel, at index: Int) -> String {
        isSecretKey(screen, at: index) ? screen.catalog[.speechPINKey] : screen.choices[index].label
    }

    /// Whether the choice at `index` is a digit key of a PIN keypad.
    static func isSecretKey(_ screen: ScreenModel, at index: Int) -> Bool {
        guard screen.keypad?.purpose == .pin, screen.choices.indices.contains(index) else { return false }
        let id = screen.choices[index].id
        return id.hasPrefix("key:") && id.dropFirst(4).allSatisfy(\.isNumber) && id.count > 4
    }

    /// A part of the screen as a sentence (a label without a full stop gets one, so the voice pauses after it).
    static func sentence(_ part: String) -> String {
        guard let last = part.last else { return part }
        return ".!?:…".contains(last) ? part : part + "."
    }

    /// What makes a screen new for speech: everything it says except which choice is selected and the digits of
    /// its text (a countdown — "closes in 19 seconds" — is said once, not every second). A PIN keypad's dots do
    /// count: after each digit typed the screen is said again, with how many digits there are.
    static func spokenIdentity(of screen: ScreenModel) -> String {
        var copy = screen
        copy.selected = nil
        copy.lines = copy.lines.map { $0.filter { !$0.isASCII || !$0.isNumber } }
        return copy.readingOrder.joined(separator: "\u{1F}")
    }
}
