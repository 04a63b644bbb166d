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
        var authentication = try DESFireAuthentication(key: bytes(example.key), cipher: cipher)
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
        #expect(DESFireAuthentication.sessionKey(rndA: bytes(example.rndA), rndB: rndB) == bytes(example.sessionKey))
    }

    /// A card that does not hold the key cannot return RndA rotated: the answer is refused, and no channel opens.
    @Test func wrongAnswerIsRefused() throws {
        let example = Self.examples[1]
        var authentication = try DESFireAuthentication(key: bytes(example.key), cipher: cipher)
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
        var early = try DESFireAuthentication(key: bytes(example.key), cipher: cipher)
        #expect(throws: DESFireError.authenticationFailed) {
            try early.finish(encryptedRndAPrime: bytes(example.encryptedRndAPrime))
        }
        var short = try DESFireAuthentication(key: bytes(example.key), cipher: cipher)
        #expect(throws: DESFireError.self) { try short.answer(encryptedRndB: [1, 2, 3], rndA: bytes(example.rndA)) }
        #expect(throws: DESFireError.self) { try DESFireAuthentication(key: [0, 1], cipher: cipher) }
    }
}

/// DESFire EV1 AuthenticateISO (1A) with a factory-new card's DES master key, and the triple DES session after it.
///
/// The authentication is a published exchange with the zero DES key (NathanHouwaart/NfcCpp, `Docs/Desfire-Des-
/// Authentication.md`: E(RndB), RndA, the kiosk's answer, the card's E(RndA′) and the session key). No published
/// trace of a triple DES session's CMACs and cryptograms was found: the session's bytes below were computed apart
/// from this code, with Python's `cryptography` (its CMAC over TripleDES for the subkeys and a zero IV, CBC for the
/// chain) and zlib's CRC-32, and are exact bytes.
@Suite struct DESFireISOAuthenticationTests {
    let openssl = OpenSSLCrypto()

    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " })! }

    static let encryptedRndB = "84 76 D1 CF 30 24 B7 C7"
    static let rndA = "49 EC 63 DE CD E0 07 72"
    static let sent = "DA C6 7A B7 43 76 3D C9 FA F8 A0 AE 50 4E 80 C5"
    static let encryptedRndAPrime = "13 E9 E4 FA 43 88 BF 16"

    @Test func theZeroDESKeysPublishedExchange() throws {
        var authentication = try DESFireAuthentication(key: .factoryDefault, crypto: openssl)
        #expect(authentication.command == 0x1A)
        #expect(authentication.blockSize == 8)
        let answer = try authentication.answer(encryptedRndB: bytes(Self.encryptedRndB), rndA: bytes(Self.rndA))
        #expect(Hex.encode(answer) == Hex.encode(bytes(Self.sent)))
        _ = try authentication.finish(encryptedRndAPrime: bytes(Self.encryptedRndAPrime))
        // A DES key (halves equal): RndA[0..3] ‖ RndB[0..3], twice.
        let rndB = bytes("3B 3D FE 62 81 64 BF DA")
        #expect(
            DESFireAuthentication.tripleDESSessionKey(rndA: bytes(Self.rndA), rndB: rndB, singleDES: true)
                == bytes("49 EC 63 DE 3B 3D FE 62 49 EC 63 DE 3B 3D FE 62"))
        #expect(
            DESFireAuthentication.tripleDESSessionKey(rndA: bytes(Self.rndA), rndB: rndB, singleDES: false)
                == bytes("49 EC 63 DE 3B 3D FE 62 CD E0 07 72 81 64 BF DA"))
    }

    @Test func aWrongAnswerOrAWrongKeyIsRefused() throws {
        var tampered = try DESFireAuthentication(key: .factoryDefault, crypto: openssl)
        _ = try tampered.answer(encryptedRndB: bytes(Self.encryptedRndB), rndA: bytes(Self.rndA))
        var altered = bytes(Self.encryptedRndAPrime)
        altered[7] ^= 1
        #expect(throws: DESFireError.authenticationFailed) { try tampered.finish(encryptedRndAPrime: altered) }
        var other = try DESFireAuthentication(key: .tripleDES((0..<16).map { UInt8($0) }), crypto: openssl)
        _ = try other.answer(encryptedRndB: bytes(Self.encryptedRndB), rndA: bytes(Self.rndA))
        #expect(throws: DESFireError.authenticationFailed) {
            try other.finish(encryptedRndAPrime: bytes(Self.encryptedRndAPrime))
        }
        #expect(throws: DESFireError.self) {
            var short = try DESFireAuthentication(key: .factoryDefault, crypto: openssl)
            _ = try short.answer(encryptedRndB: bytes("01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10"), rndA: [1])
        }
    }

    @Test func aDESKeyIsOneWhoseHalvesAreEqualBitForBit() {
        #expect(DESFireAuthentication.isSingleDES([UInt8](repeating: 0, count: 16)))
        let versioned: [UInt8] = [1, 0, 1, 0, 0, 0, 0, 1]
        #expect(DESFireAuthentication.isSingleDES(versioned + versioned))
        // libfreefare's 2K3DES keys differ from DES in the second half's parity bits alone.
        #expect(!DESFireAuthentication.isSingleDES(versioned + [UInt8](repeating: 0, count: 8)))
        #expect(!DESFireAuthentication.isSingleDES([2] + [UInt8](repeating: 0, count: 15)))
    }

    @Test func theTripleDESCMACIsSP800_38Bs64BitCMAC() throws {
        let key = bytes("01 23 45 67 89 AB CD EF 23 45 67 89 AB CD EF 01")
        let message = bytes(
            "6B C1 BE E2 2E 40 9F 96 E9 3D 7E 11 73 93 17 2A AE 2D 8A 57 1E 03 AC 9C 9E B7 6F AC 45 AF 8E 51")
        let blocks = DESFireTripleDESBlocks(openssl)
        let zero = [UInt8](repeating: 0, count: 8)
        for (length, expected) in [
            (0, "79ce52a7f786a960"), (16, "cc18a0b79af2413b"), (20, "c06d377ecd101969"), (32, "9cd33580f9b64dfb"),
        ] {
            let mac = try DESFireCMAC.mac(key: key, iv: zero, message: Array(message.prefix(length)), blocks: blocks)
            #expect(Hex.encode(mac) == expected, "\(length) bytes")
        }
    }

    /// The factory card's master key opened with AuthenticateISO, its real UID read enciphered, and the key changed
    /// to AES (ChangeKey 80): the client's frames and its reading of the card's, in one triple DES session.
    @Test func aFactoryCardsSessionReadsTheUIDAndChangesTheMasterKeyToAES() throws {
        let uid = bytes("04 52 7A 61 12 34 80")
        let newKey = (0..<16).map { UInt8($0) }
        let card = ScriptedDESFireCard([
            (DESFireAPDU.wrap(command: 0x1A, data: [0x00]), bytes(Self.encryptedRndB) + [0x91, 0xAF]),
            (DESFireAPDU.wrap(command: 0xAF, data: bytes(Self.sent)), bytes(Self.encryptedRndAPrime) + [0x91, 0x00]),
            // GetCardUID: in plain (its CMAC, A9A29071D1B23E93, only moves the IV); the answer enciphered from it.
            (DESFireAPDU.wrap(command: 0x51, data: []), bytes("11 05 2A 31 28 A2 C7 00 F9 B3 7F 9A 25 05 EC 2B 91 00")),
            // ChangeKey 80: the new AES key ‖ version 1 ‖ CRC32, enciphered from the last block the card sent.
            (
                DESFireAPDU.wrap(
                    command: 0xC4,
                    data: [0x80] + bytes("BF 65 84 5F 12 5D 11 F9 B1 BF C2 71 8C 5A 77 90 C2 5B DE 43 4E 25 8B B4")),
                [0x91, 0x00]
            ),
        ])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: bytes(Self.rndA)))
        try client.authenticate(keyNumber: 0, key: .factoryDefault)
        #expect(try client.getCardUID() == uid)
        try client.changeKey(0x80, to: newKey, version: 1, currentKey: nil)
        #expect(!client.isAuthenticated)
        #expect(card.finished)
    }

    @Test func aCardThatRefusesTheKindOfKeyEndsNoSession() throws {
        let card = ScriptedDESFireCard([(DESFireAPDU.wrap(command: 0x1A, data: [0x00]), [0x91, 0xAE])])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: bytes(Self.rndA)))
        #expect(throws: DESFireCommandError.status(.authenticationError)) {
            try client.authenticate(keyNumber: 0, key: .factoryDefault)
        }
        #expect(!client.isAuthenticated)
    }
}
