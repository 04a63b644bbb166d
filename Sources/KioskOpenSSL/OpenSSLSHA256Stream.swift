internal import CKioskOpenSSL
public import KioskCore

/// SHA-256 over a message given piece by piece (a package streamed from a file). Owns one `EVP_MD_CTX`; used by one
/// task at a time. The corresponding C functions are `EVP_DigestInit_ex`, `EVP_DigestUpdate` and `EVP_DigestFinal_ex`.
public final class OpenSSLSHA256Stream: SHA256Stream {
    private let context: OpaquePointer?
    private var failed = false

    public init() {
        let context = EVP_MD_CTX_new()
        if let context, EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 {
            self.context = context
        } else {
            EVP_MD_CTX_free(context)
            self.context = nil
            ERR_clear_error()
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, !failed, let base = bytes.baseAddress, bytes.count > 0 else { return }
        if EVP_DigestUpdate(context, base, bytes.count) != 1 {
            failed = true
            ERR_clear_error()
        }
    }

    /// The digest; empty if OpenSSL failed on the way (an empty digest verifies nothing).
    public func finish() -> [UInt8] {
        guard let context, !failed else { return [] }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) == 1 }
        failed = true  // used up
        guard ok, length == 32 else {
            ERR_clear_error()
            return []
        }
        return digest
    }
}
