/// A failure of the NFC reader or of libnfc. Carries no UID, card content or password.
public struct NFCError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// libnfc `NFC_EIO`: the serial line or bus failed.
        case io
        /// libnfc `NFC_EINVARG`.
        case invalidArgument
        /// libnfc `NFC_EDEVNOTSUPP`: the reader cannot do this.
        case notSupported
        /// libnfc `NFC_ENOTSUCHDEV`, or `nfc_open` found no reader at the connection string.
        case noSuchDevice
        /// libnfc `NFC_EOVFLOW`.
        case overflow
        /// libnfc `NFC_ETIMEOUT`: the reader did not answer in time.
        case timeout
        /// libnfc `NFC_EOPABORTED`: the command was aborted (shutdown).
        case aborted
        /// libnfc `NFC_ENOTIMPL`.
        case notImplemented
        /// libnfc `NFC_ETGRELEASED`: the card left.
        case targetReleased
        /// libnfc `NFC_ERFTRANS`: the card did not answer (usually: taken away).
        case radioTransmission
        /// libnfc `NFC_EMFCAUTHFAIL`: the card refused the command (NAK).
        case refused
        /// libnfc `NFC_ESOFT`.
        case software
        /// libnfc `NFC_ECHIP`: the reader chip reported an internal error.
        case chip
        /// Another libnfc code.
        case other(Int32)
        /// Another process holds the reader's port.
        case portBusy
        /// The port cannot be opened (errno).
        case portUnavailable(Int32)
        /// `nfc_init` failed (libnfc could not start).
        case libraryUnavailable
        /// The connection string is not `driver:port…`.
        case invalidConnectionString
        /// The card answered with something an NTAG21x does not say.
        case unexpectedAnswer
        /// The reader was stopped.
        case stopped
    }

    public let code: Code

    public init(code: Code) { self.code = code }

    /// The error for a negative libnfc return value.
    public init(libnfc value: Int32) {
        switch value {
        case -1: code = .io
        case -2: code = .invalidArgument
        case -3: code = .notSupported
        case -4: code = .noSuchDevice
        case -5: code = .overflow
        case -6: code = .timeout
        case -7: code = .aborted
        case -8: code = .notImplemented
        case -10: code = .targetReleased
        case -20: code = .radioTransmission
        case -30: code = .refused
        case -80: code = .software
        case -90: code = .chip
        default: code = .other(value)
        }
    }

    /// Whether the card (not the reader) is the cause: it left or did not answer.
    public var isCardGone: Bool { code == .radioTransmission || code == .targetReleased || code == .timeout }

    public var description: String {
        switch code {
        case .io: "the NFC reader's connection failed (check the cable and the serial port setting)"
        case .invalidArgument: "libnfc rejected a request (invalid argument)"
        case .notSupported: "the NFC reader does not support this operation"
        case .noSuchDevice:
            "no NFC reader answers at the configured port (check the connection string, wiring and power)"
        case .overflow: "the NFC reader sent more data than expected"
        case .timeout: "the NFC reader did not answer in time"
        case .aborted: "the NFC operation was stopped"
        case .notImplemented: "libnfc does not implement this operation for this reader"
        case .targetReleased: "the card left the reader"
        case .radioTransmission: "the card did not answer (held too briefly or taken away)"
        case .refused: "the card refused the command"
        case .software: "libnfc reported an internal error"
        case .chip: "the NFC reader chip reported an error"
        case .other(let value): "libnfc error \(value)"
        case .portBusy: "the NFC reader's port is in use by another program (stop it, e.g. another kiosk instance)"
        case .portUnavailable(let code):
            "the NFC reader's port cannot be opened (errno \(code); check the device path and permissions)"
        case .libraryUnavailable: "libnfc could not start"
        case .invalidConnectionString: "the NFC connection string must look like pn532_uart:/dev/ttyS0"
        case .unexpectedAnswer: "the card gave an answer an NTAG21x card does not give"
        case .stopped: "the NFC reader was stopped"
        }
    }
}
