import KioskCore
import KioskSimulation
import Testing

@Suite struct PN532FrameTests {
    @Test func parsesFramesAfterWakeUpPreamble() {
        var parser = PN532FrameParser()
        let command = PN532Frame.encode([0xD4, 0x02])
        #expect(command == [0x00, 0x00, 0xFF, 0x02, 0xFE, 0xD4, 0x02, 0x2A, 0x00])
        let frames = parser.feed([0x55, 0x55, 0x00, 0x00, 0x00] + command + PN532Frame.ack + PN532Frame.nack)
        #expect(frames == [.information([0xD4, 0x02]), .ack, .nack])
    }

    @Test func parsesSplitAndExtendedFrames() {
        var parser = PN532FrameParser()
        let data = [0xD4, 0x40, 0x01] + [UInt8](repeating: 0x5A, count: 300)
        let frame = PN532Frame.encode(data)
        #expect(Array(frame[0..<5]) == [0x00, 0x00, 0xFF, 0xFF, 0xFF])
        var frames: [PN532HostFrame] = []
        for byte in frame { frames += parser.feed([byte]) }
        #expect(frames == [.information(data)])
    }

    @Test func reportsBadChecksums() {
        var parser = PN532FrameParser()
        var frame = PN532Frame.encode([0xD4, 0x02])
        frame[frame.count - 2] ^= 1
        #expect(parser.feed(frame) == [.malformed])
        #expect(parser.feed([0x00, 0x00, 0xFF, 0x05, 0x05]) == [.malformed])
    }

    @Test func crcAKnownAnswer() {
        // READ page 0 as sent on air: 30 00 02 A8.
        #expect(ISO14443A.crc([0x30, 0x00]) == [0x02, 0xA8])
    }
}

@Suite struct PN532ChipTests {
    let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]

    func exchange(_ chip: inout PN532Chip, _ data: [UInt8]) -> [UInt8] {
        let out = chip.receive(PN532Frame.encode([0xD4] + data), now: .now)
        #expect(Array(out.prefix(6)) == PN532Frame.ack)
        var parser = PN532FrameParser()  // the reply has the same framing as a host frame
        guard case .information(let reply)? = parser.feed(out.dropFirst(6)).first else { return [] }
        return Array(reply.dropFirst(2))
    }

    @Test func firmwareVersionAndDiagnose() {
        var chip = PN532Chip()
        #expect(exchange(&chip, [0x02]) == [0x32, 0x01, 0x06, 0x07])
        #expect(exchange(&chip, [0x00, 0x00, 0x6C, 0x69]) == [0x00, 0x6C, 0x69])
    }

    @Test func listsTagAndExchangesData() {
        var chip = PN532Chip()
        chip.place(.blank(.ntag213, uid: uid))
        #expect(exchange(&chip, [0x4A, 0x01, 0x00]) == [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + uid)
        #expect(exchange(&chip, [0x40, 0x01, 0x60]) == [0x00] + NTAGModel.ntag213.version)
        #expect(exchange(&chip, [0x40, 0x01, 0xA2, 0x04, 1, 2, 3, 4]) == [0x00])
        #expect(exchange(&chip, [0x40, 0x01, 0x30, 0x04]) == [0x00, 1, 2, 3, 4] + [UInt8](repeating: 0, count: 12))
        chip.removeCard()
        #expect(exchange(&chip, [0x40, 0x01, 0x30, 0x04]) == [0x01])
    }

    @Test func waitingSearchIsAbortedByHostACK() {
        var chip = PN532Chip()
        let out = chip.receive(PN532Frame.encode([0xD4, 0x60, 0xFF, 0x01, 0x10]), now: .now)
        #expect(out == PN532Frame.ack)
        #expect(chip.isWaitingForCard)
        #expect(chip.receive(PN532Frame.ack, now: .now).isEmpty)
        #expect(!chip.isWaitingForCard && chip.abortedCommands == 1)
    }

    @Test func waitingSearchAnswersWhenCardArrives() {
        var chip = PN532Chip()
        _ = chip.receive(PN532Frame.encode([0xD4, 0x60, 0xFF, 0x01, 0x10]), now: .now)
        #expect(chip.tick(now: .now).isEmpty)
        chip.place(.blank(.ntag215, uid: uid))
        var parser = PN532FrameParser()
        #expect(
            parser.feed(chip.tick(now: .now)) == [
                .information([0xD5, 0x61, 0x01, 0x10, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07] + uid)
            ])
    }
}

@Suite struct EmulatedTagTests {
    let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]

    @Test(arguments: NTAGModel.allCases)
    func memoryMapAndDefaults(_ model: NTAGModel) {
        var tag = EmulatedTag(model: model, uid: uid)
        tag.select()
        #expect(tag.handle([0x60]) == .data(model.version))
        #expect(tag.page(model.configPage)[3] == 0xFF)  // AUTH0: no protection
        #expect(tag.page(model.configPage + 2) == [0xFF, 0xFF, 0xFF, 0xFF])  // PWD
        #expect(tag.handle([0x30, UInt8(model.pageCount)]) == .nak(0))
    }

    @Test func passwordProtectsReadsAndWrites() {
        var tag = EmulatedTag(model: .ntag213, uid: uid)
        tag.select()
        #expect(tag.handle([0xA2, 43, 1, 2, 3, 4]) == .ack)  // PWD
        #expect(tag.handle([0xA2, 44, 0xAB, 0xCD, 0, 0]) == .ack)  // PACK
        #expect(tag.handle([0xA2, 42, 0x80, 0, 0, 0]) == .ack)  // ACCESS: PROT
        #expect(tag.handle([0xA2, 41, 4, 0, 0, 4]) == .ack)  // AUTH0 = 4
        #expect(tag.handle([0x30, 4]) == .nak(0))
        tag.select()
        if case .data(let bytes) = tag.handle([0x30, 0]) {
            #expect(bytes.count == 16)
        } else {
            Issue.record("pages below AUTH0 stay readable")
        }
        #expect(tag.handle([0xA2, 5, 9, 9, 9, 9]) == .nak(0))
        tag.select()
        #expect(tag.handle([0x1B, 1, 2, 3, 5]) == .nak(0))
        tag.select()
        #expect(tag.handle([0x1B, 1, 2, 3, 4]) == .data([0xAB, 0xCD]))
        #expect(tag.handle([0xA2, 5, 9, 9, 9, 9]) == .ack)
        #expect(tag.handle([0x3A, 43, 44]) == .data([UInt8](repeating: 0, count: 8)))  // PWD/PACK read as zeros
        tag.powerOff()
        tag.select()
        #expect(tag.handle([0x3A, 4, 5]) == .nak(0))
    }

    @Test func tornWriteLeavesHalfPage() {
        var tag = EmulatedTag(model: .ntag213, uid: uid)
        tag.select()
        #expect(tag.handle([0xA2, 6, 1, 1, 1, 1]) == .ack)
        #expect(tag.handle([0xA2, 6, 2, 2, 2, 2], tearWrite: true) == .silent)
        #expect(tag.page(6) == [2, 2, 1, 1])
        #expect(tag.handle([0x30, 0]) == .silent)
    }
}
