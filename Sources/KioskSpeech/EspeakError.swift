/// Why espeak-ng produced no speech. The description says what a field worker can do about it; it never contains
/// the text that was to be spoken (it may be personal).
public enum EspeakError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `espeak_ng_Initialize` failed: most often its data (`espeak-ng-data`, which comes with the `libespeak-ng1`
    /// package) is missing. `status` is the `espeak_ng_STATUS` code, `message` espeak-ng's own text for it.
    case initializationFailed(status: UInt32, message: String)
    /// `espeak_ng_InitializeOutput` refused the synchronous mode (the library is broken or incompatible).
    case outputUnavailable(status: UInt32, message: String)
    /// `espeak_ng_SetVoiceByName` knows no voice of this name (espeak-ng-data is incomplete).
    case voiceNotFound(voice: String)
    /// `espeak_ng_SetParameter` refused the speaking rate.
    case rateRefused(wordsPerMinute: Int, status: UInt32)
    /// `espeak_Synth` (or `espeak_ng_Synchronize`) failed.
    case synthesisFailed(status: Int32, message: String)
    /// The text is longer than one utterance may be (`EspeakSynthesizer.maximumTextBytes` UTF-8 bytes).
    case textTooLong(bytes: Int, limit: Int)
    /// The caller asked to stop (a newer utterance, or `stop()`) while the samples were being made.
    case cancelled
    /// espeak-ng was let go of but stayed in memory (something else in the process holds it): terminated, it cannot
    /// start again until the kiosk restarts.
    case notReloadable

    public var description: String {
        switch self {
        case .initializationFailed(let status, let message):
            "espeak-ng cannot start (status 0x\(String(status, radix: 16))): \(message); its voices come with the"
                + " libespeak-ng1 package (espeak-ng-data): reinstall it"
        case .outputUnavailable(let status, let message):
            "espeak-ng refused synchronous output (status 0x\(String(status, radix: 16))): \(message)"
        case .voiceNotFound(let voice):
            "espeak-ng has no voice '\(voice)' (`espeak-ng --voices` lists them; reinstall espeak-ng-data)"
        case .rateRefused(let wordsPerMinute, let status):
            "espeak-ng refused the speaking rate \(wordsPerMinute) words per minute (status 0x\(String(status, radix: 16)))"
        case .synthesisFailed(let status, let message):
            "espeak-ng could not synthesize the utterance (status \(status)): \(message)"
        case .textTooLong(let bytes, let limit):
            "the utterance is \(bytes) bytes long, more than the \(limit) one utterance may have"
        case .cancelled:
            "the utterance was cancelled while it was being synthesized"
        case .notReloadable:
            "espeak-ng stayed in memory after it was let go of and cannot start again: restart the kiosk"
        }
    }
}
