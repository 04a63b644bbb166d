import Foundation
import KioskDaemon
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Logging
import Synchronization
import Testing

@testable import KioskCore
@testable import KioskPKCS11

extension PKCS11SessionTests {
    /// A diary card at a kiosk's station, as `kiosk run` serves it: the station runner, the real libnfc reader
    /// service on the PN532 emulator's pseudo-terminal with the emulated DESFire EV1, and the region's keys in a
    /// SoftHSM2 token (`ReaderDiaryCards`). Nested in the session tests: SoftHSM2 is initialized once per process.
    @Suite struct DiaryCardStationRunnerTests {
        static let region = "Vaud"
        static let today: DiaryDay = 20_781
        static let cwaCode =
            "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"
        let crypto = OpenSSLCrypto()
        let uid: [UInt8] = [0x04, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, 0x7F]

        /// Warnings that concern every stay of the region: each stay matched on its first day.
        struct EveryStayWarned: WarningSource {
            func match(_ stays: [MatchableStay]) async -> ExposureResult? { nil }
            func matchRegion(_ stays: [MatchableStay]) async -> ExposureResult? {
                let matches = stays.map {
                    ExposureMatch(
                        stayId: $0.id, day: $0.start / 86_400, overlapMinutes: 30, transmissionRiskLevel: 5,
                        normalizedTime: 150)
                }
                return ExposureResult(
                    matches: matches, riskLevelByDay: Dictionary(matches.map { ($0.day, 1) }, uniquingKeysWith: max))
            }
        }

        /// What the station did, in order: the diary card's tap, the light, the card's stays read to match.
        final class OrderLog: Sendable {
            private let entries = Mutex<[String]>([])
            func add(_ entry: String) { entries.withLock { $0.append(entry) } }
            var all: [String] { entries.withLock { $0 } }
        }

        struct LoggingIndicator: Indicator {
            let log: OrderLog
            func show(_ patterns: [IndicatorPattern], sound: Bool) async { log.add("light") }
            func clear() async {}
        }

        /// The reader's diary cards, each tap and each reading of the stays to match logged.
        struct LoggingDiaryCards: DiaryCardAccess {
            let cards: ReaderDiaryCards
            let log: OrderLog
            func tap(_ card: DiaryCardOnReader, at venue: StayVenue, clock: ClockReading) async
                -> (outcome: TapOutcome, language: Language?, cardWasFull: Bool, matchingAllowed: Bool)
            {
                log.add("tap")
                return await cards.tap(card, at: venue, clock: clock)
            }
            func matchable(of card: DiaryCardOnReader, clock: ClockReading) async -> (
                stays: [MatchableStay], profile: CardProfile
            )? {
                log.add("stays read to match")
                return await cards.matchable(of: card, clock: clock)
            }
            func contents(of card: DiaryCardOnReader, clock: ClockReading) async throws(TapRefusal)
                -> CheckInDesk.CardContents
            { try await cards.contents(of: card, clock: clock) }
            func forgetOldDays(clock: ClockReading) async throws(TapRefusal) {
                try await cards.forgetOldDays(clock: clock)
            }
            func serve(_ request: VisitorSession.Request, of card: DiaryCardOnReader, clock: ClockReading)
                async
                throws(TapRefusal) -> ServedRequest
            { try await cards.serve(request, of: card, clock: clock) }
            func make(profile: CardProfile) async throws(StationFailure) { try await cards.make(profile: profile) }
        }

        struct NoEnroller: CardEnroller {
            func enrol(_ secret: CardSecret) async throws(StationFailure) {
                throw .enrolment(reason: "not in this test")
            }
        }

        func tapped(_ report: StationReport) -> TapOutcome? {
            report.steps.compactMap { if case .tapRecorded(let outcome) = $0 { outcome } else { nil } }.first
        }

        /// The next card the reader reports, as the station takes it.
        func nextRead(_ events: inout AsyncStream<NFCCardEvent>.Iterator) async throws -> CardRead {
            guard case .card(let result)? = await events.next() else {
                Issue.record("the reader reported no card")
                throw CancellationError()
            }
            return CardRead(result)
        }

        /// The region's token in SoftHSM2 with the region set up for `today`.
        struct Token {
            let hsm: SoftHSM
            let module: PKCS11Module
            let keys: PKCS11RegionKeys

            init() throws {
                hsm = try SoftHSM()
                try hsm.initToken(label: "kiosk-station", pin: PKCS11SessionTests.pin)
                module = try hsm.load()
                try PKCS11SessionTests.RegionKeysTests.installWrap(module, "kiosk-station")
                keys = PKCS11RegionKeys(
                    session: try module.openSession(
                        tokenLabel: "kiosk-station", pin: PKCS11PIN(PKCS11SessionTests.pin)),
                    regionName: DiaryCardStationRunnerTests.region)
                try keys.setUp(today: DiaryCardStationRunnerTests.today)
            }

            func close() {
                module.close()
                hsm.remove()
            }
        }

        /// A kiosk bound to a venue, its reader (started) on an empty PN532 emulator, its diary cards read with
        /// `keys`; staff mode left.
        struct Station {
            let terminal: PN532PseudoTerminal
            let reader: NFCReader<OpenSSLCrypto>
            let runner: StationRunner
            let store: InMemoryCheckInStore
            let clock: ManualClockSource

            init(
                keys: PKCS11RegionKeys, crypto: OpenSSLCrypto, warnings: any WarningSource = NoWarnings(),
                log: OrderLog? = nil
            ) async throws {
                terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: nil))
                terminal.start()
                let box = Mutex<ReaderDiaryCards?>(nil)
                reader = NFCReader(
                    connection: "pn532_uart:\(terminal.slavePath)",
                    access: KioskCardAccess(cardKey: [UInt8](repeating: 0x5C, count: 32), crypto: crypto),
                    logger: Logger(label: "test"), removalCheckInterval: .milliseconds(10),
                    desfire: ReaderDiaryCards.handler(crypto: crypto) { box.withLock { $0 } })
                let cards = ReaderDiaryCards(
                    reader: reader, desk: DiaryDesk(keys: keys, crypto: crypto), crypto: crypto)
                box.withLock { $0 = cards }
                store = InMemoryCheckInStore()
                clock = ManualClockSource(
                    now: DiaryCalendar.start(of: DiaryCardStationRunnerTests.today).addingTimeInterval(9 * 3600))
                runner = try StationRunner(
                    configuration: StationConfiguration(
                        staffCode: "STAFF-CODE-1", timeZone: VenueZone(identifier: "Europe/Zurich")),
                    desk: CheckInDesk(store: store, crypto: crypto),
                    indicator: log.map { LoggingIndicator(log: $0) } ?? RecordingIndicator(),
                    printer: NoPrinter(), enroller: NoEnroller(), warnings: warnings, clock: clock,
                    settings: InMemoryStationStateStore(),
                    diaryCards: log.map { LoggingDiaryCards(cards: cards, log: $0) } ?? cards,
                    logger: Logger(label: "test"))
                _ = await runner.handle(.codeScanned("STAFF-CODE-1"))
                _ = await runner.handle(.codeScanned(DiaryCardStationRunnerTests.cwaCode))
                _ = await runner.handle(.staffCommand(.leave))
                reader.start()
            }
        }

        /// A factory-new card made a diary card of `keys`' region with `profile` on a bench reader (libnfc, the PN532
        /// emulator), then taken off it to be carried to the kiosk's: the bench and the card.
        func benchMadeCard(_ keys: PKCS11RegionKeys, profile: CardProfile) throws -> (
            PN532PseudoTerminal, EmulatedDESFire
        ) {
            let bench = try PN532PseudoTerminal(
                emulator: PN532Emulator(card: .desfire(EmulatedDESFire(uid: uid, cipher: crypto))))
            bench.start()
            let device = try NFCDevice(connection: "pn532_uart:\(bench.slavePath)")
            let target = try #require(try device.poll(count: 1, period: 1))
            let client = try #require(try DESFireCard.identify(target, over: device, crypto: crypto)).client
            _ = try DiaryCardMaker.make(client: client, keys: keys, profile: profile, crypto: crypto)
            let card = try #require(bench.emulator.desfireCard)
            _ = bench.emulator.removeCard()
            return (bench, card)
        }

        @Test func aDiaryCardChecksInAndOutAndItsHolderDeletesEverythingOnTheCard() async throws {
            let token = try Token()
            defer { token.close() }
            let keys = token.keys

            // The card made on a bench reader, then carried to the kiosk's.
            let (bench, card) = try benchMadeCard(keys, profile: CardProfile(matchingAllowed: false, language: "fr"))

            let station = try await Station(keys: keys, crypto: crypto)
            let (terminal, runner, store, clock) = (station.terminal, station.runner, station.store, station.clock)
            defer { station.reader.stop() }
            var events = station.reader.events.makeAsyncIterator()

            // Placed: read with the region's keys, checked in on the card, answered in its holder's language.
            terminal.emulator.place(.desfire(card))
            let first = try await nextRead(&events)
            guard case .diary = first else {
                Issue.record("not read as a diary card: \(first)")
                return
            }
            var report = await runner.handle(.cardRead(first))
            guard case .checkedIn = tapped(report) else {
                Issue.record("not checked in: \(report.steps)")
                return
            }
            #expect(await runner.screen().language == "fr")
            #expect(try store.counts().stays == 0 && store.counts().cards == 0, "the kiosk keeps nothing of it")
            let carried = try #require(terminal.emulator.removeCard())
            #expect(await events.next() == .removed)
            _ = await runner.handle(.cardRemoved)

            // What the machine asks for a card that has gone is refused, and nothing changes on it.
            report = await runner.handle(.cardRead(first))
            #expect(tapped(report) == .refused(.cardLeft))

            // An hour later, put back: checked out; its holder opens their check-ins while it lies there.
            clock.advance(by: 3600)
            terminal.emulator.place(carried)
            let second = try await nextRead(&events)
            #expect(second != first, "another placement")
            report = await runner.handle(.cardRead(second))
            guard case .checkedOut = tapped(report) else {
                Issue.record("not checked out: \(report.steps)")
                return
            }
            _ = await runner.handle(.chosen("session"))
            #expect(await runner.screen().lines.contains("Cette carte contient 1 séjour."))
            _ = await runner.handle(.chosen("delete"))
            _ = await runner.handle(.chosen("delete-all"))
            _ = await runner.handle(.chosen("delete"))
            #expect(await runner.screen().lines.contains("Cette carte ne contient aucun séjour."))
            let gone = try #require(terminal.emulator.removeCard())
            #expect(await events.next() == .removed)
            _ = await runner.handle(.cardRemoved)
            #expect(await !runner.screen().lines.contains { $0.contains("Cette carte") }, "the session closed")

            // Read back on the bench: no stay opens, and the venue's name is nowhere on the card.
            bench.emulator.place(gone)
            let device = try NFCDevice(connection: "pn532_uart:\(bench.slavePath)")
            let target = try #require(try device.poll(count: 1, period: 1))
            let client = try #require(try DESFireCard.identify(target, over: device, crypto: crypto)).client
            let link = try DiaryCardLink.open(client: client, keys: keys, crypto: crypto)
            defer { link.close() }
            let stays = try DiaryDesk(keys: keys, crypto: crypto).stays(of: link, clock: clock.read())
            #expect(stays.isEmpty)

            // Two days on, the station's expiry moves the token's day ratchet: the day keys older than 14 days go.
            clock.advance(by: 2 * 86_400)
            _ = await runner.handle(.tick)
            #expect(try keys.currentDayKey().1 == Self.today + 2 - DiaryRetention.days)
            guard case .desfire(let after) = gone else { return }
            let bytes = after.image.applications.flatMap { $0.files.flatMap { $0.data + $0.records.flatMap { $0 } } }
            #expect(!Data(bytes).contains(Data("Friseur".utf8)))
        }

        /// Staff enrolling a card at the station with a factory-new DESFire card (its master key NXP's DES key of
        /// zeros) on the reader: the card is made a diary card of the region through the real reader (AuthenticateISO
        /// and a triple DES session, then AES), its master key now the region's AES key with the generation as its
        /// version and its UID random; left on the reader after staff leave, it checks in on the card.
        @Test func staffMakeAFactoryNewDESFireCardADiaryCardAtTheStation() async throws {
            let token = try Token()
            defer { token.close() }
            let station = try await Station(keys: token.keys, crypto: crypto)
            defer { station.reader.stop() }
            var events = station.reader.events.makeAsyncIterator()
            _ = await station.runner.handle(.codeScanned("STAFF-CODE-1"))
            _ = await station.runner.handle(.staffCommand(.enrolCard))

            let fresh = EmulatedDESFire(uid: uid, cipher: crypto)
            #expect(fresh.image.piccKey.type == .tripleDES, "a factory card's master key is DES")
            station.terminal.emulator.place(.desfire(fresh))
            let read = try await nextRead(&events)
            #expect(read == .newDiaryCard)
            let report = await station.runner.handle(.cardRead(read))
            #expect(report.steps.contains(.cardEnrolled), "\(report.steps)")
            #expect(await station.runner.screen().title == StationTexts().catalog[.staffDiaryCardMadeTitle])
            guard case .desfire(let made)? = station.terminal.emulator.removeCard() else {
                Issue.record("no card on the reader")
                return
            }
            #expect(made.image.piccKey.type == .aes && made.image.piccKey.version == 1)
            #expect(made.image.randomUID)
            #expect(await events.next() == .removed)
            _ = await station.runner.handle(.cardRemoved)
            _ = await station.runner.handle(.staffCommand(.leave))

            station.terminal.emulator.place(.desfire(made))
            let tap = try await nextRead(&events)
            guard case .diary = tap else {
                Issue.record("not read as a diary card: \(tap)")
                return
            }
            guard case .checkedIn = tapped(await station.runner.handle(.cardRead(tap))) else {
                Issue.record("not checked in")
                return
            }
            #expect(try station.store.counts().stays == 0, "the kiosk keeps nothing of it")
        }

        /// A diary card whose holder allows matching, at a kiosk holding the region's warnings: its tap is answered,
        /// light included, before the card's ring is read to match it; the news found then is told while the card
        /// still lies on the reader (the report's steps are in the order the kiosk did them).
        @Test func aDiaryCardsLightComesBeforeItsRingIsReadForNews() async throws {
            let token = try Token()
            defer { token.close() }
            let (_, card) = try benchMadeCard(token.keys, profile: CardProfile(matchingAllowed: true))
            let log = OrderLog()
            let station = try await Station(keys: token.keys, crypto: crypto, warnings: EveryStayWarned(), log: log)
            defer { station.reader.stop() }
            var events = station.reader.events.makeAsyncIterator()
            station.terminal.emulator.place(.desfire(card))
            let read = try await nextRead(&events)
            let report = await station.runner.handle(.cardRead(read))
            guard case .checkedIn = tapped(report) else {
                Issue.record("not checked in: \(report.steps)")
                return
            }
            let news = StationTexts().newsForCard.body
            let lit = try #require(report.steps.firstIndex(of: .indicated(.accepted)))
            let told = try #require(
                report.steps.firstIndex {
                    if case .shown(let message) = $0 { message.body.contains(news) } else { false }
                })
            #expect(lit < told, "the light before the news")
            #expect(log.all.suffix(3) == ["tap", "light", "stays read to match"], "\(log.all)")
            #expect(await station.runner.screen().lines.joined(separator: " ").contains(news))
        }
    }
}
