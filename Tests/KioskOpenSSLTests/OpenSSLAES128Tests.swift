import KioskCore
import KioskOpenSSL
import Testing

/// Known-answer tests for raw AES-128 (ECB and CBC without padding) and AES-CMAC, the primitives of MIFARE DESFire's
/// secure messaging.
@Suite struct OpenSSLAES128Tests {
    let crypto = OpenSSLCrypto()

    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }

    /// The key and the four plaintext blocks of NIST SP 800-38A, Appendix F, and of RFC 4493, section 4.
    static let key = "2b7e151628aed2a6abf7158809cf4f3c"
    static let plaintext =
        "6bc1bee22e409f96e93d7e117393172a" + "ae2d8a571e03ac9c9eb76fac45af8e51"
        + "30c81c46a35ce411e5fbc1191a0a52ef" + "f69f2445df4f9b17ad2b417be66c3710"

    /// NIST SP 800-38A F.1.1 (ECB-AES128.Encrypt) and F.1.2 (ECB-AES128.Decrypt).
    @Test func ecbNIST() throws {
        let expected =
            "3ad77bb40d7a3660a89ecaf32466ef97" + "f5d3d58503b9699de785895a96fdbaaf"
            + "43b1cd7f598ece23881b00e3ed030688" + "7b0c785e27e8ad3f8223207104725dd4"
        let enciphered = try crypto.aes128ECBEncrypt(key: bytes(Self.key), blocks: bytes(Self.plaintext))
        #expect(Hex.encode(enciphered) == expected)
        #expect(try crypto.aes128ECBDecrypt(key: bytes(Self.key), blocks: enciphered) == bytes(Self.plaintext))
    }

    /// NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt) and F.2.2 (CBC-AES128.Decrypt): no padding block is added.
    @Test func cbcNIST() throws {
        let iv = bytes("000102030405060708090a0b0c0d0e0f")
        let expected =
            "7649abac8119b246cee98e9b12e9197d" + "5086cb9b507219ee95db113a917678b2"
            + "73bed6b8e3c1743b7116e69e22229516" + "3ff1caa1681fac09120eca307586e1a7"
        let enciphered = try crypto.aes128CBCEncrypt(key: bytes(Self.key), iv: iv, blocks: bytes(Self.plaintext))
        #expect(Hex.encode(enciphered) == expected)
        #expect(try crypto.aes128CBCDecrypt(key: bytes(Self.key), iv: iv, blocks: enciphered) == bytes(Self.plaintext))
    }

    /// RFC 4493 section 4, examples 1 to 4 (the same as NIST SP 800-38B D.1): messages of 0, 16, 40 and 64 bytes.
    @Test(arguments: [
        (0, "bb1d6929e95937287fa37d129b756746"),
        (16, "070a16b46b4d4144f79bdd9dd04a287c"),
        (40, "dfa66747de9ae63030ca32611497c827"),
        (64, "51f0bebf7e3b9d92fc49741779363cfe"),
    ])
    func cmacRFC4493(length: Int, mac: String) throws {
        let message = Array(bytes(Self.plaintext).prefix(length))
        #expect(Hex.encode(try crypto.aes128CMAC(key: bytes(Self.key), message: message)) == mac)
    }

    /// RFC 4493 section 4, subkey generation: AES-128(key, 0) is the block the subkeys K1, K2 are doubled from.
    @Test func zeroBlockOfTheRFC4493Key() throws {
        let l = try crypto.aes128ECBEncrypt(key: bytes(Self.key), blocks: [UInt8](repeating: 0, count: 16))
        #expect(Hex.encode(l) == "7df76b0c1ab899b33e42f047b91b546f")
    }

    @Test func wrongLengthsAreRejected() {
        let key = [UInt8](repeating: 1, count: 16)
        let block = [UInt8](repeating: 2, count: 16)
        #expect(throws: CryptoError.self) { try crypto.aes128ECBEncrypt(key: [1], blocks: block) }
        #expect(throws: CryptoError.self) { try crypto.aes128ECBEncrypt(key: key, blocks: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try crypto.aes128ECBDecrypt(key: key, blocks: []) }
        #expect(throws: CryptoError.self) { try crypto.aes128CBCEncrypt(key: key, iv: [0], blocks: block) }
        #expect(throws: CryptoError.self) {
            try crypto.aes128CBCDecrypt(key: key, iv: block, blocks: block + [9])
        }
        #expect(throws: CryptoError.self) {
            try crypto.aes128CBCEncrypt(key: [UInt8](repeating: 0, count: 32), iv: block, blocks: block)
        }
        #expect(throws: CryptoError.self) { try crypto.aes128CMAC(key: [1, 2], message: block) }
    }
}
