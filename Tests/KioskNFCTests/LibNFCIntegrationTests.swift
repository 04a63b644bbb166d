import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Logging
import Synchronization
import Testing

/// The real libnfc (`pn532_uart` driver) against the PN532 emulator on a pseudo-terminal.
@Suite(.serialized) struct LibNFCIntegrationTests {
    let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    let access = KioskCardAccess(cardKey: [UInt8](repeating: 0x5C, count: 32), crypto: OpenSSLCrypto())
    let content = CardContent(kind: .visitor, secret: (0..<24).map { UInt8(truncatingIfNeeded: $0 * 13) })

    /// A running emulator with `card`, and libnfc's connection string for it.
    func emulator(_ card: EmulatedCard?) throws -> PN532PseudoTerminal {
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: card))
        terminal.start()
        return terminal
    }

    func connection(_ terminal: PN532PseudoTerminal) -> String { "pn532_uart:\(terminal.slavePath)" }

    @Test func opensAndReportsFirmware() throws {
        let terminal = try emulator(nil)
        let device = try NFCDevice(connection: connection(terminal))
        #expect(try device.firmwareVersion().contains("PN532 v1.6"))
        #expect(try device.poll(count: 1, period: 1) == nil)
        let log = terminal.emulator.withChip { $0.commandLog }
        // SAMConfiguration, firmware, InAutoPoll
        #expect(log.contains(0x14) && log.contains(0x02) && log.contains(0x60))
    }

    @Test func portIsLockedExclusively() throws {
        let terminal = try emulator(nil)
        let device = try NFCDevice(connection: connection(terminal))
        #expect(throws: NFCError(code: .portBusy)) { try NFCDevice(connection: connection(terminal)) }
        #expect(throws: NFCError(code: .invalidConnectionString)) { try NFCDevice(connection: "pn532_uart") }
        #expect(throws: NFCError(code: .portUnavailable(ENOENT))) {
            try NFCDevice(connection: "pn532_uart:/dev/no-such-reader")
        }
        _ = device
    }

    @Test func pollsCardAndRunsNTAGCommands() throws {
        let terminal = try emulator(.blank(.ntag216, uid: uid))
        let device = try NFCDevice(connection: connection(terminal))
        let target = try #require(try device.poll(count: 1, period: 1))
        #expect(target.uid == uid && target.isUltralightFamily)
        let commands = NTAGCommands(link: device)
        #expect(NTAGModel(version: try commands.getVersion()) == .ntag216)
        try commands.write(page: 4, [1, 2, 3, 4])
        #expect(Array(try commands.read(page: 4).prefix(4)) == [1, 2, 3, 4])
        #expect(try commands.fastRead(from: 4, through: 5) == [1, 2, 3, 4, 0, 0, 0, 0])
        #expect(try commands.authenticate(password: [0xFF, 0xFF, 0xFF, 0xFF]) == [0, 0])
        #expect(throws: NFCError(code: .refused)) { try commands.authenticate(password: [1, 2, 3, 4]) }
        #expect(try device.reselect()?.uid == uid)
        #expect(device.isTargetPresent())
        terminal.emulator.removeCard()
        #expect(!device.isTargetPresent())
    }

    @Test(arguments: [NTAGModel.ntag213, .ntag215, .ntag216, .ultralightEV1MF0UL11, .ultralightEV1MF0UL21])
    func enrolsAndReadsBack(_ model: NTAGModel) throws {
        let terminal = try emulator(.blank(model, uid: uid))
        let device = try NFCDevice(connection: connection(terminal))
        let target = try #require(try device.poll(count: 1, period: 1))
        #expect(try access.read(target, over: device) == .notAKioskCard(.blank))
        let again = try #require(try device.reselect())
        try access.enrol(content, on: again, over: device)
        let third = try #require(try device.reselect())
        #expect(try access.read(third, over: device) == .kioskCard(content))
        guard case .tag(let tag) = terminal.emulator.card else {
            Issue.record("card gone")
            return
        }
        #expect(tag.auth0 == 4)
    }

    @Test(arguments: [EmulatedCard.bankCard, .mifareClassic(uid: [0xDE, 0xAD, 0xBE, 0xEF])])
    func unknownCardsAreNotKioskCards(_ card: EmulatedCard) throws {
        let terminal = try emulator(card)
        let device = try NFCDevice(connection: connection(terminal))
        let target = try #require(try device.poll(count: 1, period: 1))
        #expect(try access.read(target, over: device) == .notAKioskCard(.unsupportedCardType))
        #expect(throws: CardEnrolmentError.unsupportedCardType) { try access.enrol(content, on: target, over: device) }
    }

    /// Tearing injected by the emulator at every write of an enrolment, through libnfc.
    @Test func tearingAtEveryWriteThroughLibNFC() throws {
        let terminal = try emulator(nil)
        let device = try NFCDevice(connection: connection(terminal))
        var tornAt = 0
        while tornAt < 40 {
            terminal.emulator.place(.blank(.ntag213, uid: uid))
            let target = try #require(try device.reselect())
            terminal.emulator.inject(.tearAfterWrites(tornAt))
            do {
                try access.enrol(content, on: target, over: device)
                terminal.emulator.inject(.tearAfterWrites(Int.max))
                break
            } catch {
                #expect(error == .cardRemoved, "torn at write \(tornAt)")
            }
            #expect(terminal.emulator.card == nil)
            let torn = try #require(terminal.emulator.withChip { $0.lastRemovedCard })
            terminal.emulator.place(torn)
            let back = try #require(try device.reselect())
            let result = try access.read(back, over: device)
            #expect(result == .incompleteEnrolment || result == .notAKioskCard(.blank), "torn at write \(tornAt)")
            tornAt += 1
        }
        #expect(tornAt == 16)  // 4 password steps + zeroed commit + 10 data pages + commit: the 17th try completes
    }

    @Test func cardRemovedMidCommand() throws {
        let terminal = try emulator(.blank(.ntag215, uid: uid))
        let device = try NFCDevice(connection: connection(terminal))
        let target = try #require(try device.poll(count: 1, period: 1))
        terminal.emulator.inject(.removeCardAfterCommands(1))
        #expect(throws: NFCError.self) { try access.read(target, over: device) }
        #expect(terminal.emulator.card == nil)
    }

    @Test func corruptedReplyIsAnErrorAndTheReaderRecovers() throws {
        let terminal = try emulator(.blank(.ntag215, uid: uid))
        let device = try NFCDevice(connection: connection(terminal))
        _ = try #require(try device.poll(count: 1, period: 1))
        terminal.emulator.inject(.corruptReplies(1))
        #expect(throws: NFCError.self) { try NTAGCommands(link: device).getVersion() }
        #expect(NTAGModel(version: try NTAGCommands(link: device).getVersion()) == .ntag215)
    }

    @Test func silentChipTimesOutAndTheReaderRecovers() throws {
        let terminal = try emulator(.blank(.ntag215, uid: uid))
        let device = try NFCDevice(connection: connection(terminal))
        _ = try #require(try device.poll(count: 1, period: 1))
        terminal.emulator.inject(.ignoreCommands(1))
        #expect(throws: NFCError.self) { try NTAGCommands(link: device).getVersion() }
        #expect(NTAGModel(version: try NTAGCommands(link: device).getVersion()) == .ntag215)
    }

    /// An abort that lands while libnfc is still reading the chip's ACK is lost, so the aborter repeats it until
    /// the poll returns, as `NFCReader.stop()` does.
    @Test func abortInterruptsAPoll() throws {
        let terminal = try emulator(nil)
        let device = try NFCDevice(connection: connection(terminal))
        let handle = device.abortHandle
        let done = Mutex(false)
        let finished = Mutex(false)
        let aborter = Thread {
            while !terminal.emulator.withChip({ $0.isWaitingForCard }) { usleep(1000) }
            while !done.withLock({ $0 }) {
                handle.abort()
                usleep(5000)
            }
            finished.withLock { $0 = true }
        }
        aborter.start()
        // 14 polls × 15 periods × 150 ms ≈ 31 s unless aborted.
        #expect(throws: NFCError(code: .aborted)) { try device.poll(count: 14, period: 15) }
        done.withLock { $0 = true }
        while !finished.withLock({ $0 }) { usleep(1000) }
        // Still usable: a short poll without a card ends with no card, and the chip is idle again. An abort the
        // aborter sent after the long poll had already returned is still pending in libnfc and may end the first
        // short poll; the next one must succeed.
        _ = try? device.poll(count: 1, period: 1)
        #expect(try device.poll(count: 1, period: 1) == nil)
        #expect(terminal.emulator.withChip { !$0.isWaitingForCard })
    }

    /// A reader over the emulator's serial line, polling; the caller stops it.
    func startedReader(_ terminal: PN532PseudoTerminal) -> NFCReader<OpenSSLCrypto> {
        let reader = NFCReader(
            connection: connection(terminal), access: access, logger: Logger(label: "test"),
            removalCheckInterval: .milliseconds(10))
        reader.start()
        return reader
    }

    @Test func readerStreamsCardEventsAndStops() async throws {
        let terminal = try emulator(nil)
        let reader = startedReader(terminal)
        var events = reader.events.makeAsyncIterator()
        terminal.emulator.place(.blank(.ntag215, uid: uid))
        #expect(await events.next() == .card(.notAKioskCard(.blank)))
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)

        async let enrolled = reader.enrolNextCard(content)
        try await Task.sleep(for: .milliseconds(50))
        terminal.emulator.place(.blank(.ntag215, uid: uid))
        let outcome = await enrolled
        #expect((try? outcome.get()) != nil)
        #expect(await events.next() == .enrolled)
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)
        terminal.emulator.place(try #require(terminal.emulator.withChip { $0.lastRemovedCard }))
        #expect(await events.next() == .card(.kioskCard(content)))

        reader.stop()
        #expect(await events.next() == nil)  // the stream ends when the thread has closed the device
        #expect(throws: Never.self) { _ = try NFCDevice(connection: connection(terminal)) }  // port released
    }

    @Test func readerEnrolsTheBlankCardLyingOnIt() async throws {
        let terminal = try emulator(nil)
        let reader = startedReader(terminal)
        defer { reader.stop() }
        var events = reader.events.makeAsyncIterator()
        terminal.emulator.place(.blank(.ntag215, uid: uid))
        #expect(await events.next() == .card(.notAKioskCard(.blank)))
        // The card stays where it is: the kiosk asks to enrol it after having seen it blank.
        let outcome = await reader.enrolNextCard(content)
        #expect((try? outcome.get()) != nil)
        #expect(await events.next() == .enrolled)
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)
        terminal.emulator.place(try #require(terminal.emulator.withChip { $0.lastRemovedCard }))
        #expect(await events.next() == .card(.kioskCard(content)))
    }

    @Test func enrolmentGivenUpOnIsWithdrawn() async throws {
        let terminal = try emulator(nil)
        let reader = startedReader(terminal)
        defer { reader.stop() }
        var events = reader.events.makeAsyncIterator()
        // No card comes; the caller gives up.
        let waiting = Task { await reader.enrolNextCard(content) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        guard case .failure(let error) = await waiting.value else {
            Issue.record("a withdrawn enrolment must not succeed")
            return
        }
        #expect(error == .reader(NFCError(code: .aborted)))
        // The next blank card is read as blank, not enrolled by the forgotten request.
        terminal.emulator.place(.blank(.ntag215, uid: uid))
        #expect(await events.next() == .card(.notAKioskCard(.blank)))
    }

    /// Visitors carry other venues' cards: one enrolled at another kiosk NAKs the password, and a tag that NAKs goes
    /// idle. Lying on the reader it must be refused once, not found again and refused at every poll.
    @Test func aCardOfAnotherKioskLeftOnTheReaderIsRefusedOncePerPlacement() async throws {
        let terminal = try emulator(nil)
        let otherKiosk = NFCReader(
            connection: connection(terminal),
            access: KioskCardAccess(cardKey: [UInt8](repeating: 0xA7, count: 32), crypto: OpenSSLCrypto()),
            logger: Logger(label: "test"), removalCheckInterval: .milliseconds(10))
        otherKiosk.start()
        async let enrolled = otherKiosk.enrolNextCard(content)
        try await Task.sleep(for: .milliseconds(50))
        terminal.emulator.place(.blank(.ntag215, uid: uid))
        #expect((try? await enrolled.get()) != nil)
        terminal.emulator.removeCard()
        otherKiosk.stop()
        for await _ in otherKiosk.events {}
        let foreign = try #require(terminal.emulator.withChip { $0.lastRemovedCard })

        let reader = startedReader(terminal)
        defer { reader.stop() }
        let seen = Mutex<[NFCCardEvent]>([])
        let collecting = Task { for await event in reader.events { seen.withLock { $0.append(event) } } }
        terminal.emulator.place(foreign)
        try await Task.sleep(for: .milliseconds(1500))
        let whileLying = seen.withLock { $0 }
        #expect(whileLying.count == 1, "events while the card lay on the reader: \(whileLying.count)")
        if case .card(let result) = whileLying.first {
            #expect(result == .notAKioskCard(.otherPassword))
        } else {
            Issue.record("first event: \(String(describing: whileLying.first))")
        }
        terminal.emulator.removeCard()
        try await Task.sleep(for: .milliseconds(500))
        #expect(seen.withLock { Array($0.dropFirst(whileLying.count)) } == [.removed])
        collecting.cancel()
    }

    @Test func readerReportsMissingPort() async throws {
        let reader = NFCReader(
            connection: "pn532_uart:/dev/no-such-reader", access: access, logger: Logger(label: "test"))
        reader.start()
        var events = reader.events.makeAsyncIterator()
        #expect(await events.next() == .readerUnavailable(NFCError(code: .portUnavailable(ENOENT))))
        reader.stop()
    }
}
