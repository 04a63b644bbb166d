/// Raw AES-128 as a port: single blocks in ECB and CBC without padding, and AES-CMAC (NIST SP 800-38B, RFC 4493).
/// MIFARE DESFire's AES authentication, secure messaging and AN10922 key diversification
/// (`Cards/DESFire/`) are built on these alone; the kiosk's one implementation is `OpenSSLCrypto` in `KioskOpenSSL`.
///
/// Every input to the block functions must be a whole number of 16-byte blocks: nothing is padded. Every function
/// either succeeds or throws `CryptoError` (`.invalidParameter` for a key, IV or length that does not fit); none logs
/// or echoes its inputs.
public protocol AES128Cipher: Sendable {
    /// AES-128 encryption of each 16-byte block of `blocks` on its own (ECB).
    func aes128ECBEncrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-128 decryption of each 16-byte block of `blocks` on its own (ECB).
    func aes128ECBDecrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-128-CBC encryption of `blocks` from `iv`, without padding.
    func aes128CBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-128-CBC decryption of `blocks` from `iv`, without padding.
    func aes128CBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// AES-CMAC (RFC 4493) of `message` under a 16-byte `key`: the full 16-byte tag.
    func aes128CMAC(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8]

    /// Overwrites `bytes` with zeros in a way the compiler cannot elide.
    func wipe(_ bytes: inout [UInt8])
}

/// Sizes of AES-128.
public enum AES128Size {
    public static let key = 16
    public static let block = 16
}
