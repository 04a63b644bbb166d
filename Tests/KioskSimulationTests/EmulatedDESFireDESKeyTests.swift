import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// The emulated card's DES card master key, as a factory-new EV1, EV2 or EV3 has it (2K3DES of zeros, K1 = K2,
/// version 0), and the session it opens: AuthenticateISO and EV1 secure messaging under 2K3DES, checked with the
/// tests' own host side (`TripleDESTestChannel`), then ChangeKey to an AES master key.
@Suite struct EmulatedDESFireDESKeyTests {
    static let uid: [UInt8] = [0x04, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76]
    static let aesKey: [UInt8] = (0..<16).map { UInt8(0xC0 + $0) }

    func freshCard() -> CardBox { CardBox(EmulatedDESFire(uid: Self.uid, cipher: OpenSSLCrypto())) }

    /// The test host's 64-bit CMAC against OpenSSL 3's own (`openssl mac -cipher DES-EDE-CBC -macopt
    /// hexkey:0123456789abcdeffedcba9876543210 CMAC`, messages the first 0, 8 and 20 bytes of SP 800-38B's example).
    @Test func testHostCMACMatchesOpenSSL() throws {
        let key = try #require(Hex.decode("0123456789abcdeffedcba9876543210"))
        let message = try #require(Hex.decode("6bc1bee22e409f96e93d7e117393172aae2d8a57"))
        let vectors: [(Int, String)] = [(0, "5b560372570d37cb"), (8, "0ac36c430011f46b"), (20, "18d864160c494386")]
        for (length, tag) in vectors {
            let mac = try TripleDESTestChannel.cmac(key: key, message: Array(message.prefix(length)))
            #expect(Hex.encode(mac) == tag, "message of \(length) bytes")
        }
    }

    @Test func factoryCardHasTheDESMasterKey() throws {
        let box = freshCard()
        #expect(box.card.image.piccKey == DESFireKeySlot(tripleDES: DESFireTestClient.zeroKey))
        #expect(box.card.image.piccKey.type == .tripleDES)
        var client = box.client
        // Key settings 0F; one key, its type bits 00: DES.
        #expect(try client.plain([0x45]) == [0x0F, 0x01])
        #expect(try client.plain([0x64, 0x00]) == [0x00])
    }

    @Test func authenticateISOOpensTheFactoryKeyAndOnlyIt() throws {
        let box = freshCard()
        var client = box.client
        // The first pass costs what AuthenticateAES's does (`DESFireTiming`: a cipher's step, 1 ms).
        #expect(box.card.receive([0x1A, 0x00])?.count == 9)
        #expect(box.card.lastCost.processing == .milliseconds(1))
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        #expect(try client.cardUID() == Self.uid)
        // A wrong key: the card finds RndB′ wrong.
        #expect(throws: DESFireTestClient.Refused(status: 0xAE)) {
            try client.authenticateISO(0, key: [UInt8](repeating: 0x11, count: 16))
        }
        // AuthenticateAES on the DES key, and the legacy Authenticate (not emulated).
        #expect(box.card.receive([0xAA, 0x00]) == [0xAE])
        #expect(box.card.receive([0x0A, 0x00]) == [0x1C])
        #expect(box.card.receive([0x1A, 0x01]) == [0x40])
        // AuthenticateISO on an application's AES key.
        try client.plain([0xCA, 1, 0, 0, 0x0F, 0x81])
        try client.select([1, 0, 0])
        #expect(box.card.receive([0x1A, 0x00]) == [0xAE])
        try client.authenticate(0, key: DESFireTestClient.zeroKey)
    }

    /// A whole session under 2K3DES: plain commands with their CMACs both ways, an enciphered command, enciphered
    /// answers, and the commands of making a card (CreateApplication, FormatPICC), the IV chained through all.
    @Test func tripleDESSessionRunsEV1SecureMessaging() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        #expect(try client.plain([0x45]) == [0x0F, 0x01])
        #expect(try client.plain([0x64, 0x00]) == [0x00])
        #expect(try client.plain([0x6E]) == DESFireTestClient.le24(4864))
        // The enciphered UID: 7 bytes ‖ CRC32 in two 8-byte blocks.
        let raw = box.card.receive([0x51]) ?? []
        #expect(raw.count == 17 && raw.first == 0x00)
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        #expect(try client.cardUID() == Self.uid)
        try client.plain([0xCA] + DESFireTestClient.diaryAID + [0x0F, 0x83])
        #expect(try client.plain([0x6A]) == DESFireTestClient.diaryAID)
        // SetConfiguration, enciphered: random UID on.
        try client.enciphered(header: [0x5C, 0x00], data: [0x02])
        #expect(box.card.image.randomUID)
        try client.enciphered(header: [0x54], data: [0x0F])
        try client.plain([0xFC])
        #expect(try client.plain([0x6A]).isEmpty)
        #expect(try client.cardUID() == Self.uid)
        // A DES application is not emulated.
        #expect(throws: DESFireTestClient.Refused(status: 0x9E)) { try client.plain([0xCA, 2, 0, 0, 0x0F, 0x03]) }
    }

    @Test func changeKeyMakesTheMasterKeyAnAESKey() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        // 3K3DES (key number 40) is refused.
        let refused = box.card.receive([0xC4, 0x40] + [UInt8](repeating: 0, count: 32))
        #expect(refused == [0x9E])
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        try client.changeKey(0x80, to: Self.aesKey, version: 0x2A, old: nil)
        #expect(box.card.image.piccKey == DESFireKeySlot(value: Self.aesKey, version: 0x2A))
        #expect(throws: DESFireTestClient.Refused(status: 0xAE)) {
            try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        }
        try client.authenticate(0, key: Self.aesKey)
        #expect(try client.plain([0x64, 0x00]) == [0x2A])
        #expect(try client.plain([0x45]) == [0x0F, 0x81])
        #expect(try client.cardUID() == Self.uid)
    }

    /// ChangeKey 00 from the DES session: a 2K3DES key (halves unequal), its version in its first half's parity bits;
    /// AuthenticateISO with it then derives the 2K3DES session key (RndA[0..3] ‖ RndB[0..3] ‖ RndA[4..7] ‖ RndB[4..7]).
    @Test func changeKeyToA2K3DESKeyWithItsVersionInTheParityBits() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        // Version A5 = 1010 0101 in the low bits of bytes 0–7.
        let version: UInt8 = 0xA5
        let key = (0..<16).map { index in
            let byte = UInt8(0x10 * (index % 8) + (index < 8 ? 0x02 : 0x84))
            return index < 8 ? byte | version >> (7 - index) & 1 : byte
        }
        try client.changePICCKeyToTripleDES(key)
        #expect(box.card.image.piccKey == DESFireKeySlot(tripleDES: key))
        #expect(try client.plain([0x64, 0x00]) == [version])
        #expect(try client.plain([0x45]) == [0x0F, 0x01])
        try client.authenticateISO(0, key: key)
        #expect(try client.cardUID() == Self.uid)
        #expect(try client.plain([0x64, 0x00]) == [version])
    }

    /// From an AES master key back to DES (ChangeKey 00 in an AES session: 16 bytes ‖ CRC32 in AES blocks).
    @Test func changeKeyFromAnAESSessionBackToDES() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        try client.changeKey(0x80, to: Self.aesKey, version: 1, old: nil)
        try client.authenticate(0, key: Self.aesKey)
        try client.changePICCKeyToTripleDES(DESFireTestClient.zeroKey)
        #expect(box.card.image.piccKey == .factoryPICCKey)
        #expect(box.card.receive([0xAA, 0x00]) == [0xAE])
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        #expect(try client.plain([0x45]) == [0x0F, 0x01])
    }

    @Test func tearingDuringTheDESSessionLosesIt() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        box.card.powerOff()
        box.card.activate()
        #expect(box.card.receive([0x51]) == [0xAE])
    }

    /// A card file from before key types: its slots have no `type`, and every key in it is AES.
    @Test func memoryFileWithoutKeyTypesStillLoads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("desfire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var image = DESFireCardImage(uid: Self.uid)
        image.piccKey = DESFireKeySlot()
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(image)) as? [String: Any]
        var old = try #require(encoded)
        var key = try #require(old["piccKey"] as? [String: Any])
        #expect(key.removeValue(forKey: "type") != nil)
        old["piccKey"] = key
        let path = directory.appendingPathComponent("card.json").path
        try JSONSerialization.data(withJSONObject: old).write(to: URL(fileURLWithPath: path))
        let loaded = try #require(try DESFireCardMemory(path: path).load())
        #expect(loaded.piccKey == DESFireKeySlot())
        var card = try EmulatedDESFire(
            memory: DESFireCardMemory(path: path), initial: DESFireCardImage(uid: Self.uid), cipher: OpenSSLCrypto())
        card.activate()
        var client = CardBox(card).client
        try client.authenticate(0, key: DESFireTestClient.zeroKey)
        #expect(try client.plain([0x45]) == [0x0F, 0x81])
    }
}
