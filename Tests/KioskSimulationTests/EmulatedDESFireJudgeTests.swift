import Foundation
import KioskCameraTesting
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// libfreefare as the independent judge of the emulated DESFire card: the card is made a diary card and tapped with
/// the kiosk's own DESFire code (`DESFireTestClient`), then put on an emulated PN532 on a pseudo-terminal, and
/// libfreefare reads it back through libnfc (`desfire-judge`, and libfreefare-bin's `mifare-desfire-info`).
@Suite(.serialized) struct EmulatedDESFireJudgeTests {
    static let uid: [UInt8] = [0x04, 0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF]

    func lines(_ output: String, _ prefix: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix + " ") }
    }

    @Test func libfreefareReadsWhatTheKioskWrote() throws {
        let box = CardBox(EmulatedDESFire(uid: Self.uid, cipher: OpenSSLCrypto()))
        var client = box.client
        try client.provisionDiary(ringRecords: 6)
        let header = (0..<192).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let records = (1...3).map { fill in (0..<112).map { UInt8(truncatingIfNeeded: $0 + fill * 31) } }
        try client.writeDiary(header: header, record: records[0])
        try client.writeDiary(header: header, record: records[1])
        try client.writeDiary(header: header, record: records[2])
        box.card.powerOff()

        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: .desfire(box.card)))
        terminal.start()
        defer { terminal.stop() }
        let judge = try ChildProcess.productPath("desfire-judge")
        let result = try ChildProcess.run(
            judge,
            ["pn532_uart:\(terminal.slavePath)", "4b4431", "1", Hex.encode(DESFireTestClient.appKeys[1]), "--uid"],
            timeout: 120)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(lines(out, "version") == ["version 04010101001805 04010101041805 \(Hex.encode(Self.uid))"])
        #expect(lines(out, "free") == ["free \(box.card.image.freeMemory)"])
        #expect(lines(out, "aids") == ["aids 4b4431"])
        #expect(lines(out, "auth") == ["auth ok"])
        #expect(lines(out, "carduid") == ["carduid \(Hex.encode(Self.uid))"])
        #expect(lines(out, "files") == ["files 1 2"])
        #expect(
            lines(out, "file") == [
                "file 1 type=1 comm=3 access=1110 size=192",
                "file 2 type=4 comm=3 access=1110 size=112 max=6 current=3",
            ])
        #expect(lines(out, "data") == ["data 1 \(Hex.encode(header))"])
        #expect(lines(out, "record") == records.enumerated().map { "record 2 \($0.offset) \(Hex.encode($0.element))" })
    }

    @Test func libfreefareWritesAndCommitsWhatTheKioskReads() throws {
        let box = CardBox(EmulatedDESFire(uid: Self.uid, cipher: OpenSSLCrypto()))
        var client = box.client
        try client.provisionDiary(ringRecords: 4)
        box.card.powerOff()
        let emulator = PN532Emulator(card: .desfire(box.card))
        let terminal = try PN532PseudoTerminal(emulator: emulator)
        terminal.start()
        let written = (0..<192).map { UInt8(255 - $0) }
        let result = try ChildProcess.run(
            try ChildProcess.productPath("desfire-judge"),
            [
                "pn532_uart:\(terminal.slavePath)", "4b4431", "1", Hex.encode(DESFireTestClient.appKeys[1]),
                "--commit-file", "1", Hex.encode(written),
            ],
            timeout: 120)
        terminal.stop()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(lines(result.standardOutput, "data") == ["data 1 \(Hex.encode(written))"])
        let after = CardBox(try #require(emulator.desfireCard))
        after.card.powerOff()
        after.card.activate()
        var reader = after.client
        #expect(try reader.readDiary().header == written)
    }

    /// A factory-fresh card as libfreefare knows a real one: its DES master key opens with
    /// `mifare_desfire_authenticate_iso` and libfreefare's DES key of zeros, the 2K3DES session's CMACs and enciphered
    /// UID verify, and `mifare_desfire_change_key` makes the master key the AES key that
    /// `mifare_desfire_authenticate_aes` then opens.
    @Test func libfreefareOpensTheFactoryDESKeyAndChangesItToAES() throws {
        let box = CardBox(EmulatedDESFire(uid: Self.uid, cipher: OpenSSLCrypto()))
        box.card.powerOff()
        let emulator = PN532Emulator(card: .desfire(box.card))
        let terminal = try PN532PseudoTerminal(emulator: emulator)
        terminal.start()
        let aesKey = (0..<16).map { UInt8(0x3C ^ $0 * 17) }
        let result = try ChildProcess.run(
            try ChildProcess.productPath("desfire-judge"),
            ["pn532_uart:\(terminal.slavePath)", "--factory", Hex.encode(aesKey), "2a"], timeout: 120)
        terminal.stop()
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            out == [
                "rawsettings 0f019100",  // key settings 0F, one key of type 00: DES
                "keysettings 0f 1", "keyversion 00",
                "auth-iso ok",
                "keysettings 0f 1", "keyversion 00",
                "carduid \(Hex.encode(Self.uid))",
                "changekey ok",
                "auth-iso refused ae",
                "auth-aes ok",
                "keysettings 0f 1", "keyversion 2a",
                "rawsettings 0f819100",  // one key of type 80: AES
            ])
        let card = try #require(emulator.desfireCard)
        #expect(card.image.piccKey == DESFireKeySlot(value: aesKey, version: 0x2A))
    }

    @Test func mifareDesfireInfoReadsTheEmulatedCard() throws {
        let tool = "/usr/bin/mifare-desfire-info"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            Issue.record("mifare-desfire-info is not installed (board/kiosk-dev installs libfreefare-bin)")
            return
        }
        let terminal = try PN532PseudoTerminal(
            emulator: PN532Emulator(card: .desfire(EmulatedDESFire(uid: Self.uid, cipher: OpenSSLCrypto()))))
        terminal.start()
        defer { terminal.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_DEFAULT_DEVICE"] = "pn532_uart:\(terminal.slavePath)"
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        let result = try ChildProcess.run(tool, [], environment: environment, timeout: 120)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("UID:                      0x\(Hex.encode(Self.uid))"))
        #expect(out.contains("Storage size:         0x18 (=4096 bytes)"))
        #expect(out.contains("Free memory: 4864 bytes"))
        #expect(out.contains("Master Key settings (0x0f)"))
    }
}
