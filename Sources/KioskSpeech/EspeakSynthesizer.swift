internal import CKioskEspeak
public import KioskCore
internal import Synchronization

/// Text to speech with espeak-ng: an utterance in one of the kiosk's languages becomes 16-bit mono samples.
///
/// espeak-ng keeps all its state in globals and is not thread-safe, so every call into it, from every synthesizer
/// of the process, goes through one lock (`EspeakEngine`), and the library is initialized once, on first use. Its
/// synchronous output mode is used: `espeak_Synth` makes the samples on the calling thread and hands them to a
/// callback, nothing is played by espeak-ng itself. Synthesis blocks for a few milliseconds to a few tens of
/// milliseconds a sentence (more on a Raspberry Pi): call it off Swift's cooperative pool.
///
/// The corresponding C functions are `espeak_ng_InitializePath`, `espeak_ng_Initialize`,
/// `espeak_ng_InitializeOutput` (`ENOUTPUT_MODE_SYNCHRONOUS`), `espeak_SetSynthCallback`,
/// `espeak_ng_SetVoiceByName`, `espeak_ng_SetParameter` (`espeakRATE`), `espeak_Synth` (`espeakCHARS_UTF8`: the text
/// is plain UTF-8, never SSML markup) and `espeak_ng_Synchronize`.
public struct EspeakSynthesizer: Sendable {
    /// The speaking rate, in words per minute: slower than espeak-ng's 175, for older listeners.
    public static let defaultRate = StationConfiguration.default.voice.rate
    /// The rates espeak-ng accepts (`espeakRATE_MINIMUM` … `espeakRATE_MAXIMUM`).
    public static let rates = SpeechVoice.rates
    /// The longest text one utterance may have, in UTF-8 bytes (about five minutes of speech at the default rate):
    /// bounds the memory its samples take.
    public static let maximumTextBytes = 4096

    /// Words per minute, within `rates`.
    public let rate: Int

    /// A synthesizer speaking at `rate` words per minute (clamped to `rates`).
    public init(rate: Int = EspeakSynthesizer.defaultRate) {
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
    }

    /// The espeak-ng voice a language is spoken with: the voice files `gmw/en` (British English), `gmw/de`,
    /// `roa/fr` (French of France) and `roa/it` of espeak-ng-data, named as `espeak_ng_SetVoiceByName` knows them.
    public static func voice(for language: Language) -> String {
        switch language {
        case .en: "en"
        case .de: "de"
        case .fr: "fr"
        case .it: "it"
        }
    }

    /// The samples of `text` spoken in `language`. `shouldContinue` is asked after each block of samples (about
    /// 50 ms of speech); when it answers false, synthesis stops and `.cancelled` is thrown. Blocks the calling
    /// thread, and waits for any other synthesis in the process to finish first.
    public func synthesize(_ text: String, language: Language, shouldContinue: () -> Bool = { true })
        throws(EspeakError) -> PCMAudio
    {
        let bytes = text.utf8.count
        guard bytes <= Self.maximumTextBytes else {
            throw .textTooLong(bytes: bytes, limit: Self.maximumTextBytes)
        }
        return try EspeakEngine.synthesize(
            text, voice: Self.voice(for: language), rate: rate, shouldContinue: shouldContinue)
    }

    /// `synthesize(_:language:shouldContinue:)` for an utterance, at its voice's rate when it has a voice.
    public func synthesize(_ utterance: Utterance, shouldContinue: () -> Bool = { true }) throws(EspeakError)
        -> PCMAudio
    {
        guard let wanted = utterance.voice?.rate, wanted != rate else {
            return try synthesize(utterance.text, language: utterance.language, shouldContinue: shouldContinue)
        }
        // The rate this utterance asks for (a visitor chose "Faster" or "Slower").
        return try EspeakSynthesizer(rate: wanted).synthesize(
            utterance.text, language: utterance.language, shouldContinue: shouldContinue)
    }

    /// The sample rate espeak-ng synthesizes at (22050 Hz with its own voices); initializes espeak-ng if needed.
    public static func sampleRate() throws(EspeakError) -> Int {
        try EspeakEngine.sampleRate()
    }
}

/// The one way into espeak-ng's global state: initialized once, then one call at a time under the lock.
enum EspeakEngine {
    /// The sample rate once espeak-ng is initialized, or why it could not be; nil until the first use.
    private static let initialized = Mutex<Result<Int, EspeakError>?>(nil)

    static func sampleRate() throws(EspeakError) -> Int {
        try initialized.withLock { state throws(EspeakError) in try initializeOnce(&state) }
    }

    static func synthesize(_ text: String, voice: String, rate: Int, shouldContinue: () -> Bool)
        throws(EspeakError) -> PCMAudio
    {
        try initialized.withLock { state throws(EspeakError) -> PCMAudio in
            let sampleRate = try initializeOnce(&state)
            // A voice that cannot be set leaves the previous one in place: never speak in the wrong language.
            guard espeak_ng_SetVoiceByName(voice) == ENS_OK else { throw .voiceNotFound(voice: voice) }
            let status = espeak_ng_SetParameter(espeakRATE, Int32(rate), 0)
            guard status == ENS_OK else {
                throw .rateRefused(wordsPerMinute: rate, status: UInt32(truncatingIfNeeded: status.rawValue))
            }
            return try withoutActuallyEscaping(shouldContinue) { (shouldContinue) throws(EspeakError) -> PCMAudio in
                let collector = SampleCollector(shouldContinue: shouldContinue)
                let context = Unmanaged.passUnretained(collector).toOpaque()
                let result = withExtendedLifetime(collector) {
                    text.withCString { pointer in
                        espeak_Synth(
                            pointer, text.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
                    }
                }
                let synchronized = espeak_ng_Synchronize()
                if collector.stopped { throw .cancelled }
                guard result == EE_OK else {
                    throw .synthesisFailed(status: result.rawValue, message: Self.describe(result))
                }
                guard synchronized == ENS_OK else {
                    throw .synthesisFailed(
                        status: Int32(bitPattern: UInt32(truncatingIfNeeded: synchronized.rawValue)),
                        message: Self.message(synchronized))
                }
                return PCMAudio(samples: collector.samples, sampleRate: sampleRate)
            }
        }
    }

    /// Initializes espeak-ng on first use (the path of its data is its default, or `ESPEAK_DATA_PATH`); later
    /// calls return the first outcome, a failure included.
    private static func initializeOnce(_ state: inout Result<Int, EspeakError>?) throws(EspeakError) -> Int {
        if let state { return try state.get() }
        let outcome: Result<Int, EspeakError>
        espeak_ng_InitializePath(nil)
        let status = espeak_ng_Initialize(nil)
        if status != ENS_OK {
            outcome = .failure(
                .initializationFailed(status: UInt32(truncatingIfNeeded: status.rawValue), message: message(status)))
        } else {
            let output = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            if output != ENS_OK {
                outcome = .failure(
                    .outputUnavailable(status: UInt32(truncatingIfNeeded: output.rawValue), message: message(output)))
            } else {
                espeak_SetSynthCallback(collectSamples)
                let rate = Int(espeak_ng_GetSampleRate())
                outcome =
                    rate > 0
                    ? .success(rate)
                    : .failure(.outputUnavailable(status: 0, message: "no sample rate"))
            }
        }
        state = outcome
        return try outcome.get()
    }

    /// espeak-ng's own text for a status code.
    private static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func describe(_ error: espeak_ERROR) -> String {
        switch error {
        case EE_BUFFER_FULL: "its buffer is full"
        case EE_NOT_FOUND: "not found"
        default: "internal error"
        }
    }
}

/// What the synthesis callback fills: the samples so far, and whether the caller asked to stop. Touched only by the
/// thread inside `espeak_Synth` (which holds the engine's lock).
private final class SampleCollector {
    var samples: [Int16] = []
    var stopped = false
    let shouldContinue: () -> Bool

    init(shouldContinue: @escaping () -> Bool) {
        self.shouldContinue = shouldContinue
    }
}

/// espeak-ng's synthesis callback (`t_espeak_callback`): appends the block's samples to the collector named by the
/// events' `user_data` (every event of the list carries it, the terminating one included). Returns 1 to abort.
private func collectSamples(
    _ wave: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let context = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<SampleCollector>.fromOpaque(context).takeUnretainedValue()
    if let wave, count > 0 {
        collector.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count)))
    }
    guard collector.shouldContinue() else {
        collector.stopped = true
        return 1
    }
    return 0
}
