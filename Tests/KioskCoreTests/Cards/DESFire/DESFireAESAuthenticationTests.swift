import KioskCore
import KioskOpenSSL
import Testing

/// DESFire EV1 AuthenticateAES against real cards' exchanges: Elmü's "DESFire EV1 communication examples" (published
/// with his DIY RFID door lock, CodeProject article 1096861, and on Stack Overflow), as their data is quoted in
/// skelsec/pydesfire `tests.py` (`AuthTest_AES`, `AuthTest_AES2`) and patsys/desfire-python `test.py`.
@Suite struct DESFireAESAuthenticationTests {
    let cipher = OpenSSLCrypto()

    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " })! }

    struct Exchange: Sendable {
        let key: String
        let encryptedRndB: String
        let rndA: String
        let sent: String
        let encryptedRndAPrime: String
        let sessionKey: String
    }

    static let examples = [
        // AuthTest_AES: key 0, the zero key. RndB C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8.
        Exchange(
            key: "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
            encryptedRndB: "B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E",
            rndA: "F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81",
            sent: "36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74",
            encryptedRndAPrime: "80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59",
            sessionKey: "F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8"),
        // AuthTest_AES2: key 1. RndB 62 6F FB D4 5C AF 33 4A CC A4 55 99 30 4F 5B 17.
        Exchange(
            key: "10 18 20 28 30 38 40 48 50 58 60 68 70 78 80 88",
            encryptedRndB: "B3 51 CB 24 65 D4 F3 3A C6 27 FD 6E 87 A1 68 F2",
            rndA: "40 E7 D2 71 74 CB A6 75 E8 EF BA B9 9C 53 0E 3D",
            sent: "04 4B 6C AC 34 3A 08 65 89 51 49 64 9C A8 DD E1 F5 AC 4E C6 7B D2 08 90 0A F0 2F 04 9E 05 F0 B0",
            encryptedRndAPrime: "A2 EE 14 4B 10 12 FB EB 7B 2F 11 13 2D 95 A4 54",
            sessionKey: "40 E7 D2 71 62 6F FB D4 9C 53 0E 3D 30 4F 5B 17"),
    ]

    @Test(arguments: examples)
    func publishedExchange(_ example: Exchange) throws {
        var authentication = try DESFireAESAuthentication(key: bytes(example.key), cipher: cipher)
        let sent = try authentication.answer(encryptedRndB: bytes(example.encryptedRndB), rndA: bytes(example.rndA))
        #expect(sent == bytes(example.sent))
        let channel = try authentication.finish(encryptedRndAPrime: bytes(example.encryptedRndAPrime))
        #expect(channel.iv == [UInt8](repeating: 0, count: 16))
        // The session key is checked through what it MACs: the channel's first CMAC is the session key's RFC 4493
        // CMAC (the IV is zero).
        var probe = channel
        #expect(
            try probe.macCommand([0x6F])
                == cipher.aes128CMAC(key: bytes(example.sessionKey), message: [0x6F]))
    }

    @Test(arguments: examples)
    func sessionKeyFromRandoms(_ example: Exchange) throws {
        let rndB = try cipher.aes128CBCDecrypt(
            key: bytes(example.key), iv: [UInt8](repeating: 0, count: 16), blocks: bytes(example.encryptedRndB))
        #expect(DESFireAESAuthentication.sessionKey(rndA: bytes(example.rndA), rndB: rndB) == bytes(example.sessionKey))
    }

    /// A card that does not hold the key cannot return RndA rotated: the answer is refused, and no channel opens.
    @Test func wrongAnswerIsRefused() throws {
        let example = Self.examples[1]
        var authentication = try DESFireAESAuthentication(key: bytes(example.key), cipher: cipher)
        _ = try authentication.answer(encryptedRndB: bytes(example.encryptedRndB), rndA: bytes(example.rndA))
        var forged = bytes(example.encryptedRndAPrime)
        forged[15] ^= 0x01
        #expect(throws: DESFireError.authenticationFailed) { try authentication.finish(encryptedRndAPrime: forged) }
        // Single use: the step cannot be repeated with the right answer either.
        #expect(throws: DESFireError.authenticationFailed) {
            try authentication.finish(encryptedRndAPrime: bytes(example.encryptedRndAPrime))
        }
    }

    @Test func stepsOutOfOrderOrOfTheWrongLengthAreRefused() throws {
        let example = Self.examples[0]
        var early = try DESFireAESAuthentication(key: bytes(example.key), cipher: cipher)
        #expect(throws: DESFireError.authenticationFailed) {
            try early.finish(encryptedRndAPrime: bytes(example.encryptedRndAPrime))
        }
        var short = try DESFireAESAuthentication(key: bytes(example.key), cipher: cipher)
        #expect(throws: DESFireError.self) { try short.answer(encryptedRndB: [1, 2, 3], rndA: bytes(example.rndA)) }
        #expect(throws: DESFireError.self) { try DESFireAESAuthentication(key: [0, 1], cipher: cipher) }
    }
}
