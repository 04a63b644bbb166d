import KioskCore
import KioskOpenSSL
import Testing

/// Known-answer tests for the OpenSSL-backed primitives (RFC and NIST vectors), plus the failure paths.
@Suite struct OpenSSLCryptoTests {
    let crypto = OpenSSLCrypto()

    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }

    @Test func sha256OfABC() throws {
        #expect(
            Hex.encode(try crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Hex.encode(try crypto.sha256([]))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// RFC 4231 test case 2.
    @Test func hmacRFC4231Case2() throws {
        let mac = try crypto.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacWithEmptyKeyMatchesKnownValue() throws {
        let mac = try crypto.hmacSHA256(key: [], data: [])
        #expect(Hex.encode(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// RFC 5869 test cases 1 and 3 (3 has empty salt and info).
    @Test func hkdfRFC5869() throws {
        let okm1 = try crypto.hkdfSHA256(
            inputKeyMaterial: bytes("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
            salt: bytes("000102030405060708090a0b0c"), info: bytes("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(
            Hex.encode(okm1) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let okm3 = try crypto.hkdfSHA256(
            inputKeyMaterial: bytes("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), salt: [], info: [], length: 42)
        #expect(
            Hex.encode(okm3) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func hkdfRejectsImpossibleLength() {
        #expect(throws: CryptoError.self) {
            try crypto.hkdfSHA256(inputKeyMaterial: [1], salt: [], info: [], length: 0)
        }
        #expect(throws: CryptoError.self) {
            try crypto.hkdfSHA256(inputKeyMaterial: [1], salt: [], info: [], length: 255 * 32 + 1)
        }
    }

    /// NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt), first two blocks.
    @Test func aes128CTRNIST() throws {
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        let iv = bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let plain = bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        let cipher = try crypto.aesCTR(key: key, iv: iv, data: plain)
        #expect(Hex.encode(cipher) == "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff")
        #expect(try crypto.aesCTR(key: key, iv: iv, data: cipher) == plain)
    }

    /// The counter is a full 128-bit big-endian integer: it carries across all 16 bytes.
    @Test func aesCTRCounterCarriesAcrossTheWholeBlock() throws {
        let key = [UInt8](repeating: 7, count: 16)
        let ivAtEdge = [UInt8](repeating: 0xff, count: 16)
        let twoBlocks = try crypto.aesCTR(key: key, iv: ivAtEdge, data: [UInt8](repeating: 0, count: 32))
        let secondFromZero = try crypto.aesCTR(
            key: key, iv: [UInt8](repeating: 0, count: 16), data: [UInt8](repeating: 0, count: 16))
        #expect(Array(twoBlocks[16...]) == secondFromZero)
    }

    /// NIST SP 800-38A F.2.5 (CBC-AES256.Encrypt) first block, then PKCS#7 round trip and bad padding.
    @Test func aes256CBC() throws {
        let key = bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
        let iv = bytes("000102030405060708090a0b0c0d0e0f")
        let block = bytes("6bc1bee22e409f96e93d7e117393172a")
        let sealed = try crypto.aes256CBCEncrypt(key: key, iv: iv, plaintext: block)
        #expect(sealed.count == 32)
        #expect(Hex.encode(sealed.prefix(16)) == "f58c4c04d6e5f1ba779eabfb5f7bfbd6")
        #expect(try crypto.aes256CBCDecrypt(key: key, iv: iv, ciphertext: sealed) == block)
        var broken = sealed
        broken[31] ^= 0x01
        #expect(throws: CryptoError.self) { try crypto.aes256CBCDecrypt(key: key, iv: iv, ciphertext: broken) }
        #expect(throws: CryptoError.decryptionFailed) {
            try crypto.aes256CBCDecrypt(key: key, iv: iv, ciphertext: [1, 2, 3])
        }
    }

    @Test func gcmRoundTripAndTamperDetection() throws {
        let key = try crypto.randomBytes(count: 32)
        let nonce = try crypto.randomBytes(count: 12)
        let sealed = try crypto.aes256GCMSeal(
            key: key, nonce: nonce, plaintext: Array("stay".utf8), additionalData: [9])
        #expect(
            try crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, additionalData: [9]) == Array("stay".utf8))
        var tampered = sealed
        tampered[0] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) {
            try crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: tampered, additionalData: [9])
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try crypto.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, additionalData: [8])
        }
    }

    /// NIST GCM test case 14 (AES-256, zero key, zero IV, one zero block).
    @Test func gcmKnownAnswer() throws {
        let sealed = try crypto.aes256GCMSeal(
            key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [UInt8](repeating: 0, count: 16), additionalData: [])
        #expect(Hex.encode(sealed) == "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test func randomBytesAreFreshAndOfTheRightLength() throws {
        let a = try crypto.randomBytes(count: 16)
        let b = try crypto.randomBytes(count: 16)
        #expect(a.count == 16 && b.count == 16)
        #expect(a != b)
        #expect(try crypto.randomBytes(count: 0).isEmpty)
    }

    @Test func constantTimeEquality() {
        #expect(crypto.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!crypto.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!crypto.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(crypto.constantTimeEquals([], []))
    }

    @Test func wipeZeroesInPlace() {
        var secret: [UInt8] = [1, 2, 3, 4]
        crypto.wipe(&secret)
        #expect(secret == [0, 0, 0, 0])
    }

    @Test func wrongKeyAndIVLengthsAreRejected() {
        #expect(throws: CryptoError.self) {
            try crypto.aesCTR(key: [1], iv: [UInt8](repeating: 0, count: 16), data: [1])
        }
        #expect(throws: CryptoError.self) {
            try crypto.aesCTR(key: [UInt8](repeating: 0, count: 16), iv: [1], data: [1])
        }
        #expect(throws: CryptoError.self) {
            try crypto.aes256CBCEncrypt(key: [1], iv: [UInt8](repeating: 0, count: 16), plaintext: [1])
        }
    }
}
