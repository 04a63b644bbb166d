/// XSalsa20-Poly1305 authenticated encryption (NaCl's `crypto_secretbox`), as a port: CrowdNotifier's problematic
/// events carry their associated data sealed this way under the venue's notification key. The kiosk's one
/// implementation is `SodiumSecretBox` in `KioskSodium` (libsodium).
public protocol SecretBox: Sendable {
    /// Seals `plaintext` under a 32-byte `key` and a 24-byte `nonce`; returns the 16-byte tag followed by the
    /// ciphertext (libsodium's "easy" layout).
    func seal(_ plaintext: [UInt8], nonce: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8]

    /// Opens what `seal` produced; throws `.authenticationFailed` when the tag does not verify (a wrong key, nonce
    /// or a changed byte), `.invalidParameter` for a key or nonce of the wrong length.
    func open(_ sealed: [UInt8], nonce: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8]
}

/// Sizes of `crypto_secretbox_xsalsa20poly1305`.
public enum SecretBoxSize {
    public static let key = 32
    public static let nonce = 24
    public static let tag = 16
}
