import KioskCore
import KioskOpenSSL
import Testing

/// NXP AN10922 AES-128 key diversification and the CMAC it rests on.
@Suite struct AN10922Tests {
    let cipher = OpenSSLCrypto()

    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " })! }

    /// AN10922 (Rev. 2.2), section 2.2.1, "AES-128 key diversification example": master key
    /// 00112233445566778899AABBCCDDEEFF, UID 04782E21801D80, AID 3042F5, system identifier "NXP Abu" (4E585020416275).
    @Test func applicationNoteExample() throws {
        let input = AN10922.input(
            uid: bytes("04782E21801D80"), aid: bytes("3042F5"), systemIdentifier: Array("NXP Abu".utf8))
        #expect(Hex.encode(input) == "04782e21801d803042f54e585020416275")
        let key = try AN10922.diversifyAES128(
            masterKey: bytes("00112233445566778899AABBCCDDEEFF"), input: input, cipher: cipher)
        #expect(Hex.encode(key) == "a8dd63a3b89d54b37ca802473fda9175")
    }

    /// The CMAC subkeys of the example's master key: K1 and K2 as Proxmark3's DESFire self-test asserts them
    /// (RfidResearchGroup/proxmark3, client/src/mifare/desfiretest.c, `TestCMACSubkeys`).
    @Test func subkeysOfTheExampleMasterKey() throws {
        let (k1, k2) = try DESFireCMAC.subkeys(key: bytes("00112233445566778899AABBCCDDEEFF"), cipher: cipher)
        #expect(Hex.encode(k1) == "fbc9f75c9413c041dfee452d3f0706d1")
        #expect(Hex.encode(k2) == "f793eeb928278083bfdc8a5a7e0e0d25")
    }

    /// RFC 4493 section 4, subkey generation: K1 and K2 of key 2B7E151628AED2A6ABF7158809CF4F3C.
    @Test func subkeysRFC4493() throws {
        let (k1, k2) = try DESFireCMAC.subkeys(key: bytes("2b7e151628aed2a6abf7158809cf4f3c"), cipher: cipher)
        #expect(Hex.encode(k1) == "fbeed618357133667c85e08f7236a8de")
        #expect(Hex.encode(k2) == "f7ddac306ae266ccf90bc11ee46d513b")
    }

    /// A 31-byte input fills D's 32 bytes: no padding, subkey K1, which is RFC 4493's CMAC of 01 ‖ M. An input of 17
    /// to 30 bytes is padded to 32 bytes just as RFC 4493 pads it; a shorter one is padded to 32 bytes where RFC 4493
    /// pads to 16, so the two differ.
    @Test func paddingToThirtyTwoBytes() throws {
        let master = bytes("00112233445566778899AABBCCDDEEFF")
        for length in [31, 30, 17] {
            let input = (0..<length).map { UInt8($0 * 7 & 0xFF) }
            #expect(
                try AN10922.diversifyAES128(masterKey: master, input: input, cipher: cipher)
                    == cipher.aes128CMAC(key: master, message: [0x01] + input))
        }
        let short = [UInt8](bytes("04782E21801D80"))
        #expect(
            try AN10922.diversifyAES128(masterKey: master, input: short, cipher: cipher)
                != cipher.aes128CMAC(key: master, message: [0x01] + short))
    }

    @Test func inputsOutOfRangeAreRefused() {
        let master = [UInt8](repeating: 0, count: 16)
        #expect(throws: DESFireError.self) { try AN10922.diversifyAES128(masterKey: master, input: [], cipher: cipher) }
        #expect(throws: DESFireError.self) {
            try AN10922.diversifyAES128(masterKey: master, input: [UInt8](repeating: 1, count: 32), cipher: cipher)
        }
        #expect(throws: DESFireError.self) {
            try AN10922.diversifyAES128(masterKey: [1, 2, 3], input: [1], cipher: cipher)
        }
    }

    /// With a zero IV, DESFire's chained CMAC is RFC 4493's AES-CMAC (section 4, examples 1 to 4), as OpenSSL computes it.
    @Test func chainedCMACFromZeroIsRFC4493() throws {
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        let message = bytes(
            "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
        let expected = [
            0: "bb1d6929e95937287fa37d129b756746", 16: "070a16b46b4d4144f79bdd9dd04a287c",
            40: "dfa66747de9ae63030ca32611497c827", 64: "51f0bebf7e3b9d92fc49741779363cfe",
        ]
        let zero = [UInt8](repeating: 0, count: 16)
        for (length, mac) in expected {
            let part = Array(message.prefix(length))
            #expect(Hex.encode(try DESFireCMAC.mac(key: key, iv: zero, message: part, cipher: cipher)) == mac)
            #expect(Hex.encode(try cipher.aes128CMAC(key: key, message: part)) == mac)
        }
    }
}
