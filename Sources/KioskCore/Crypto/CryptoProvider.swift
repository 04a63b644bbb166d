/// The cryptographic primitives the core needs, as a port: the core never links a C library, and the kiosk's one
/// implementation (`OpenSSLCrypto` in `KioskOpenSSL`) does all crypto through OpenSSL 3.
///
/// Every function either succeeds or throws `CryptoError`; none logs or echoes its inputs.
public protocol CryptoProvider: Sendable {
    /// SHA-256 of `data`.
    func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8]

    /// HMAC-SHA256 of `data` under `key`.
    func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8]

    /// HKDF-SHA256 (RFC 5869): extract with `salt`, expand with `info` to `length` bytes.
    func hkdfSHA256(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8]

    /// AES-CTR with a 128-bit big-endian counter starting at `iv`; the key length picks AES-128 or AES-256.
    /// Encryption and decryption are the same operation.
    func aesCTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-256-CBC with PKCS#7 padding.
    func aes256CBCEncrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-256-CBC with PKCS#7 padding; throws `.decryptionFailed` on a bad padding or length.
    func aes256CBCDecrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-256-GCM authenticated encryption; returns ciphertext followed by the 16-byte tag.
    func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8]) throws(CryptoError)
        -> [UInt8]

    /// Opens what `aes256GCMSeal` produced; throws `.authenticationFailed` if the tag does not verify.
    func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], additionalData: [UInt8]) throws(CryptoError)
        -> [UInt8]

    /// `count` bytes from the operating system's CSPRNG.
    func randomBytes(count: Int) throws(CryptoError) -> [UInt8]

    /// Compares two byte strings in time that depends only on their length.
    func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool

    /// Overwrites `bytes` with zeros in a way the compiler cannot elide.
    func wipe(_ bytes: inout [UInt8])
}

/// Why a cryptographic operation failed. Carries no key, plaintext or ciphertext.
public enum CryptoError: Error, Equatable, Sendable {
    /// A key, IV or nonce had the wrong length.
    case invalidParameter(String)
    /// The library reported an internal failure (out of memory, unavailable algorithm).
    case libraryFailure(String)
    /// Decryption failed (bad padding, wrong length).
    case decryptionFailed
    /// An authentication tag or MAC did not verify.
    case authenticationFailed
    /// The random generator could not produce bytes.
    case randomUnavailable
}

extension CryptoError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidParameter(let what): "invalid cryptographic parameter: \(what)"
        case .libraryFailure(let what): "the crypto library failed: \(what)"
        case .decryptionFailed: "decryption failed"
        case .authenticationFailed: "authentication failed"
        case .randomUnavailable: "the random number generator is unavailable"
        }
    }
}
