/// The block cipher a MIFARE DESFire EV1 session computes with: AES-128 (16-byte blocks) after AuthenticateAES, or
/// two-key triple DES (8-byte blocks) after AuthenticateISO with a DES or 2K3DES key — a factory-new card's master
/// key. Authentication, the CMAC chain and enciphered data are the same scheme over either (`DESFireAuthentication`,
/// `DESFireCMAC`, `DESFireSecureChannel`); only the block size, the CMAC's constant and the session key's bytes
/// differ. Keys are 16 bytes for both.
public protocol DESFireBlockCipher: Sendable {
    /// 16 for AES, 8 for triple DES.
    var blockSize: Int { get }
    /// CBC encryption of whole blocks from `iv`, without padding.
    func encryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]
    /// CBC decryption of whole blocks from `iv`, without padding.
    func decryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]
    /// Overwrites `bytes` with zeros.
    func wipe(_ bytes: inout [UInt8])
}

/// AES-128 as a DESFire session's block cipher.
public struct DESFireAESBlocks: DESFireBlockCipher {
    let cipher: any AES128Cipher
    public init(_ cipher: any AES128Cipher) { self.cipher = cipher }
    public var blockSize: Int { AES128Size.block }
    public func encryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher.aes128CBCEncrypt(key: key, iv: iv, blocks: blocks)
    }
    public func decryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher.aes128CBCDecrypt(key: key, iv: iv, blocks: blocks)
    }
    public func wipe(_ bytes: inout [UInt8]) { cipher.wipe(&bytes) }
}

/// Two-key triple DES as a DESFire session's block cipher (a DES key is 2K3DES with both halves equal).
public struct DESFireTripleDESBlocks: DESFireBlockCipher {
    let cipher: any TripleDESCipher
    public init(_ cipher: any TripleDESCipher) { self.cipher = cipher }
    public var blockSize: Int { TripleDESSize.block }
    public func encryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher.tdesCBCEncrypt(key: key, iv: iv, blocks: blocks)
    }
    public func decryptCBC(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher.tdesCBCDecrypt(key: key, iv: iv, blocks: blocks)
    }
    public func wipe(_ bytes: inout [UInt8]) { cipher.wipe(&bytes) }
}

/// A key of a MIFARE DESFire card as the kiosk authenticates with it: an AES-128 key (every key the kiosk gives a
/// card), or a two-key triple DES key (16 bytes; a DES key as K ‖ K) — what a factory-new card's master key is.
public enum DESFireKey: Sendable, Equatable {
    case aes([UInt8])
    case tripleDES([UInt8])

    /// The card master key a MIFARE DESFire EV1, EV2 or EV3 leaves the factory with: DES, all zeros, version 0.
    public static var factoryDefault: DESFireKey { .tripleDES([UInt8](repeating: 0, count: TripleDESSize.key)) }

    /// The key's bytes (16 for both kinds).
    public var bytes: [UInt8] {
        switch self {
        case .aes(let bytes), .tripleDES(let bytes): bytes
        }
    }
}
