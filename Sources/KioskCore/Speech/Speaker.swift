/// Something the kiosk says aloud: the text and the language it is spoken in (which picks the voice).
///
/// What is spoken may be personal (a warning, a name on a card): an utterance's text is never logged and never put
/// in an error's text.
public struct Utterance: Sendable, Equatable {
    public var text: String
    public var language: Language

    public init(text: String, language: Language) {
        self.text = text
        self.language = language
    }
}

/// The kiosk's voice: says one utterance at a time, a newer one cutting the older short.
///
/// Neither call waits for the sound: an implementation hands the work to a thread or queue of its own and returns
/// at once, so the station never waits on speech, and a kiosk without a sound device goes on without it.
public protocol Speaker: Sendable {
    /// Starts saying `utterance`, interrupting whatever is being said.
    func say(_ utterance: Utterance)
    /// Stops at once.
    func stop()
}
