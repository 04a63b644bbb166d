import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Holds an emulated DESFire card for a `DESFireTestClient` sending to it directly (no PN532 in between).
final class CardBox: @unchecked Sendable {
    var card: EmulatedDESFire
    /// Frames sent so far, and the index of the frame the card is to be torn on.
    var frames = 0
    var tearAt: Int?

    init(_ card: EmulatedDESFire) {
        self.card = card
        self.card.activate()
    }

    var client: DESFireTestClient {
        DESFireTestClient { [self] frame in
            defer { frames += 1 }
            let answer = card.receive(frame, tearing: frames == tearAt)
            // A real card's frames carry at most 59 bytes of data besides the status.
            #expect((answer?.count ?? 0) <= 60)
            return answer
        }
    }
}

@Suite struct EmulatedDESFireTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let cipher = OpenSSLCrypto()

    func freshCard(_ capacity: DESFireCapacity = .ev1_4K) -> CardBox {
        CardBox(EmulatedDESFire(uid: Self.uid, capacity: capacity, cipher: cipher))
    }

    func diaryCard(ringRecords: Int = 4) throws -> CardBox {
        let box = freshCard()
        var client = box.client
        try client.provisionDiary(ringRecords: ringRecords)
        return box
    }

    static func header(_ fill: UInt8) -> [UInt8] { [UInt8](repeating: fill, count: 192) }
    static func record(_ fill: UInt8) -> [UInt8] { (0..<112).map { fill &+ UInt8($0) } }

    @Test func freeMemoryIsWhatARealEV1Reports() throws {
        for (capacity, expected) in [(DESFireCapacity.ev1_4K, 4864), (.ev1_8K, 7936)] {
            var client = freshCard(capacity).client
            #expect(try client.plain([0x6E]) == DESFireTestClient.le24(expected))
        }
        let box = try diaryCard(ringRecords: 28)
        // The header's backup file takes 2 × 192 bytes, the ring 28 × 112 = 3,136 bytes, both in 32-byte blocks.
        #expect(box.card.image.freeMemory == 4864 - 384 - 3136)
    }

    @Test func getVersionComesInThreeFramesNativeAndWrapped() {
        let box = freshCard()
        let first = box.card.receive([0x60])
        #expect(first == [0xAF, 0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05])
        #expect(box.card.receive([0xAF]) == [0xAF, 0x04, 0x01, 0x01, 0x01, 0x04, 0x18, 0x05])
        let last = box.card.receive([0xAF]) ?? []
        #expect(last.first == 0x00 && Array(last[1..<8]) == Self.uid && last.count == 15)
        // The same in ISO/IEC 7816-4 wrapping: data ‖ 91 status.
        #expect(
            box.card.receive([0x90, 0x60, 0x00, 0x00, 0x00]) == [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF])
        #expect(box.card.receive([0x90, 0xAF, 0x00, 0x00, 0x00])?.suffix(2) == [0x91, 0xAF])
        #expect(box.card.receive([0x90, 0xAF, 0x00, 0x00, 0x00])?.suffix(2) == [0x91, 0x00])
    }

    @Test func authenticationAnswersTheKiosksOwnSide() throws {
        let box = freshCard()
        var client = box.client
        // An application's AES key 0 (the factory PICC master key is DES: `EmulatedDESFireDESKeyTests`).
        try client.plain([0xCA, 1, 0, 0, 0x0F, 0x81])
        try client.select([1, 0, 0])
        try client.authenticate(0, key: DESFireTestClient.zeroKey)
        // The session the kiosk's DESFireAuthentication derived opens the card's enciphered UID.
        #expect(try client.cardUID() == Self.uid)
        // A wrong key: the kiosk's side sees the card's RndA′ fail (or the card refuses RndB′).
        var wrong = box.client
        #expect(throws: (any Error).self) {
            try wrong.authenticate(0, key: [UInt8](repeating: 0x55, count: 16))
        }
        #expect(box.card.receive([0xAA, 0x05]) == [0x40])
    }

    @Test func provisionedDiaryReadsBackAndCommitsAtomically() throws {
        let box = try diaryCard()
        var client = box.client
        try client.writeDiary(header: Self.header(1), record: Self.record(1))
        var reader = box.client
        var diary = try reader.readDiary()
        #expect(diary.header == Self.header(1))
        #expect(diary.records == [Self.record(1)])
        // Uncommitted writes are not read, and an abort drops them.
        try client.select(DESFireTestClient.diaryAID)
        try client.authenticate(1, key: DESFireTestClient.appKeys[1])
        try client.enciphered(header: [0x3D, 1, 0, 0, 0] + DESFireTestClient.le24(192), data: Self.header(2))
        try client.plain([0xA7])
        diary = try reader.readDiary()
        #expect(diary.header == Self.header(1))
    }

    @Test func cyclicFileKeepsOneRecordFewerThanItsMaximum() throws {
        let box = try diaryCard(ringRecords: 4)
        var client = box.client
        for fill: UInt8 in 1...5 { try client.writeDiary(header: Self.header(fill), record: Self.record(fill)) }
        var reader = box.client
        let diary = try reader.readDiary()
        #expect(diary.records == [Self.record(3), Self.record(4), Self.record(5)])
    }

    @Test func accessRightsAndStatusCodes() throws {
        let box = try diaryCard()
        var client = box.client
        try client.select(DESFireTestClient.diaryAID)
        // Not authenticated: the diary's files need key 1.
        #expect(throws: DESFireTestClient.Refused(status: 0xAE)) { try client.plain([0xBD, 1, 0, 0, 0, 0, 0, 0]) }
        try client.authenticate(2, key: DESFireTestClient.appKeys[2])
        #expect(throws: DESFireTestClient.Refused(status: 0xAE)) { try client.plain([0xBD, 1, 0, 0, 0, 0, 0, 0]) }
        try client.authenticate(1, key: DESFireTestClient.appKeys[1])
        #expect(throws: DESFireTestClient.Refused(status: 0xF0)) { try client.plain([0xBD, 9, 0, 0, 0, 0, 0, 0]) }
        try client.authenticate(1, key: DESFireTestClient.appKeys[1])
        #expect(throws: DESFireTestClient.Refused(status: 0xBE)) {
            try client.readEnciphered([0xBD, 1, 0xC0, 0, 0, 1, 0, 0], length: 1)
        }
        #expect(throws: DESFireTestClient.Refused(status: 0xA0)) { try client.select([1, 2, 3]) }
        try client.select([0, 0, 0])
        #expect(throws: DESFireTestClient.Refused(status: 0xDE)) {
            try client.plain([0xCA] + DESFireTestClient.diaryAID + [0x0F, 0x83])
        }
        #expect(throws: DESFireTestClient.Refused(status: 0x1C)) { try client.plain([0x0B]) }
        #expect(throws: DESFireTestClient.Refused(status: 0x7E)) { try client.plain([0x6E, 0x00]) }
    }

    @Test func keySettingsDeleteAndFormat() throws {
        let box = try diaryCard()
        var client = box.client
        try client.select(DESFireTestClient.diaryAID)
        try client.authenticate(0, key: DESFireTestClient.appKeys[0])
        #expect(try client.plain([0x45]) == [0x0F, 0x83])
        #expect(try client.plain([0x64, 1]) == [0x01])
        try client.enciphered(header: [0x54], data: [0x09])
        #expect(try client.plain([0x45]) == [0x09, 0x83])
        // Deleting the application does not give its memory back; formatting the card does.
        let used = box.card.image.freeMemory
        try client.plain([0xDA] + DESFireTestClient.diaryAID)
        #expect(box.card.image.applications.isEmpty && box.card.image.freeMemory == used)
        #expect(throws: DESFireTestClient.Refused(status: 0xAE)) { try client.plain([0xFC]) }
        try client.select([0, 0, 0])
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        try client.plain([0xFC])
        #expect(try client.plain([0x6E]) == DESFireTestClient.le24(4864))
        #expect(try client.plain([0x6A]).isEmpty)
    }

    @Test func randomUIDHidesTheRealOne() throws {
        let box = freshCard()
        var client = box.client
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        try client.enciphered(header: [0x5C, 0x00], data: [0x02])
        box.card.powerOff()
        box.card.activate()
        let first = box.card.anticollisionUID
        box.card.powerOff()
        box.card.activate()
        #expect(first.count == 4 && first[0] == 0x08)
        #expect(box.card.anticollisionUID.count == 4)
        try client.authenticateISO(0, key: DESFireTestClient.zeroKey)
        #expect(try client.cardUID() == Self.uid)
    }

    /// Tearing at every frame of a tap's write and commit leaves the old diary or the new one, never a mix.
    @Test func tearingAtEveryFrameLeavesOldOrNew() throws {
        let base = try diaryCard()
        var client = base.client
        try client.writeDiary(header: Self.header(1), record: Self.record(1))
        let old = base.card
        // Count the frames of one tap.
        let counting = CardBox(old)
        var counter = counting.client
        try counter.writeDiary(header: Self.header(2), record: Self.record(2))
        let frames = counting.frames
        #expect(frames > 8)
        var untorn = counting.client
        #expect(try untorn.readDiary().records == [Self.record(1), Self.record(2)])
        var sawOld = false
        var sawNew = false
        // Frame `frames` is one after the tap (a GetFreeMemory): torn there, the committed diary stays.
        for index in 0...frames {
            let box = CardBox(old)
            box.tearAt = index
            var tap = box.client
            do {
                try tap.writeDiary(header: Self.header(2), record: Self.record(2))
                _ = tap.transmit([0x6E])
            } catch {}
            #expect(!box.card.isPowered, "torn at frame \(index)")
            box.card.activate()
            box.tearAt = nil
            var reader = box.client
            let diary = try reader.readDiary()
            if diary.header == Self.header(1) {
                #expect(diary.records == [Self.record(1)], "torn at frame \(index)")
                #expect(index < frames, "torn after the commit")
                sawOld = true
            } else {
                #expect(diary.header == Self.header(2), "torn at frame \(index)")
                #expect(diary.records == [Self.record(1), Self.record(2)], "torn at frame \(index)")
                sawNew = true
            }
        }
        #expect(sawOld && sawNew)
    }

    @Test func standardFileWriteTornMidwayIsHalfWritten() throws {
        let box = freshCard()
        var client = box.client
        try client.plain([0xCA, 1, 0, 0, 0x0F, 0x81])
        try client.select([1, 0, 0])
        try client.plain([0xCD, 1, 0x00, 0xEE, 0xEE] + DESFireTestClient.le24(32))
        box.tearAt = box.frames
        #expect(throws: (any Error).self) {
            try client.plain([0x3D, 1, 0, 0, 0, 32, 0, 0] + [UInt8](repeating: 0xAB, count: 32))
        }
        let data = box.card.image.file(1, in: [1, 0, 0])?.data ?? []
        #expect(data == [UInt8](repeating: 0xAB, count: 16) + [UInt8](repeating: 0, count: 16))
    }

    @Test func chipHoldsTheAnswerForTheExchangesTimeAndTearsOnAFrame() throws {
        var chip = PN532Chip()
        chip.place(.desfire(EmulatedDESFire(uid: Self.uid, cipher: cipher)))
        let now = ContinuousClock.now
        var parser = PN532FrameParser()
        let listed = chip.receive(PN532Frame.encode([0xD4, 0x4A, 0x01, 0x00]), now: now)
        guard case .information(let target)? = parser.feed(listed.dropFirst(6)).first else {
            Issue.record("no target listed")
            return
        }
        #expect(Array(target.suffix(6)) == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(Array(target[4..<6]) == [0x03, 0x44])
        // GetFreeMemory: only the ACK at once; the answer at the exchange's time.
        #expect(chip.receive(PN532Frame.encode([0xD4, 0x40, 0x01, 0x6E]), now: now) == PN532Frame.ack)
        let due = try #require(chip.deadline)
        #expect(due > now)
        #expect(chip.tick(now: now).isEmpty)
        guard case .information(let answer)? = parser.feed(chip.tick(now: due)).first else {
            Issue.record("no answer at the deadline")
            return
        }
        #expect(answer == [0xD5, 0x41, 0x00, 0x00, 0x00, 0x13, 0x00])
        // A tear on the next frame: no answer from the card (status 01), and it is gone.
        chip.inject(.tearAfterFrames(0))
        _ = chip.receive(PN532Frame.encode([0xD4, 0x40, 0x01, 0x6E]), now: now)
        guard case .information(let torn)? = parser.feed(chip.tick(now: try #require(chip.deadline))).first else {
            Issue.record("no answer after the tear")
            return
        }
        #expect(torn == [0xD5, 0x41, 0x01])
        #expect(chip.card == nil)
    }

    @Test func exchangeTimeFollowsTheModel() {
        // One byte each way, no EEPROM: (1 + 3) × 10 + 2 bits twice, two turnarounds, 300 µs.
        var cost = DESFireTiming.Cost()
        cost.processing = .microseconds(300)
        let small = DESFireTiming.exchange(commandBytes: 1, answerBytes: 1, cost: cost)
        #expect(small == .nanoseconds(2 * 42 * 9_440 + 2 * 86_430) + .microseconds(300))
        cost.eepromBlocks = 10
        #expect(DESFireTiming.exchange(commandBytes: 1, answerBytes: 1, cost: cost) == small + .milliseconds(20))
    }

    @Test func simulatedReaderPlacesADiaryCardKeptInItsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = try SimulatedCardReader(directory: directory.path)
        defer { reader.stop() }
        try reader.placeDiaryCard(number: 3, cipher: cipher)
        let card = try #require(reader.emulator.desfireCard)
        let path = directory.appendingPathComponent("diary-card-3.json").path
        #expect(try DESFireCardMemory(path: path).load() == card.image)
        reader.remove()
        #expect(!reader.knows(card: 3))
    }

    @Test func memoryFileIsSharedByTwoEmulators() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("desfire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("card.json").path
        let initial = DESFireCardImage(uid: Self.uid)
        // Kiosk A's reader: the card is made a diary card and tapped.
        let first = PN532Emulator(
            card: .desfire(try EmulatedDESFire(memory: DESFireCardMemory(path: path), initial: initial, cipher: cipher))
        )
        let a = CardBox(try #require(first.desfireCard))
        var clientA = a.client
        try clientA.provisionDiary(ringRecords: 4)
        try clientA.writeDiary(header: Self.header(7), record: Self.record(7))
        // Kiosk B's reader, another emulator over the same file: the card walks there and is tapped again.
        let other = DESFireCardImage(uid: [0x04, 9, 9, 9, 9, 9, 9])
        let second = PN532Emulator(
            card: .desfire(try EmulatedDESFire(memory: DESFireCardMemory(path: path), initial: other, cipher: cipher)))
        let b = CardBox(try #require(second.desfireCard))
        var clientB = b.client
        #expect(try clientB.readDiary().header == Self.header(7))
        try clientB.writeDiary(header: Self.header(8), record: Self.record(8))
        // Back at A: the next power-up loads what B wrote.
        a.card.powerOff()
        a.card.activate()
        var again = a.client
        let diary = try again.readDiary()
        #expect(diary.header == Self.header(8))
        #expect(diary.records == [Self.record(7), Self.record(8)])
        #expect(try DESFireCardMemory(path: path).load() == a.card.image)
    }
}
