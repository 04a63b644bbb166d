internal import CKioskEspeak
public import KioskCore
internal import Synchronization

/// Text to speech with espeak-ng: an utterance in one of the kiosk's languages becomes 16-bit mono samples.
///
/// espeak-ng keeps all its state in globals and is not thread-safe, so every call into it, from every synthesizer
/// of the process, goes through one lock (`EspeakEngine`). The library is not linked: it is loaded (`dlopen`) and
/// initialized on first use, and unloaded by `release()` (the speakers call it once the visitor who asked has left),
/// so an idle kiosk holds neither espeak-ng, the sound libraries it brings, nor its voice data. Its
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

    /// The sample rate espeak-ng synthesizes at (22050 Hz with its own voices); loads and initializes espeak-ng if
    /// needed.
    public static func sampleRate() throws(EspeakError) -> Int {
        try EspeakEngine.sampleRate()
    }

    /// Lets go of espeak-ng: terminates it and unloads the library (waiting for a synthesis in progress to end). The
    /// next synthesis loads it again. Returns whether it was loaded.
    @discardableResult
    public static func release() -> Bool {
        EspeakEngine.release()
    }
}

/// The one way into espeak-ng's global state: loaded and initialized on first use, then one call at a time under
/// the lock, until released.
enum EspeakEngine {
    /// The loaded library and the sample rate once espeak-ng is initialized, or why it could not be; nil until the
    /// first use and after a release.
    struct Loaded: @unchecked Sendable {
        var library: kiosk_espeak_library
        var outcome: Result<Int, EspeakError>
    }

    private static let initialized = Mutex<Loaded?>(nil)

    static func sampleRate() throws(EspeakError) -> Int {
        try initialized.withLock { state throws(EspeakError) in try initializeOnce(&state).rate }
    }

    /// Terminates and unloads espeak-ng, unless it was in the process before it was loaded here (then it stays, as
    /// it is, initialized). espeak-ng 1.51 cannot be initialized again after `espeak_ng_Terminate` in the same
    /// loaded copy (its synchronization then waits for ever), so it is terminated only when it is unloaded.
    static func release() -> Bool {
        initialized.withLock { state in
            guard var loaded = state, loaded.library.shared == 0 else { return false }
            if case .success = loaded.outcome { _ = loaded.library.terminate() }
            let gone = kiosk_espeak_unload(&loaded.library) == 0
            // Stayed in memory after all (held elsewhere): it is terminated, so it is not to be used again.
            state = gone ? nil : Loaded(library: kiosk_espeak_library(), outcome: .failure(.notReloadable))
            // What espeak-ng freed (its voice data, dictionaries) goes back to the system, not only to malloc.
            malloc_trim(0)
            return gone
        }
    }

    static func synthesize(_ text: String, voice: String, rate: Int, shouldContinue: () -> Bool)
        throws(EspeakError) -> PCMAudio
    {
        try initialized.withLock { state throws(EspeakError) -> PCMAudio in
            let (sampleRate, espeak) = try initializeOnce(&state)
            // A voice that cannot be set leaves the previous one in place: never speak in the wrong language.
            guard espeak.set_voice_by_name(voice) == ENS_OK else { throw .voiceNotFound(voice: voice) }
            let status = espeak.set_parameter(espeakRATE, Int32(rate), 0)
            guard status == ENS_OK else {
                throw .rateRefused(wordsPerMinute: rate, status: UInt32(truncatingIfNeeded: status.rawValue))
            }
            return try withoutActuallyEscaping(shouldContinue) { (shouldContinue) throws(EspeakError) -> PCMAudio in
                let collector = SampleCollector(shouldContinue: shouldContinue)
                let context = Unmanaged.passUnretained(collector).toOpaque()
                let result = withExtendedLifetime(collector) {
                    text.withCString { pointer in
                        espeak.synth(
                            pointer, text.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
                    }
                }
                let synchronized = espeak.synchronize()
                if collector.stopped { throw .cancelled }
                guard result == EE_OK else {
                    throw .synthesisFailed(status: result.rawValue, message: Self.describe(result))
                }
                guard synchronized == ENS_OK else {
                    throw .synthesisFailed(
                        status: Int32(bitPattern: UInt32(truncatingIfNeeded: synchronized.rawValue)),
                        message: Self.message(synchronized, espeak))
                }
                return PCMAudio(samples: collector.samples, sampleRate: sampleRate)
            }
        }
    }

    /// Loads and initializes espeak-ng on first use (the path of its data is its default, or `ESPEAK_DATA_PATH`);
    /// later calls return the first outcome, a failure included, until a release. A library that cannot be loaded
    /// is tried again at the next call (it may be installed meanwhile).
    private static func initializeOnce(_ state: inout Loaded?) throws(EspeakError) -> (
        rate: Int, library: kiosk_espeak_library
    ) {
        if let state { return (try state.outcome.get(), state.library) }
        var espeak = kiosk_espeak_library()
        guard kiosk_espeak_load(&espeak) == 0 else {
            let reason = kiosk_espeak_load_error().map { String(cString: $0) } ?? "libespeak-ng.so.1 not found"
            throw .initializationFailed(status: 0, message: reason)
        }
        let outcome: Result<Int, EspeakError>
        espeak.initialize_path(nil)
        let status = espeak.initialize(nil)
        if status != ENS_OK {
            outcome = .failure(
                .initializationFailed(
                    status: UInt32(truncatingIfNeeded: status.rawValue), message: message(status, espeak)))
        } else {
            let output = espeak.initialize_output(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            if output != ENS_OK {
                outcome = .failure(
                    .outputUnavailable(
                        status: UInt32(truncatingIfNeeded: output.rawValue), message: message(output, espeak)))
            } else {
                espeak.set_synth_callback(collectSamples)
                let rate = Int(espeak.get_sample_rate())
                outcome =
                    rate > 0
                    ? .success(rate)
                    : .failure(.outputUnavailable(status: 0, message: "no sample rate"))
            }
        }
        state = Loaded(library: espeak, outcome: outcome)
        return (try outcome.get(), espeak)
    }

    /// espeak-ng's own text for a status code.
    private static func message(_ status: espeak_ng_STATUS, _ espeak: kiosk_espeak_library) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        espeak.get_status_code_message(status, &buffer, buffer.count)
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
