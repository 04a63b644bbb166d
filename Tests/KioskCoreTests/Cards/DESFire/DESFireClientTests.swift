import KioskCore
import KioskOpenSSL
import Testing

/// `DESFireClient` against scripted cards: the exact APDUs of published sessions, AF-continued frames both ways,
/// enciphered commands and answers, and how errors and a card taken away end the session.
@Suite struct DESFireClientTests {
    let ramp = (0..<0x50).map { UInt8($0) }

    /// 90 INS 00 00 [Lc data] 00, written out by hand.
    func apdu(_ ins: UInt8, _ data: [UInt8] = []) -> [UInt8] {
        [0x90, ins, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]
    }

    /// The authentication of Elmü's "DESFire EV1 communication examples" session with the AES key
    /// 10 18 20 … 88 as key 0, RndA 40 E7 D2 71 …, as recorded in patsys/desfire-python `test.py` (`File()`);
    /// the same exchange as `DESFireAESAuthenticationTests`' second example.
    static let fileSessionKey = desfireBytes("10 18 20 28 30 38 40 48 50 58 60 68 70 78 80 88")
    static let fileSessionRndA = desfireBytes("40 E7 D2 71 74 CB A6 75 E8 EF BA B9 9C 53 0E 3D")
    static let fileSessionKeyOfSession = desfireBytes("40 E7 D2 71 62 6F FB D4 9C 53 0E 3D 30 4F 5B 17")

    func fileSessionAuthentication() -> [(apdu: [UInt8], answer: [UInt8]?)] {
        [
            (wrapped("AA 00"), answered("B3 51 CB 24 65 D4 F3 3A C6 27 FD 6E 87 A1 68 F2", status: 0xAF)),
            (
                wrapped(
                    "AF 04 4B 6C AC 34 3A 08 65 89 51 49 64 9C A8 DD E1 F5 AC 4E C6 7B D2 08 90 0A F0 2F 04 9E 05 F0 B0"
                ),
                answered("A2 EE 14 4B 10 12 FB EB 7B 2F 11 13 2D 95 A4 54")
            ),
        ]
    }

    /// The whole session of that trace, every APDU checked: AuthenticateAES, CreateStdDataFile, GetFileIDs,
    /// GetFileSettings, two WriteData, two ReadData, DeleteFile, file 5 in plain communication, each answer's CMAC
    /// verified through the chained IV. The trace sent the first WriteData's 59 bytes in one native frame; the
    /// client cuts it at 55 bytes and continues with AF (the CMAC covers the whole command, so the card's answer is
    /// the trace's). The second ReadData's answer is given in two frames to join (the card of the trace sent one).
    @Test func publishedSessionFrameByFrame() throws {
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [
                (wrapped("CD 05 00 11 00 50 00 00"), answered("A7 53 16 AD 15 96 B9 53")),
                (wrapped("6F"), answered("05 2D 5F F6 7F FE C9 D2 D3")),
                (wrapped("F5 05"), answered("00 00 11 00 50 00 00 2A AC 75 17 02 4E 09 DC")),
                (apdu(0x3D, desfireBytes("05 00 00 00 34 00 00") + ramp[0..<48]), answered("", status: 0xAF)),
                (apdu(0xAF, Array(ramp[48..<52])), answered("76 5C 9D AA 50 EC B6 2F")),
                (apdu(0x3D, desfireBytes("05 34 00 00 1C 00 00") + ramp[52..<80]), answered("3E 0A ED 98 6B 8B 0F 37")),
                (wrapped("BD 05 00 00 00 30 00 00"), Array(ramp[0..<48]) + answered("4C 65 F1 F8 42 26 2B AC")),
                (wrapped("BD 05 30 00 00 20 00 00"), Array(ramp[48..<64]) + [0x91, 0xAF]),
                (wrapped("AF"), Array(ramp[64..<80]) + answered("F0 22 05 CF 91 3C 03 C9")),
                (wrapped("DF 05"), answered("1B EF 0D 32 B6 D1 D7 F9")),
            ])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: Self.fileSessionRndA))
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        #expect(client.isAuthenticated && client.authenticatedKeyNumber == 0)
        let rights = DESFireAccessRights(bytes: [0x11, 0x00])
        #expect(rights == DESFireAccessRights(read: 0, write: 0, readWrite: 1, change: 1))
        try client.createStandardDataFile(5, communication: .plain, accessRights: rights, size: 0x50)
        #expect(try client.getFileIDs() == [5])
        #expect(
            try client.getFileSettings(5)
                == DESFireFileSettings(type: .standardData, communication: .plain, accessRights: rights, size: 0x50))
        try client.writeData(5, offset: 0, data: Array(ramp[0..<0x34]), communication: .plain)
        try client.writeData(5, offset: 0x34, data: Array(ramp[0x34..<0x50]), communication: .plain)
        #expect(try client.readData(5, offset: 0, length: 0x30, communication: .plain) == Array(ramp[0..<0x30]))
        #expect(try client.readData(5, offset: 0x30, length: 0x20, communication: .plain) == Array(ramp[0x30..<0x50]))
        try client.deleteFile(5)
        #expect(client.isAuthenticated)
        #expect(card.finished)
    }

    /// ChangeKey of the session's own key ends the session: Elmü's AES example (key 0 from the zero key to
    /// 00 10 20 … 80, version 10), as quoted in skelsec/pydesfire `tests.py` (`AuthTest_AES`, `ChangeKeyTest_AES`).
    /// The card answers with its status alone, without a CMAC.
    @Test func changeKeyOfTheSessionsKey() throws {
        let card = ScriptedDESFireCard([
            (wrapped("AA 00"), answered("B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E", status: 0xAF)),
            (
                wrapped(
                    "AF 36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74"
                ),
                answered("80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59")
            ),
            (
                wrapped(
                    "C4 00 E9 F8 5E 21 94 96 C2 B5 8C 10 90 DC 39 35 FA E9 E8 40 CF 61 B3 83 D9 53 19 46 25 6B 1F 11 0C 10"
                ),
                answered("")
            ),
        ])
        let client = DESFireClient(
            transport: card,
            crypto: FixedRandomCrypto(random: desfireBytes("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81")))
        try client.authenticate(keyNumber: 0, key: [UInt8](repeating: 0, count: 16))
        try client.changeKey(
            0, to: desfireBytes("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80"), version: 0x10, currentKey: nil)
        #expect(!client.isAuthenticated)
        #expect(card.finished)
        // Changing another key needs its current value; without a session nothing is sent.
        #expect(throws: DESFireCommandError.notAuthenticated) {
            try client.changeKey(1, to: [UInt8](repeating: 1, count: 16), version: 1, currentKey: nil)
        }
    }

    /// GetVersion's three frames joined, outside a session: the frames of a real DESFire EV1 (8 KB) from
    /// patsys/desfire-python `test.py` (`Test_DES`, GetCardVersion; the last frame without its session's CMAC).
    @Test func getVersionJoinsThreeFrames() throws {
        let card = ScriptedDESFireCard([
            (wrapped("60"), answered("04 01 01 01 00 1A 05", status: 0xAF)),
            (wrapped("AF"), answered("04 01 01 01 04 1A 05", status: 0xAF)),
            (wrapped("AF"), answered("04 06 3F 72 63 34 80 BA 45 19 E3 20 49 13")),
        ])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        let version = try client.getVersion()
        #expect(version.isDESFire)
        #expect(version.hardwareMajorVersion == 0x01)
        #expect(version.storageSize == 8192)
        #expect(version.softwareMinorVersion == 0x04)
        #expect(version.uid == desfireBytes("04 06 3F 72 63 34 80"))
        #expect(version.productionYear == 0x13)
    }

    /// A long write without a session: 7 header bytes and 120 data bytes in frames of 55, 55 and 17, each
    /// intermediate one answered AF.
    @Test func longCommandInFramesContinuedWithAF() throws {
        let data = (0..<120).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let body = [0x01, 0x10, 0x00, 0x00, 0x78, 0x00, 0x00] + data
        let card = ScriptedDESFireCard([
            (apdu(0x3D, Array(body[0..<55])), answered("", status: 0xAF)),
            (apdu(0xAF, Array(body[55..<110])), answered("", status: 0xAF)),
            (apdu(0xAF, Array(body[110...])), answered("")),
        ])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        try client.writeData(1, offset: 0x10, data: data, communication: .plain)
        #expect(card.finished)
    }

    /// A card that refuses a frame of a long command ends it there with its status.
    @Test func refusalInTheMiddleOfALongCommand() throws {
        let data = [UInt8](repeating: 0xAB, count: 100)
        let body = [0x01, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00] + data
        let card = ScriptedDESFireCard([
            (apdu(0x3D, Array(body[0..<55])), answered("", status: 0xAF)),
            (apdu(0xAF, Array(body[55...])), answered("", status: 0xBE)),
        ])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        #expect(throws: DESFireCommandError.status(.boundaryError)) {
            try client.writeData(1, offset: 0, data: data, communication: .plain)
        }
    }

    /// An error status in a session ends it: the session key is wiped, the next command goes without a CMAC.
    @Test func errorStatusEndsTheSession() throws {
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [
                (wrapped("F5 07"), answered("", status: 0xF0)),
                (wrapped("6F"), answered("01 02")),
            ])
        let crypto = FixedRandomCrypto(random: Self.fileSessionRndA)
        let client = DESFireClient(transport: card, crypto: crypto)
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        // The authentication wipes its own copy of the session key; the channel's is wiped when the session ends.
        let copiesWiped = { crypto.wipedBuffers.filter { $0 == Self.fileSessionKeyOfSession }.count }
        #expect(copiesWiped() == 1)
        #expect(throws: DESFireCommandError.status(.fileNotFound)) { try client.getFileSettings(7) }
        #expect(!client.isAuthenticated)
        #expect(copiesWiped() == 2)
        #expect(try client.getFileIDs() == [1, 2])
        #expect(card.finished)
    }

    /// A card that does not hold the key refuses the second step.
    @Test func wrongKeyIsAnAuthenticationError() throws {
        let card = ScriptedDESFireCard([
            (wrapped("AA 02"), answered("B3 51 CB 24 65 D4 F3 3A C6 27 FD 6E 87 A1 68 F2", status: 0xAF)),
            (
                wrapped(
                    "AF 04 4B 6C AC 34 3A 08 65 89 51 49 64 9C A8 DD E1 F5 AC 4E C6 7B D2 08 90 0A F0 2F 04 9E 05 F0 B0"
                ),
                answered("", status: 0xAE)
            ),
        ])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: Self.fileSessionRndA))
        #expect(throws: DESFireCommandError.status(.authenticationError)) {
            try client.authenticate(keyNumber: 2, key: Self.fileSessionKey)
        }
        #expect(!client.isAuthenticated)
    }

    /// A card taken away between two frames of a long command: the transport's error, the session dropped and
    /// its key wiped.
    @Test func cardGoneMidCommand() throws {
        let data = [UInt8](repeating: 0x5A, count: 60)
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [
                (apdu(0x3D, [0x01, 0x00, 0x00, 0x00, 0x3C, 0x00, 0x00] + data[0..<48]), answered("", status: 0xAF)),
                (apdu(0xAF, Array(data[48...])), nil),
            ])
        let crypto = FixedRandomCrypto(random: Self.fileSessionRndA)
        let client = DESFireClient(transport: card, crypto: crypto)
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        do {
            try client.writeData(1, offset: 0, data: data, communication: .plain)
            Issue.record("a write to a card that left must fail")
        } catch {
            #expect(error == .transport(DESFireTransportError(.cardGone)))
            #expect(error.isCardGone)
        }
        #expect(!client.isAuthenticated)
        #expect(crypto.wipedBuffers.filter { $0 == Self.fileSessionKeyOfSession }.count == 2)
        #expect(card.finished)
    }

    /// A card gone while the answer's frames are asked for.
    @Test func cardGoneWhileJoiningTheAnswer() throws {
        let card = ScriptedDESFireCard([
            (wrapped("60"), answered("04 01 01 01 00 1A 05", status: 0xAF)),
            (wrapped("AF"), nil),
        ])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        #expect(throws: DESFireCommandError.transport(DESFireTransportError(.cardGone))) { try client.getVersion() }
    }

    /// A card that is not a DESFire answers GetVersion with an ISO status word.
    @Test func notADESFire() throws {
        let card = ScriptedDESFireCard([(wrapped("60"), [0x6D, 0x00])])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        #expect(throws: DESFireCommandError.unexpectedStatusWord(0x6D, 0x00)) { try client.getVersion() }
    }

    /// Enciphered commands and answers need a session: refused before anything is sent.
    @Test func encipheredCommandsNeedASession() throws {
        let card = ScriptedDESFireCard([])
        let client = DESFireClient(transport: card, crypto: OpenSSLCrypto())
        #expect(throws: DESFireCommandError.notAuthenticated) { try client.getCardUID() }
        #expect(throws: DESFireCommandError.notAuthenticated) { try client.enableRandomUID() }
        #expect(throws: DESFireCommandError.notAuthenticated) {
            try client.changeKeySettings(DESFireKeySettings(rawValue: 0x0F))
        }
        #expect(card.sent.isEmpty)
    }

    /// In the trace's session: SetConfiguration's data enciphered from the IV zero, the card's CMAC over its
    /// status from the IV the cryptogram left; then GetCardUID, its command's CMAC advancing the IV and its
    /// answer enciphered from there. The card's side is computed here with OpenSSL's AES and CMAC, apart from the
    /// client's channel.
    @Test func encipheredCommandAndAnswer() throws {
        let openssl = OpenSSLCrypto()
        let key = Self.fileSessionKeyOfSession
        let zero = [UInt8](repeating: 0, count: 16)
        let configuration =
            [0x02] + DESFireCRC32.bytes([0x5C, 0x00, 0x02]) + [UInt8](repeating: 0, count: 11)
        let cryptogram = try openssl.aes128CBCEncrypt(key: key, iv: zero, blocks: configuration)
        let statusMAC = try DESFireCMAC.mac(key: key, iv: cryptogram, message: [0x00], cipher: openssl)
        let uidCommandMAC = try DESFireCMAC.mac(key: key, iv: statusMAC, message: [0x51], cipher: openssl)
        let uid = desfireBytes("04 78 2E 21 80 1D 80")
        let uidAnswer = try openssl.aes128CBCEncrypt(
            key: key, iv: uidCommandMAC,
            blocks: uid + DESFireCRC32.bytes(uid + [0x00]) + [UInt8](repeating: 0, count: 5))
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [
                (apdu(0x5C, [0x00] + cryptogram), Array(statusMAC.prefix(8)) + [0x91, 0x00]),
                (wrapped("51"), uidAnswer + [0x91, 0x00]),
            ])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: Self.fileSessionRndA))
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        try client.enableRandomUID()
        #expect(try client.getCardUID() == uid)
        #expect(client.isAuthenticated)
        #expect(card.finished)
    }

    /// A CMAC that does not verify ends the session as a secure-messaging error.
    @Test func wrongAnswerCMACEndsTheSession() throws {
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [(wrapped("6F"), answered("05 2D 5F F6 7F FE C9 D2 D4"))])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: Self.fileSessionRndA))
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        #expect(throws: DESFireCommandError.secureMessaging(.macMismatch)) { try client.getFileIDs() }
        #expect(!client.isAuthenticated)
    }

    /// SelectApplication ends the session before it is sent: sent in plain, answered without a CMAC.
    @Test func selectApplicationEndsTheSession() throws {
        let card = ScriptedDESFireCard(
            fileSessionAuthentication() + [(wrapped("5A 31 44 4B"), answered(""))])
        let client = DESFireClient(transport: card, crypto: FixedRandomCrypto(random: Self.fileSessionRndA))
        try client.authenticate(keyNumber: 0, key: Self.fileSessionKey)
        try client.selectApplication(DESFireApplicationID(0x4B_4431))
        #expect(!client.isAuthenticated)
        #expect(card.finished)
    }
}
