/// Something the kiosk says aloud: the text and the language it is spoken in (which picks the voice).
///
/// What is spoken may be personal (a warning, a name on a card): an utterance's text is never logged and never put
/// in an error's text.
public struct Utterance: Sendable, Equatable {
    public var text: String
    public var language: Language
    /// How loud and how fast to say it; nil: as the speaker was configured (`speech.volume`, `speech.rate`).
    public var voice: SpeechVoice?

    public init(text: String, language: Language, voice: SpeechVoice? = nil) {
        self.text = text
        self.language = language
        self.voice = voice
    }
}

/// How loud and how fast the kiosk speaks: the venue's `speech.volume` and `speech.rate`, or what the person at the
/// kiosk chose for themselves (louder, quieter, faster, slower) until they leave it.
public struct SpeechVoice: Sendable, Equatable, Codable {
    /// Percent of full loudness (0–100, linear in amplitude); 0 is silent.
    public var volume: Int
    /// Words per minute (`rates`).
    public var rate: Int

    /// The rates espeak-ng accepts (`espeakRATE_MINIMUM` … `espeakRATE_MAXIMUM`).
    public static let rates = 80...450
    /// The levels a visitor hears: "Volume 7 of 10" (each level 10 %; a visitor cannot go below the first, so
    /// speech they asked for never falls silent).
    public static let volumeLevels = 1...10
    /// How much one "Faster" or "Slower" changes the rate, in words per minute.
    public static let rateStep = 25

    public init(volume: Int, rate: Int) {
        self.volume = min(max(volume, 0), 100)
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
    }

    /// The volume as a level of `volumeLevels` (rounded; a venue's 0 counts as the lowest level).
    public var volumeLevel: Int {
        min(max(Int((Double(volume) / 10).rounded()), Self.volumeLevels.lowerBound), Self.volumeLevels.upperBound)
    }

    /// One level louder (at most the loudest).
    public func louder() -> SpeechVoice { atLevel(volumeLevel + 1) }
    /// One level quieter (at least the first level: never silent).
    public func quieter() -> SpeechVoice { atLevel(volumeLevel - 1) }
    /// `rateStep` words a minute faster (at most espeak-ng's fastest).
    public func faster() -> SpeechVoice { SpeechVoice(volume: volume, rate: rate + Self.rateStep) }
    /// `rateStep` words a minute slower (at least espeak-ng's slowest).
    public func slower() -> SpeechVoice { SpeechVoice(volume: volume, rate: rate - Self.rateStep) }

    private func atLevel(_ level: Int) -> SpeechVoice {
        let level = min(max(level, Self.volumeLevels.lowerBound), Self.volumeLevels.upperBound)
        return SpeechVoice(volume: level * 10, rate: rate)
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
