import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// The emulated DESFire EV1 card (`EmulatedDESFire`, the PN532 emulator's card) on an in-process transport: every
/// APDU the kiosk's `DESFireClient` sends is one frame the card receives; `tearAfter` takes the card out of the
/// field as it receives that frame (an uncommitted transaction is lost, a standard file half written).
final class EmulatedCardTransport: DESFireTransport {
    var card: EmulatedDESFire
    /// The frame, counted from 0, at which the card leaves; nil: it stays.
    var tearAfter: Int?
    private(set) var frames = 0

    init(_ card: EmulatedDESFire) {
        self.card = card
        self.card.powerOn()
        self.card.activate()
    }

    func transmit(_ apdu: [UInt8]) throws(DESFireTransportError) -> [UInt8] {
        defer { frames += 1 }
        if let tearAfter, frames >= tearAfter {
            _ = card.receive(apdu, tearing: frames == tearAfter)
            throw DESFireTransportError(.cardGone)
        }
        guard let answer = card.receive(apdu) else { throw DESFireTransportError(.cardGone) }
        return answer
    }

    /// The card put back on the reader: powered and activated again, counting afresh.
    func placeAgain() {
        card.powerOff()
        card.powerOn()
        card.activate()
        frames = 0
        tearAfter = nil
    }
}

/// A diary card pulled away at any frame of a tap keeps a readable diary, with the tap's change all in or all out.
@Suite struct DiaryCardTearingTests {
    let crypto = OpenSSLCrypto()
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    let keys = SoftwareRegionKeys(
        cardMaster: [UInt8](repeating: 0x11, count: 16), dayKey: [UInt8](repeating: 0x22, count: 16),
        day: DiaryRetention.oldestOpenDay(today: DiaryCalendar.day(of: start)))
    let uid: [UInt8] = [0x04, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]

    func at(_ seconds: TimeInterval) -> ClockReading {
        ClockReading(now: Self.start.addingTimeInterval(seconds), isSynchronized: true)
    }

    func madeCard() throws -> EmulatedCardTransport {
        let transport = EmulatedCardTransport(EmulatedDESFire(uid: uid, cipher: crypto))
        let made = try DiaryCardMaker.make(
            client: DESFireClient(transport: transport, crypto: crypto), keys: keys, crypto: crypto)
        #expect(made.uid == uid)
        // 4,864 bytes free on an empty EV1 4K: 34 records beside their 464-byte header kept twice.
        #expect(made.ringRecords == 34)
        transport.placeAgain()
        return transport
    }

    /// One tap through a freshly opened link; nil when the card left during it.
    func tap(_ transport: EmulatedCardTransport, _ venue: StayVenue, _ seconds: TimeInterval) -> TapOutcome? {
        let client = DESFireClient(transport: transport, crypto: crypto)
        guard let link = try? DiaryCardLink.open(client: client, keys: keys, crypto: crypto) else { return nil }
        defer { link.close() }
        guard case .success(let tap) = DiaryDesk(keys: keys, crypto: crypto).tap(link, at: venue, clock: at(seconds))
        else { return nil }
        return tap.outcome
    }

    func stays(_ transport: EmulatedCardTransport, _ seconds: TimeInterval) throws -> [Stay] {
        transport.placeAgain()
        let link = try DiaryCardLink.open(
            client: DESFireClient(transport: transport, crypto: crypto), keys: keys, crypto: crypto)
        defer { link.close() }
        return try DiaryDesk(keys: keys, crypto: crypto).stays(of: link, clock: at(seconds))
    }

    @Test func aMadeCardChecksInAndOutAndHidesItsUID() throws {
        let transport = try madeCard()
        #expect(transport.card.anticollisionUID != uid, "a random UID")
        guard case .checkedIn = tap(transport, DiaryDeskTests.venue("Cafe"), 0) else {
            Issue.record("no check-in")
            return
        }
        transport.placeAgain()
        guard case .checkedOut = tap(transport, DiaryDeskTests.venue("Cafe"), 900) else {
            Issue.record("no check-out")
            return
        }
        #expect(try stays(transport, 1000).map(\.venueDescription) == ["Cafe"])
        // Nothing of the stay is in clear on the card.
        let memory = transport.card.image.applications.flatMap {
            $0.files.flatMap { $0.data + $0.records.flatMap { $0 } }
        }
        #expect(!Data(memory).contains(Data("Cafe".utf8)))
    }

    /// Each frame of a check-out (which writes the header and appends a record) torn in turn: the diary opens, and
    /// holds the stay either still open or finished — never both, never neither.
    @Test func tearingAtEveryFrameOfACheckOutLeavesTheOldOrTheNewDiary() throws {
        let transport = try madeCard()
        #expect(tap(transport, DiaryDeskTests.venue("Cafe"), 0) != nil)
        let before = transport.card
        var frame = 0
        var torn = 0
        while true {
            transport.card = before
            transport.placeAgain()
            transport.tearAfter = frame
            let outcome = tap(transport, DiaryDeskTests.venue("Cafe"), 900)
            let read = try stays(transport, 1000)
            #expect(read.count == 1, "frame \(frame)")
            let finished = read.first?.checkedOut != nil
            if outcome != nil {
                #expect(finished, "a tap reported done is on the card")
                break
            }
            torn += 1
            frame += 1
        }
        #expect(torn > 10, "every frame of the tap was torn once")
    }

    /// Making a card torn at each of its frames in turn: the card reads as one still to be made, and making it
    /// again succeeds; or it reads as a diary card, finished at that read. Either way it ends a whole diary card:
    /// every key the region's, its UID random, its diary empty — never a card no kiosk can make or open.
    @Test func makingACardTornAtAnyFrameEndsAWholeDiaryCard() throws {
        var frame = 0
        var madeAgain = 0
        while true {
            let transport = EmulatedCardTransport(EmulatedDESFire(uid: uid, cipher: crypto))
            transport.tearAfter = frame
            let torn: Bool
            do {
                _ = try DiaryCardMaker.make(
                    client: DESFireClient(transport: transport, crypto: crypto), keys: keys, crypto: crypto)
                torn = false
            } catch {
                torn = true
            }
            transport.placeAgain()
            let client = DESFireClient(transport: transport, crypto: crypto)
            let placement = try DiaryCardPlacement.read(
                client: client, uidIsRandom: transport.card.anticollisionUID.count == 4, keys: keys, crypto: crypto)
            switch placement {
            case .diary(let link): link.close()
            case .unmade:
                madeAgain += 1
                _ = try DiaryCardMaker.make(client: client, keys: keys, crypto: crypto)
            }
            let image = transport.card.image
            #expect(image.randomUID, "torn at frame \(frame)")
            #expect(image.piccKey.type == .aes && image.piccKey.version == 1, "torn at frame \(frame)")
            #expect(image.applications.flatMap { $0.keys.map(\.version) } == [1, 1, 1], "torn at frame \(frame)")
            #expect(try stays(transport, 0).isEmpty, "torn at frame \(frame)")
            if !torn { break }
            frame += 1
        }
        #expect(frame > 20, "every frame of the making was torn once")
        #expect(madeAgain > 10 && madeAgain < frame, "some torn makings were made again, others finished")
    }

    /// A factory-new card reads as one to be made; a DESFire card of something else (its master key another's, as
    /// a transit card's) does not, and is never made or formatted.
    @Test func onlyACardWithTheFactoryKeyReadsAsOneToMake() throws {
        let fresh = EmulatedCardTransport(EmulatedDESFire(uid: uid, cipher: crypto))
        let new = try DiaryCardPlacement.read(
            client: DESFireClient(transport: fresh, crypto: crypto), uidIsRandom: false, keys: keys, crypto: crypto)
        guard case .unmade = new else {
            Issue.record("a factory card did not read as one to make")
            return
        }
        let other = EmulatedCardTransport(EmulatedDESFire(uid: uid, cipher: crypto))
        let client = DESFireClient(transport: other, crypto: crypto)
        try client.authenticate(keyNumber: 0, key: .factoryDefault)
        try client.changeKey(0x80, to: [UInt8](repeating: 0x7E, count: 16), version: 3, currentKey: nil)
        #expect(throws: DiaryCardError.notADiaryCard) {
            _ = try DiaryCardPlacement.read(client: client, uidIsRandom: false, keys: keys, crypto: crypto)
        }
        #expect(throws: DiaryCardError.self) { _ = try DiaryCardMaker.make(client: client, keys: keys, crypto: crypto) }
        #expect(other.card.image.piccKey.version == 3, "its master key is untouched")
    }

    /// A re-key to a newer generation (the region rotated) torn at each of its frames in turn: the card opens at its
    /// next tap, which finishes the re-key, and then every key of the card is of the new generation — its master
    /// key too, which a torn re-key must not leave on a generation the region later retires.
    @Test func aRekeyTornAtAnyFrameIsFinishedAtTheNextTap() throws {
        let transport = try madeCard()
        keys.newestGeneration = 2
        let before = transport.card
        var frame = 0
        while true {
            transport.card = before
            transport.placeAgain()
            transport.tearAfter = frame
            let torn: Bool
            do {
                try DiaryCardLink.open(
                    client: DESFireClient(transport: transport, crypto: crypto), keys: keys, crypto: crypto
                )
                .close()
                torn = false
            } catch {
                torn = true
            }
            transport.placeAgain()
            let link = try DiaryCardLink.open(
                client: DESFireClient(transport: transport, crypto: crypto), keys: keys, crypto: crypto)
            #expect(link.generation == 2, "torn at frame \(frame)")
            link.close()
            let image = transport.card.image
            #expect(image.piccKey.version == 2, "the card master key, torn at frame \(frame)")
            #expect(image.applications.flatMap { $0.keys.map(\.version) } == [2, 2, 2], "torn at frame \(frame)")
            if !torn { break }
            frame += 1
        }
        #expect(frame > 8, "every frame of the re-key was torn once")
        #expect(try stays(transport, 0).isEmpty)
    }

    /// 1,000 random tearings over a day of taps at three venues: the diary always opens, every stay in it is whole,
    /// and a tap reported done is on the card.
    @Test func aThousandRandomTearingsNeverCorruptTheDiary() throws {
        let transport = try madeCard()
        var generator = SplitMix(seed: 0x5EED_D1A2)
        let venues = ["Cafe", "Library", "Baker"].map { DiaryDeskTests.venue($0) }
        var seconds: TimeInterval = 0
        var done = 0
        for round in 0..<1000 {
            transport.placeAgain()
            transport.tearAfter = Int(generator.next() % 60)
            let venue = venues[Int(generator.next() % 3)]
            seconds += 120
            if tap(transport, venue, seconds) != nil { done += 1 }
            let read = try stays(transport, seconds + 1)
            #expect(read.allSatisfy { $0.locationId.count == 32 && $0.start <= $0.endBound }, "round \(round)")
            #expect(read.filter { $0.checkedOut == nil && $0.isOpen(at: at(seconds + 1).now) }.count <= 1)
        }
        #expect(done > 0 && done < 1000, "some taps finished, some were torn")
    }
}

/// A small deterministic generator (SplitMix64) so that a failing round can be found again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
