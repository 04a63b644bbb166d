internal import CKioskOpenSSL

/// A failure reported by OpenSSL's error queue (`ERR_get_error`). The text names the failing call and OpenSSL's
/// reason string; it never contains key material or data.
public struct OpenSSLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The OpenSSL call that failed.
    public let operation: String
    /// The first packed error code from OpenSSL's queue (0 when the queue was empty).
    public let code: UInt
    /// OpenSSL's reason text for `code`.
    public let reason: String

    public var description: String { "\(operation) failed: \(reason)" }

    /// Reads and clears the thread's error queue, returning the first error.
    static func current(_ operation: String) -> OpenSSLError {
        let code = ERR_get_error()
        var reason = "no reason given"
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        return OpenSSLError(operation: operation, code: code, reason: reason)
    }

    /// The error queue summarised as text for a `CryptoError`.
    static func drain(_ operation: String) -> String { current(operation).description }
}
