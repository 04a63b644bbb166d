internal import CKioskOpenSSL
public import KioskCore

/// Raw AES-128 for MIFARE DESFire (`AES128Cipher`): ECB and CBC without padding through `EVP_CipherInit_ex` with
/// `EVP_aes_128_ecb`/`EVP_aes_128_cbc` and padding off, and AES-CMAC through OpenSSL 3's `EVP_MAC` "CMAC" with the
/// cipher "AES-128-CBC".
extension OpenSSLCrypto: AES128Cipher {
    public func aes128ECBEncrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyAndBlocks(key: key, blocks: blocks, mode: "AES-128-ECB")
        return try CipherRun.run(
            cipher: EVP_aes_128_ecb(), key: key, iv: [], input: blocks, encrypt: true, padding: false)
    }

    public func aes128ECBDecrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyAndBlocks(key: key, blocks: blocks, mode: "AES-128-ECB")
        return try CipherRun.run(
            cipher: EVP_aes_128_ecb(), key: key, iv: [], input: blocks, encrypt: false, padding: false)
    }

    public func aes128CBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyAndBlocks(key: key, blocks: blocks, mode: "AES-128-CBC")
        guard iv.count == AES128Size.block else { throw .invalidParameter("AES-128-CBC IV length") }
        return try CipherRun.run(
            cipher: EVP_aes_128_cbc(), key: key, iv: iv, input: blocks, encrypt: true, padding: false)
    }

    public func aes128CBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyAndBlocks(key: key, blocks: blocks, mode: "AES-128-CBC")
        guard iv.count == AES128Size.block else { throw .invalidParameter("AES-128-CBC IV length") }
        return try CipherRun.run(
            cipher: EVP_aes_128_cbc(), key: key, iv: iv, input: blocks, encrypt: false, padding: false)
    }

    /// The corresponding C functions are `EVP_MAC_fetch` ("CMAC"), `EVP_MAC_init` with the parameter "cipher" set to
    /// "AES-128-CBC", `EVP_MAC_update` and `EVP_MAC_final`.
    public func aes128CMAC(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == AES128Size.key else { throw .invalidParameter("AES-CMAC key length") }
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else {
            throw .libraryFailure(OpenSSLError.drain("EVP_MAC_fetch (CMAC)"))
        }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else {
            throw .libraryFailure(OpenSSLError.drain("EVP_MAC_CTX_new"))
        }
        // Frees the context, which cleanses the key schedule OpenSSL keeps for it.
        defer { EVP_MAC_CTX_free(context) }
        var parameterName = Array("cipher".utf8CString)
        var cipherName = Array("AES-128-CBC".utf8CString)
        var out = [UInt8](repeating: 0, count: AES128Size.block)
        var outLength = 0
        // An empty message is legal, but OpenSSL wants a non-NULL pointer: lend it one byte, length 0.
        let messageStorage = message.isEmpty ? [0] : message
        let ok: Bool = parameterName.withUnsafeMutableBufferPointer { name in
            cipherName.withUnsafeMutableBufferPointer { cipher in
                key.withUnsafeBufferPointer { keyBytes in
                    messageStorage.withUnsafeBufferPointer { input in
                        out.withUnsafeMutableBufferPointer { output in
                            var parameters = [
                                OSSL_PARAM_construct_utf8_string(name.baseAddress, cipher.baseAddress, 0),
                                OSSL_PARAM_construct_end(),
                            ]
                            return EVP_MAC_init(context, keyBytes.baseAddress, keyBytes.count, &parameters) == 1
                                && EVP_MAC_update(context, input.baseAddress, message.count) == 1
                                && EVP_MAC_final(context, output.baseAddress, &outLength, output.count) == 1
                        }
                    }
                }
            }
        }
        guard ok, outLength == AES128Size.block else {
            wipe(&out)
            throw .libraryFailure(OpenSSLError.drain("EVP_MAC (AES-CMAC)"))
        }
        return out
    }

    private func checkKeyAndBlocks(key: [UInt8], blocks: [UInt8], mode: String) throws(CryptoError) {
        guard key.count == AES128Size.key else { throw .invalidParameter("\(mode) key length") }
        guard !blocks.isEmpty, blocks.count % AES128Size.block == 0 else {
            throw .invalidParameter("\(mode) input is not whole blocks")
        }
    }
}
