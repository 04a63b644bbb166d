public import KioskCore
internal import Synchronization

/// Wraps a real `CryptoProvider` and records every buffer it wipes and every key it is handed, so tests can check
/// that each key used was wiped afterwards.
public final class WipeRecordingCrypto: CryptoProvider {
    private let base: any CryptoProvider
    private let log = Mutex<(wiped: [[UInt8]], keys: [[UInt8]])>(([], []))

    public init(wrapping base: any CryptoProvider) { self.base = base }

    /// Contents of buffers just before they were wiped.
    public var wipedBuffers: [[UInt8]] { log.withLock { $0.wiped } }
    /// Keys passed to the AEAD calls.
    public var keysUsed: [[UInt8]] { log.withLock { $0.keys } }

    public func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] { try base.sha256(data) }
    public func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.hmacSHA256(key: key, data: data)
    }
    public func hkdfSHA256(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError)
        -> [UInt8]
    {
        try base.hkdfSHA256(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, length: length)
    }
    public func aesCTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aesCTR(key: key, iv: iv, data: data)
    }
    public func aes256CBCEncrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes256CBCEncrypt(key: key, iv: iv, plaintext: plaintext)
    }
    public func aes256CBCDecrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes256CBCDecrypt(key: key, iv: iv, ciphertext: ciphertext)
    }
    public func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        log.withLock { $0.keys.append(key) }
        return try base.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, additionalData: additionalData)
    }
    public func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        log.withLock { $0.keys.append(key) }
        return try base.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, additionalData: additionalData)
    }
    public func randomBytes(count: Int) throws(CryptoError) -> [UInt8] { try base.randomBytes(count: count) }
    public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool { base.constantTimeEquals(a, b) }
    public func wipe(_ bytes: inout [UInt8]) {
        let copy = bytes
        log.withLock { $0.wiped.append(copy) }
        base.wipe(&bytes)
    }
}
