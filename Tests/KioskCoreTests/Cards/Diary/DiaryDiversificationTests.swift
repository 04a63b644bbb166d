import KioskCore
import KioskOpenSSL
import Testing

/// The 31-byte AN10922 input of a diary card's keys.
@Suite struct DiaryDiversificationTests {
    let uid: [UInt8] = [0x04, 0x78, 0x2E, 0x21, 0x80, 0x1D, 0x80]
    let aid: [UInt8] = [0x4B, 0x44, 0x31]

    @Test func theInputIsPurposeUIDAIDAndTwentyBytesOfSystemIdentifier() throws {
        let identifier = DiaryDiversification.systemIdentifier(regionName: "NXP Abu")
        #expect(identifier == Array("NXP Abu".utf8) + [UInt8](repeating: 0, count: 13))
        let input = try DiaryDiversification.input(
            purpose: .diary, uid: uid, aid: aid, systemIdentifier: identifier)
        #expect(input.count == 31)
        #expect(input == [0x03] + uid + aid + identifier)
        // The identify key's UID is seven zero bytes, whatever the card's.
        #expect(
            try DiaryDiversification.input(purpose: .identify, uid: uid, aid: aid, systemIdentifier: identifier)
                == [0x04] + [UInt8](repeating: 0, count: 7) + aid + identifier)
        // A name longer than 20 bytes is cut.
        #expect(DiaryDiversification.systemIdentifier(regionName: String(repeating: "é", count: 15)).count == 20)
    }

    /// At 31 bytes AN10922 is RFC 4493's CMAC of 01 ‖ M, which is what a PKCS #11 token computes.
    @Test func atThirtyOneBytesTheKeyIsTheCMACOfTheMessage() throws {
        let cipher = OpenSSLCrypto()
        let master: [UInt8] = Array(0..<16)
        let input = try DiaryDiversification.input(
            purpose: .piccMaster, uid: uid, aid: aid, systemIdentifier: Array("Region".utf8))
        #expect(
            try AN10922.diversifyAES128(masterKey: master, input: input, cipher: cipher)
                == cipher.aes128CMAC(key: master, message: DiaryDiversification.message(input: input)))
    }

    @Test func aUIDOrAIDOfTheWrongLengthIsRefused() {
        #expect(throws: DiaryDiversification.InputError.uidLength(4)) {
            _ = try DiaryDiversification.input(purpose: .diary, uid: [1, 2, 3, 4], aid: aid, systemIdentifier: [])
        }
        #expect(throws: DiaryDiversification.InputError.aidLength(4)) {
            _ = try DiaryDiversification.input(purpose: .diary, uid: uid, aid: aid + [0], systemIdentifier: [])
        }
    }
}
