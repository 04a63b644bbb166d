public import Foundation

/// Everything that belongs to the person in front of the kiosk: what they are doing (waiting for their card after
/// “My check-ins”, choosing a language, their session and the PIN being typed in it), the language they chose,
/// speech they asked for and their own volume and speed, the choice the buttons are on, and the card they showed.
///
/// One value, created when a person starts (their first choice, button, held button or card) and dropped whole when
/// they leave: their card leaves the reader, “Done”, a deadline, another card. Nothing outside it carries a
/// person's choice, so nothing of theirs can reach the next person. A card's remembered profile comes into it only
/// from that card: its language at its tap (unless the person chose one now) and when its session opens, “always
/// speak” when its session opens.
struct VisitorContext: Sendable {
    /// What the person is doing.
    enum Activity: Sendable {
        /// Looking at the idle screen or a message (after a tap, say).
        case browsing
        /// “My check-ins” was chosen: the next card (or printed card code) opens its session instead of tapping.
        case awaitingCard(until: Date)
        /// The languages are offered, until one is chosen or the time runs out.
        case choosingLanguage(until: Date)
        /// Their session is open.
        case session(VisitorSession)
    }

    var activity: Activity = .browsing
    /// The language they chose on the idle screen (their session's own language comes from their card).
    var language: Language?
    /// Whether `language` is this person's own choice: the one they made, or the one of the person who stood at the
    /// kiosk when a card was enrolled for them. A language carried over from an earlier holder at a kiosk staff is
    /// using (`successor(now:keepingChoice:)`) is shown, but it is not theirs, and it is not saved with their card.
    var languageIsTheirs = false
    /// Speech they asked for (a held button), their voice, and the speech settings while open.
    var speech = PersonalSpeech()
    /// Which choice the buttons would choose, on the screen it was made on.
    var selection: Selection?
    /// A fingerprint of the card this person showed first: another card is another person.
    var cardFingerprint: [UInt8]?
    /// The visitor card they tapped, while it lies on the reader: its session can be offered without another tap.
    var cardOnReader: VisitorCard?
    /// What their session asked the runner last.
    var pendingRequest: VisitorSession.Request?
    /// Their last action.
    var lastActivity: Date

    init(now: Date) { lastActivity = now }

    /// The open session, if any.
    var session: VisitorSession? {
        get {
            if case .session(let open) = activity { return open }
            return nil
        }
        set {
            if let newValue { activity = .session(newValue) } else if case .session = activity { activity = .browsing }
        }
    }

    /// The context of the next person at a kiosk a staff member is using (a new card's holder answering its
    /// questions beside them, or staff again after): the language stays, nothing else. `keepingChoice`: the next
    /// person is the one who stood at the kiosk (a card was just enrolled for them), so a language they chose is
    /// still theirs; otherwise it is only shown.
    func successor(now: Date, keepingChoice: Bool) -> VisitorContext {
        var next = VisitorContext(now: now)
        next.language = language
        next.languageIsTheirs = keepingChoice && languageIsTheirs
        return next
    }

    /// Wipes every secret the person left (their card on the reader, their session's card).
    mutating func wipe(using crypto: some CryptoProvider) {
        cardOnReader?.wipe(using: crypto)
        cardOnReader = nil
        pendingRequest = nil
        if case .session(var open) = activity {
            open.wipe(using: crypto)
            activity = .browsing
        }
    }
}

/// The choice the buttons are on, for the screen it was made on (`ScreenModel` identity).
struct Selection: Sendable, Equatable {
    var screen: String
    var index: Int?
}

/// Speech that belongs to one person: whether they asked for it, the voice they set, the settings screen while open,
/// and a short sentence to say next (the new volume or speed).
struct PersonalSpeech: Sendable, Equatable {
    /// A button was held: the kiosk speaks every screen for this person until they leave.
    var requested = false
    /// The voice they chose (louder, quieter, faster, slower); nil for the venue's.
    var voice: SpeechVoice?
    /// The speech settings were opened (or last used), and when.
    var settingsOpened: Date?
    /// Said next instead of the whole screen.
    var announcement: String?
}
