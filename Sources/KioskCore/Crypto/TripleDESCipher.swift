/// Raw two-key triple DES (2K3DES, DES-EDE with K1 ‖ K2) as a port, in CBC without padding: what a factory-new MIFARE
/// DESFire card's master key is (a DES key of zeros, which is 2K3DES with K1 = K2), and what the kiosk needs to
/// authenticate to it once (`DESFireClient.authenticate` with a `DESFireKey.tripleDES`) and change it to an AES key.
/// A DES key is given as 2K3DES with both halves equal. The kiosk's one implementation is `OpenSSLCrypto`.
///
/// Every input must be a whole number of 8-byte blocks; keys are 16 bytes, IVs 8. Either succeeds or throws
/// `CryptoError` (`.invalidParameter` for a key, IV or length that does not fit); never logs or echoes its inputs.
public protocol TripleDESCipher: Sendable {
    /// 2K3DES-CBC encryption of `blocks` from `iv`, without padding.
    func tdesCBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// 2K3DES-CBC decryption of `blocks` from `iv`, without padding.
    func tdesCBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8]

    /// Overwrites `bytes` with zeros in a way the compiler cannot elide.
    func wipe(_ bytes: inout [UInt8])
}

/// Sizes of two-key triple DES.
public enum TripleDESSize {
    public static let key = 16
    public static let block = 8
}

/// What a MIFARE DESFire client and the emulated card compute with: AES-128, two-key triple DES, random numbers.
public typealias DESFireCrypto = CryptoProvider & AES128Cipher & TripleDESCipher
