internal import CKioskOpenSSL
public import KioskCore

/// Raw two-key triple DES for MIFARE DESFire's factory keys (`TripleDESCipher`): CBC without padding through
/// `EVP_CipherInit_ex` with `EVP_des_ede_cbc` (OpenSSL 3's default provider; single DES would need the legacy one,
/// and a DES key is 2K3DES with K1 = K2).
extension OpenSSLCrypto: TripleDESCipher {
    public func tdesCBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkTripleDES(key: key, iv: iv, blocks: blocks)
        return try CipherRun.run(
            cipher: EVP_des_ede_cbc(), key: key, iv: iv, input: blocks, encrypt: true, padding: false)
    }

    public func tdesCBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkTripleDES(key: key, iv: iv, blocks: blocks)
        return try CipherRun.run(
            cipher: EVP_des_ede_cbc(), key: key, iv: iv, input: blocks, encrypt: false, padding: false)
    }

    private func checkTripleDES(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) {
        guard key.count == TripleDESSize.key else { throw .invalidParameter("DES-EDE-CBC key length") }
        guard iv.count == TripleDESSize.block else { throw .invalidParameter("DES-EDE-CBC IV length") }
        guard !blocks.isEmpty, blocks.count % TripleDESSize.block == 0 else {
            throw .invalidParameter("DES-EDE-CBC input is not whole blocks")
        }
    }
}
