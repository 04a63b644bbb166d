internal import CKioskSodium
public import KioskCore

/// XSalsa20-Poly1305 (`crypto_secretbox`) done by libsodium, the library's one owner in the kiosk.
///
/// Stateless; `sodium_init` runs once, on first use (libsodium makes repeated calls harmless and thread-safe). Every
/// buffer handed to libsodium is non-empty (lengths are checked first, and empty messages get a spare byte), so
/// their addresses exist.
public struct SodiumSecretBox: SecretBox {
    public init() {}

    /// Whether libsodium initialised; `sodium_init` returns 0 the first time and 1 afterwards, -1 on failure.
    static let ready: Bool = sodium_init() >= 0

    /// The corresponding C function is `crypto_secretbox_easy`.
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Self.check(nonce: nonce, key: key)
        var out = [UInt8](repeating: 0, count: plaintext.count + SecretBoxSize.tag)
        // An empty message still needs an address.
        let input = plaintext.isEmpty ? [0] : plaintext
        let result = out.withUnsafeMutableBufferPointer { output in
            input.withUnsafeBufferPointer { input in
                nonce.withUnsafeBufferPointer { nonceBytes in
                    key.withUnsafeBufferPointer { keyBytes in
                        crypto_secretbox_easy(
                            output.baseAddress!, input.baseAddress!, UInt64(plaintext.count),
                            nonceBytes.baseAddress!, keyBytes.baseAddress!)
                    }
                }
            }
        }
        guard result == 0 else { throw .libraryFailure("crypto_secretbox_easy") }
        return out
    }

    /// The corresponding C function is `crypto_secretbox_open_easy`, which checks the Poly1305 tag in constant time
    /// before anything is decrypted.
    public func open(_ sealed: [UInt8], nonce: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Self.check(nonce: nonce, key: key)
        guard sealed.count >= SecretBoxSize.tag else { throw .authenticationFailed }
        // One byte more than the plaintext, so the buffer has an address even for an empty message.
        var out = [UInt8](repeating: 0, count: sealed.count - SecretBoxSize.tag + 1)
        let result = out.withUnsafeMutableBufferPointer { output in
            sealed.withUnsafeBufferPointer { input in
                nonce.withUnsafeBufferPointer { nonceBytes in
                    key.withUnsafeBufferPointer { keyBytes in
                        crypto_secretbox_open_easy(
                            output.baseAddress!, input.baseAddress!, UInt64(input.count), nonceBytes.baseAddress!,
                            keyBytes.baseAddress!)
                    }
                }
            }
        }
        guard result == 0 else {
            Self.wipe(&out)
            throw .authenticationFailed
        }
        out.removeLast()
        return out
    }

    /// Overwrites `bytes` with zeros. The corresponding C function is `sodium_memzero`.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }

    private static func check(nonce: [UInt8], key: [UInt8]) throws(CryptoError) {
        guard ready else { throw .libraryFailure("sodium_init") }
        guard key.count == SecretBoxSize.key else { throw .invalidParameter("secretbox key length") }
        guard nonce.count == SecretBoxSize.nonce else { throw .invalidParameter("secretbox nonce length") }
    }
}
