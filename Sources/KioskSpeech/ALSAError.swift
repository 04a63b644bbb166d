/// An alsa-lib call failed. Carries the step, the device name and alsa-lib's error code (a negative `errno`, or one
/// of alsa-lib's own codes); the description says what a field worker can do about it. Nothing of what was being
/// said is in it.
public struct ALSAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which step failed.
    public enum Operation: String, Sendable {
        /// Loading alsa-lib itself (`libasound.so.2`).
        case load
        /// `snd_pcm_open`.
        case open
        /// `snd_pcm_set_params`: the device does not take the format, rate or channel count.
        case setParameters
        /// `snd_pcm_writei`, after `snd_pcm_recover` could not recover.
        case write
    }

    public let operation: Operation
    /// The ALSA device name (`default`, `plughw:1,0`, `null`).
    public let device: String
    /// alsa-lib's return value: a negative `errno` (`-ENOENT`) or an alsa-lib code.
    public let code: Int32
    /// alsa-lib's text for `code` (`snd_strerror`).
    public let message: String

    public init(_ operation: Operation, device: String, code: Int32, message: String) {
        self.operation = operation
        self.device = device
        self.code = code
        self.message = message
    }

    /// `-ENOENT`: alsa-lib's answer both to a name it does not know and to a card that is not there.
    static let noSuchDevice: Int32 = -2
    static let permissionDenied: Int32 = -13
    static let busy: Int32 = -16
    static let invalidArgument: Int32 = -22
    static let noDevice: Int32 = -19

    public var description: String {
        switch (operation, code) {
        case (.load, _):
            "the sound library could not be loaded (\(message)): install libasound2 (board/install.sh does)"
        case (.open, Self.noSuchDevice):
            "no sound device '\(device)': ALSA knows no device of that name, or its card is not present, so the kiosk"
                + " runs without speech (`aplay -L` lists the devices; check speech.device in the configuration)"
        case (.open, Self.permissionDenied):
            "no permission to open the sound device '\(device)': the kiosk's user needs the 'audio' group"
                + " (board/install.sh adds it) and the unit's DeviceAllow=char-alsa"
        case (.open, Self.busy):
            "the sound device '\(device)' is in use by another program"
        case (.setParameters, Self.invalidArgument):
            "the sound device '\(device)' does not take 16-bit mono sound at this rate: name it through the plug"
                + " layer (plughw:1,0 rather than hw:1,0), which converts"
        case (.write, Self.noDevice):
            "the sound device '\(device)' went away while playing (unplugged?)"
        default:
            "sound \(operation.rawValue) failed on '\(device)': \(message) (\(code))"
        }
    }
}
