import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Testing

@testable import KioskPKCS11

extension PKCS11SessionTests {
    /// One diary card walking through three kiosks of a region (docs/diary-card.md): each kiosk with its own
    /// SoftHSM2 token holding the region's keys (set up at A, exported, imported at B and C), its own PN532 emulator
    /// on a pseudo-terminal opened by the real libnfc; the card is the emulated DESFire EV1, moved from reader to
    /// reader. Nested in the session tests: SoftHSM2 is initialized once per process.
    @Suite struct DiaryCardRegionTests {
        static let pin = PKCS11SessionTests.pin
        static let region = "Ticino"
        static let today: DiaryDay = 20_780
        let crypto = OpenSSLCrypto()
        let uid: [UInt8] = [0x04, 0x19, 0x28, 0x37, 0x46, 0x55, 0x64]

        /// A kiosk: its token's region keys and its reader.
        struct Kiosk {
            let keys: PKCS11RegionKeys
            let terminal: PN532PseudoTerminal
            let device: NFCDevice
        }

        func kiosk(_ module: PKCS11Module, _ token: String) throws -> Kiosk {
            let keys = PKCS11RegionKeys(
                session: try module.openSession(tokenLabel: token, pin: PKCS11PIN(Self.pin)), regionName: Self.region)
            let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: nil))
            terminal.start()
            return Kiosk(
                keys: keys, terminal: terminal, device: try NFCDevice(connection: "pn532_uart:\(terminal.slavePath)"))
        }

        func at(_ day: DiaryDay, _ hour: Double) -> ClockReading {
            ClockReading(
                now: DiaryCalendar.start(of: day).addingTimeInterval(hour * 3600), isSynchronized: true)
        }

        /// The card on `kiosk`'s reader, found by libnfc and recognised as a DESFire.
        func present(_ card: EmulatedDESFire, at kiosk: Kiosk) throws -> DESFireClient {
            kiosk.terminal.emulator.place(.desfire(card))
            let target = try #require(try kiosk.device.poll(count: 1, period: 1))
            return try #require(try DESFireCard.identify(target, over: kiosk.device, crypto: crypto)).client
        }

        /// The card taken off `kiosk`'s reader, as it is now.
        func takeAway(from kiosk: Kiosk) throws -> EmulatedDESFire {
            let card = try #require(kiosk.terminal.emulator.desfireCard)
            _ = kiosk.terminal.emulator.removeCard()
            return card
        }

        func open(_ card: EmulatedDESFire, at kiosk: Kiosk) throws -> DiaryCardLink {
            try DiaryCardLink.open(client: try present(card, at: kiosk), keys: kiosk.keys, crypto: crypto)
        }

        func venue(_ name: String) -> StayVenue {
            StayVenue(
                locationId: Array(name.utf8) + [UInt8](repeating: 0, count: 32 - name.utf8.count), description: name,
                address: "", autoCheckout: AutoCheckoutRule(maximumStay: 3 * 3600))
        }

        @Test func aCardChecksInAtTwoKiosksAndItsHolderSeesAndDeletesAtAThird() throws {
            let hsm = try SoftHSM()
            defer { hsm.remove() }
            for label in ["kiosk-a", "kiosk-b", "kiosk-c", "elsewhere"] {
                try hsm.initToken(label: label, pin: Self.pin)
            }
            let module = try hsm.load()
            defer { module.close() }
            for label in ["kiosk-a", "kiosk-b", "kiosk-c"] {
                try PKCS11SessionTests.RegionKeysTests.installWrap(module, label)
            }
            let a = try kiosk(module, "kiosk-a")
            let b = try kiosk(module, "kiosk-b")
            let c = try kiosk(module, "kiosk-c")
            try a.keys.setUp(today: Self.today)
            let export = try a.keys.exportKeys()
            _ = try b.keys.importKeys(export)
            _ = try c.keys.importKeys(export)

            // Made a diary card at A, in staff mode.
            let made = try DiaryCardMaker.make(
                client: try present(EmulatedDESFire(uid: uid, cipher: crypto), at: a), keys: a.keys,
                profile: CardProfile(matchingAllowed: true, language: "it"),
                crypto: crypto)
            #expect(made.uid == uid && made.generation == 1)
            var card = try takeAway(from: a)

            // Checks in at A's café, then at B's library (which ends the café's stay).
            var link = try open(card, at: a)
            let atA = DiaryDesk(keys: a.keys, crypto: crypto).tap(link, at: venue("Cafe"), clock: at(Self.today, 9))
            guard case .success(let first) = atA, case .checkedIn = first.outcome else {
                Issue.record("no check-in at A: \(atA)")
                return
            }
            #expect(first.language == Language(rawValue: "it"))
            link.close()
            card = try takeAway(from: a)
            link = try open(card, at: b)
            let atB = DiaryDesk(keys: b.keys, crypto: crypto).tap(link, at: venue("Library"), clock: at(Self.today, 11))
            guard case .success(let second) = atB, case .checkedIn(_, _, endedStayElsewhere: true) = second.outcome
            else {
                Issue.record("no check-in at B: \(atB)")
                return
            }
            link.close()
            card = try takeAway(from: b)

            // At C the holder sees both, the café's ended at B's tap, and deletes the café's.
            link = try open(card, at: c)
            let desk = DiaryDesk(keys: c.keys, crypto: crypto)
            let stays = try desk.stays(of: link, clock: at(Self.today, 12))
            #expect(stays.map(\.venueDescription) == ["Library", "Cafe"])
            #expect(stays.last?.checkedOut == at(Self.today, 11).now)
            let cafe = try #require(stays.last)
            #expect(try desk.delete([cafe.id], of: link) == 1)
            #expect(try desk.stays(of: link, clock: at(Self.today, 12)).map(\.venueDescription) == ["Library"])
            link.close()
            card = try takeAway(from: c)
            // No stay is in clear on the card.
            let bytes = card.image.applications.flatMap { $0.files.flatMap { $0.data + $0.records.flatMap { $0 } } }
            #expect(!Data(bytes).contains(Data("Library".utf8)))

            // A kiosk of another region, or a card of another region, opens nothing.
            let elsewhere = PKCS11RegionKeys(
                session: try module.openSession(tokenLabel: "elsewhere", pin: PKCS11PIN(Self.pin)),
                regionName: "Elsewhere")
            try elsewhere.setUp(today: Self.today)
            let foreign = Kiosk(keys: elsewhere, terminal: c.terminal, device: c.device)
            #expect(throws: DiaryCardError.keysDoNotMatch) { _ = try open(card, at: foreign) }
            card = try takeAway(from: c)

            // The region rotates (a kiosk was stolen): B takes generation 2 and re-keys the card at its next tap; a
            // kiosk with generation 1 only no longer opens it; C, once it has the new export, does.
            #expect(try a.keys.rotate() == 2)
            _ = try b.keys.importKeys(try a.keys.exportKeys())
            link = try open(card, at: b)
            #expect(link.generation == 2)
            link.close()
            card = try takeAway(from: b)
            #expect(throws: DiaryCardError.keysDoNotMatch) { _ = try open(card, at: c) }
            card = try takeAway(from: c)
            _ = try c.keys.importKeys(try a.keys.exportKeys())
            link = try open(card, at: c)
            #expect(try DiaryDesk(keys: c.keys, crypto: crypto).stays(of: link, clock: at(Self.today, 13)).count == 1)
            link.close()
            card = try takeAway(from: c)

            // Fifteen days on, every kiosk has destroyed the day's key: the library's stay opens nowhere.
            for kiosk in [a, b, c] { try kiosk.keys.advance(today: Self.today + 15) }
            link = try open(card, at: a)
            #expect(try DiaryDesk(keys: a.keys, crypto: crypto).stays(of: link, clock: at(Self.today + 15, 1)).isEmpty)
            link.close()
        }
    }
}
