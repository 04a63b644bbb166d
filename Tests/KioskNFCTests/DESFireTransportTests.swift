import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Logging
import Synchronization
import Testing

/// The libnfc transport of DESFire commands: errors mapped to the core's transport error, APDUs through the real
/// libnfc to an emulated ISO/IEC 14443-4 card, a card taken away mid-command, and the reader's DESFire handler
/// beside NTAG21x cards.
@Suite(.serialized) struct DESFireTransportTests {
    /// A link that answers or fails as told, and records the timeouts it was given.
    final class FakeLink: TagLink {
        var answer: Result<[UInt8], NFCError>
        var timeouts: [Int32] = []

        init(_ answer: Result<[UInt8], NFCError>) { self.answer = answer }

        func transceive(_ command: [UInt8], timeout: Int32) throws(NFCError) -> [UInt8] {
            timeouts.append(timeout)
            return try answer.get()
        }

        func reselect() throws(NFCError) -> NFCTarget? { nil }
    }

    @Test func readerErrorsBecomeTransportErrors() {
        let cases: [(NFCError.Code, DESFireTransportError.Reason)] = [
            (.radioTransmission, .cardGone), (.targetReleased, .cardGone), (.timeout, .cardGone),
            (.aborted, .aborted), (.stopped, .aborted), (.io, .readerFailed), (.chip, .readerFailed),
        ]
        for (code, reason) in cases {
            let link = FakeLink(.failure(NFCError(code: code)))
            let transport = NFCDESFireTransport(link: link)
            #expect(throws: DESFireTransportError(reason)) { try transport.transmit([0x90, 0x60, 0x00, 0x00, 0x00]) }
            #expect(transport.lastError == NFCError(code: code))
        }
    }

    @Test func formatPICCWaitsLonger() throws {
        let link = FakeLink(.success([0x91, 0x00]))
        let transport = NFCDESFireTransport(link: link, timeout: 300, formatTimeout: 8000)
        #expect(try transport.transmit([0x90, 0x60, 0x00, 0x00, 0x00]) == [0x91, 0x00])
        _ = try transport.transmit([0x90, 0xFC, 0x00, 0x00, 0x00])
        #expect(link.timeouts == [300, 8000])
        #expect(transport.lastError == nil)
    }

    /// An NTAG21x is never sent an APDU, a card without ISO/IEC 14443-4 neither.
    @Test func onlyISO14443Part4CardsAreAsked() throws {
        let link = FakeLink(.failure(NFCError(code: .io)))
        let ntag = NFCTarget(atqa: [0x00, 0x44], sak: 0x00, uid: [4, 1, 2, 3, 4, 5, 6])
        #expect(!ntag.isISO14443Part4)
        #expect(try DESFireCard.identify(ntag, over: link, crypto: OpenSSLCrypto()) == nil)
        let noATS = NFCTarget(atqa: [0x03, 0x44], sak: 0x20, uid: [4, 1, 2, 3, 4, 5, 6])
        #expect(try DESFireCard.identify(noATS, over: link, crypto: OpenSSLCrypto()) == nil)
        #expect(link.timeouts.isEmpty)
    }

    /// GetVersion answered by a DESFire EV1: recognised; answered by another NXP chip type: not.
    @Test func recognisesADESFireByItsVersion() throws {
        final class VersionLink: TagLink {
            var frames: [[UInt8]]
            init(type: UInt8) {
                frames = [
                    [0x04, type, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF],
                    [0x04, 0x01, 0x01, 0x01, 0x04, 0x18, 0x05, 0x91, 0xAF],
                    [UInt8](repeating: 0, count: 14) + [0x91, 0x00],
                ]
            }
            func transceive(_ command: [UInt8], timeout: Int32) throws(NFCError) -> [UInt8] {
                guard !frames.isEmpty else { throw NFCError(code: .radioTransmission) }
                return frames.removeFirst()
            }
            func reselect() throws(NFCError) -> NFCTarget? { nil }
        }
        let target = NFCTarget(atqa: [0x03, 0x44], sak: 0x20, uid: [0x08, 1, 2, 3], ats: [0x75, 0x77, 0x81, 0x02])
        let card = try #require(
            try DESFireCard.identify(target, over: VersionLink(type: 0x01), crypto: OpenSSLCrypto()))
        #expect(card.version.storageSize == 4096)
        #expect(!card.client.isAuthenticated)
        #expect(try DESFireCard.identify(target, over: VersionLink(type: 0x02), crypto: OpenSSLCrypto()) == nil)
    }

    // MARK: - Through libnfc and the PN532 emulator

    func emulator(_ card: EmulatedCard?) throws -> PN532PseudoTerminal {
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: card))
        terminal.start()
        return terminal
    }

    func connection(_ terminal: PN532PseudoTerminal) -> String { "pn532_uart:\(terminal.slavePath)" }

    /// The emulated bank card is selected with its ATS and answers every APDU with 6D 00 (instruction not
    /// supported): the APDU went through libnfc's InDataExchange and came back whole; it is not a DESFire.
    @Test func apduThroughLibNFCToAnISOCard() throws {
        let terminal = try emulator(.bankCard)
        let device = try NFCDevice(connection: connection(terminal))
        let target = try #require(try device.poll(count: 1, period: 1))
        #expect(target.isISO14443Part4)
        let transport = NFCDESFireTransport(link: device)
        #expect(try transport.transmit([0x90, 0x60, 0x00, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(terminal.emulator.withChip { $0.commandLog }.contains(0x40))
        #expect(try DESFireCard.identify(target, over: device, crypto: OpenSSLCrypto()) == nil)
    }

    /// The card taken away before the next APDU: the transport's card-gone error, and the client's.
    @Test func cardTakenAwayMidCommand() throws {
        let terminal = try emulator(.bankCard)
        let device = try NFCDevice(connection: connection(terminal))
        _ = try #require(try device.poll(count: 1, period: 1))
        terminal.emulator.inject(.removeCardAfterCommands(0))
        let transport = NFCDESFireTransport(link: device, timeout: 200)
        let client = DESFireClient(transport: transport, crypto: OpenSSLCrypto())
        #expect(throws: DESFireCommandError.transport(DESFireTransportError(.cardGone))) { try client.getVersion() }
        #expect(transport.lastError?.isCardGone == true)
        #expect(terminal.emulator.card == nil)
    }

    /// A reader with a DESFire handler: NTAG21x cards read as before, a bank card too (after its GetVersion
    /// failed), and the handler is not called for either.
    @Test func readerWithADESFireHandlerKeepsOtherCardsAsTheyWere() async throws {
        let terminal = try emulator(nil)
        let calls = Mutex(0)
        let reader = NFCReader(
            connection: connection(terminal),
            access: KioskCardAccess(cardKey: [UInt8](repeating: 0x5C, count: 32), crypto: OpenSSLCrypto()),
            logger: Logger(label: "test"), removalCheckInterval: .milliseconds(10),
            desfire: DESFireCardHandler(crypto: OpenSSLCrypto()) { _ in
                calls.withLock { $0 += 1 }
                return nil
            })
        reader.start()
        defer { reader.stop() }
        var events = reader.events.makeAsyncIterator()
        terminal.emulator.place(.blank(.ntag215, uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]))
        #expect(await events.next() == .card(.notAKioskCard(.blank)))
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)
        terminal.emulator.place(.bankCard)
        #expect(await events.next() == .card(.notAKioskCard(.unsupportedCardType)))
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)
        #expect(calls.withLock { $0 } == 0)
    }
}
