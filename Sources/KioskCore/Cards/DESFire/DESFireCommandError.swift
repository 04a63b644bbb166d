/// Why a `DESFireClient` command failed. Carries no data, key, random number or UID: only which step failed and,
/// for the card's refusals, the status it named.
///
/// After any of them the client has dropped its session (the secure channel is closed and its key wiped): the card
/// has dropped its authentication too, or must be treated as if it had.
public enum DESFireCommandError: Error, Equatable, Sendable {
    /// The card answered with a DESFire status other than 00 or AF.
    case status(DESFireStatus)
    /// The card answered with an ISO/IEC 7816-4 status word that is not DESFire's 91 xx (not a DESFire card, or a
    /// command it does not know in ISO wrapping).
    case unexpectedStatusWord(UInt8, UInt8)
    /// The APDU or its answer was lost: the card left the field, the reader failed or the exchange was aborted.
    case transport(DESFireTransportError)
    /// Authentication or secure messaging failed: a wrong key, a CMAC or CRC that does not verify.
    case secureMessaging(DESFireError)
    /// The card's answer does not have the form the command expects (named).
    case malformedResponse(String)
    /// The command needs an authenticated session and there is none.
    case notAuthenticated
    /// An argument is out of the command's range (named).
    case invalidArgument(String)

    /// Whether the card has gone: taken away, or not answering.
    public var isCardGone: Bool { self == .transport(DESFireTransportError(.cardGone)) }
}

extension DESFireCommandError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .status(let status): "DESFire: the card refused the command: \(status)"
        case .unexpectedStatusWord(let sw1, let sw2):
            "DESFire: the card answered with status word \(DESFireStatus.hex(sw1))\(DESFireStatus.hex(sw2))"
        case .transport(let error): error.description
        case .secureMessaging(let error): error.description
        case .malformedResponse(let what): "DESFire: malformed answer to \(what)"
        case .notAuthenticated: "DESFire: the command needs an authenticated session"
        case .invalidArgument(let what): "DESFire: invalid argument: \(what)"
        }
    }
}
