/// Why a PKCS #11 step failed. A failed call carries the function's name and the token's `CKR_…` answer; nothing
/// secret is ever in it (no PIN, no key value, no data that was being MACed): only labels, paths and codes.
public enum PKCS11Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// The module could not be loaded (`dlopen`), or it has no `C_GetFunctionList`.
    case moduleNotLoadable(path: String, reason: String)
    /// A PKCS #11 function (`C_Login`, `C_SignInit`, …) answered something other than `CKR_OK`.
    case failed(function: String, code: PKCS11ReturnCode)
    /// No token with this label is present; `present` lists the labels of the tokens that are.
    case tokenNotFound(label: String, present: [String])
    /// More than one token carries this label.
    case tokenAmbiguous(label: String, count: Int)
    /// No secret key with this label on the token (or it is private and the session is not logged in).
    case keyNotFound(label: String)
    /// More than one secret key carries this label.
    case keyAmbiguous(label: String, count: Int)
    /// The key is there but is not one the kiosk may use: not AES-128, not sensitive, extractable when it must not
    /// be, or not allowed the operation asked for.
    case keyNotUsable(label: String, reason: String)
    /// The token handed out the value of a key that was to be unreadable.
    case keyValueReadable(label: String)
    /// The PIN file could not be read (`errno`), or holds no PIN.
    case pinUnreadable(path: String, errno: Int32)
    /// The PIN file is empty or longer than a PIN may be.
    case pinInvalid(path: String, reason: String)
    /// An argument the kiosk passed is out of range (a derivation input of the wrong length, …).
    case invalidArgument(String)
    /// The module was closed (`C_Finalize`) or the session was closed before this call.
    case closed

    /// The token's answer, for a failed call.
    public var code: PKCS11ReturnCode? {
        if case .failed(_, let code) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .moduleNotLoadable(let path, let reason):
            "the PKCS #11 module \(path) could not be loaded (\(reason)): install it (SoftHSM2: softhsm2;"
                + " a TPM: libtpm2-pkcs11-1; a USB HSM: opensc-pkcs11) or correct the module path"
        case .failed("C_Login", .pinIncorrect):
            "the token refused the PIN (C_Login: CKR_PIN_INCORRECT): check the PIN credential; the token locks"
                + " after a few wrong PINs"
        case .failed("C_Login", .pinLocked):
            "the token is locked after too many wrong PINs (C_Login: CKR_PIN_LOCKED): its security officer must"
                + " unlock it"
        case .failed(let function, let code):
            "\(function) failed: \(code.name)"
        case .tokenNotFound(let label, let present):
            "no PKCS #11 token labelled '\(label)'"
                + (present.isEmpty
                    ? " (no token is present)" : " (present: \(present.map { "'\($0)'" }.joined(separator: ", ")))")
        case .tokenAmbiguous(let label, let count):
            "\(count) PKCS #11 tokens are labelled '\(label)': a label must name one token"
        case .keyNotFound(let label):
            "no secret key labelled '\(label)' on the token"
        case .keyAmbiguous(let label, let count):
            "\(count) secret keys are labelled '\(label)' on the token: a label must name one key"
        case .keyNotUsable(let label, let reason):
            "the key '\(label)' cannot be used: \(reason)"
        case .keyValueReadable(let label):
            "the token gave out the value of the key '\(label)', which must never leave it"
        case .pinUnreadable(let path, let errno):
            "the PIN file \(path) cannot be read (errno \(errno))"
        case .pinInvalid(let path, let reason):
            "the PIN file \(path) \(reason)"
        case .invalidArgument(let reason):
            reason
        case .closed:
            "the PKCS #11 session or module is closed"
        }
    }
}
