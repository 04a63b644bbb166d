import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Synchronization
import Testing

/// Venue codes of every format, cards, and a harness that carries out a machine's actions the way the runner does
/// (in memory: the desk over `InMemoryCheckInStore`, fixed randomness), for scenario tests without I/O.
enum StationFixtures {
    /// A 15.6-inch 1920×1080 panel: a screen lists six stays, so tests of other things see every stay at once (the
    /// 7-inch panel's pages: `StayPagesTests`).
    static let largePanel: ScreenGeometry = {
        var panel = ScreenGeometry()
        (panel.widthPixels, panel.heightPixels, panel.diagonalMillimetres) = (1920, 1080, 396)
        return panel
    }()

    /// One valid code per format the parser reads.
    static let codes: [(VenueCodeFormat, String)] = {
        let cwaPayload = String(VenueCodeParserTests.seedExample.split(separator: "#")[1])
        let notifyMe: String = {
            struct File: Decodable {
                struct Case: Decodable {
                    struct Venue: Decodable { let qrCodePayloadHex: String }
                    let venueInfo: Venue
                }
                let userUploadInfoCase: Case
            }
            let file = try! VectorFiles.json(File.self, "crowdnotifier/transcribed/ios-sdk-user-upload-info.json")
            let payload = Hex.decode(file.userUploadInfoCase.venueInfo.qrCodePayloadHex)!
            return "https://qr.notify-me.ch?v=4#" + PayloadEncoding.encodeBase64URL(payload)
        }()
        return [
            (.cwa, VenueCodeParserTests.seedExample),
            (.cwaVendor, "https://app.luca-app.de/webapp/386d0384-8aaa-41b6-93c2-d3399894d0ee#e30/CWA1/" + cwaPayload),
            (.swissCovid, "https://qr.swisscovid.ch?v=4#" + CrowdNotifierVectorTests.android.payloadBase64Url),
            (.notifyMe, notifyMe),
            (.clea, "https://tac.gouv.fr?v=0#" + CLEAVectorTests.rows[0].lsp),
        ]
    }()

    static let cwaCode = codes[0].1

    /// 2026-03-02 10:00 UTC (11:00 at the venue).
    static let start = Date(timeIntervalSince1970: 1_772_445_600)
    /// The venue's time zone in the station tests: set, so that no test depends on the machine's own.
    static let zone = VenueZone(identifier: "Europe/Rome")

    static func card(_ kind: CardKind = .visitor) -> CardSecret {
        try! CardSecret.generate(kind: kind, crypto: OpenSSLCrypto())
    }
}

/// Drives a `CheckInMachine` like the runner, in memory.
struct MachineHarness {
    var machine: CheckInMachine
    let clock: ManualClockSource
    let store: InMemoryCheckInStore
    let crypto = OpenSSLCrypto()
    let desk: CheckInDesk
    /// Warnings to report for a card (by its printed text).
    var warnings: [String: WarningNotice] = [:]
    /// Cards (by their printed text) whose stays, to be matched, could not be checked against every warning.
    var warningsUnchecked: Set<String> = []
    /// The randomness the harness answers `.requestRandom` with.
    var randomByte: UInt8 = 0x42
    /// Staff cards enrolled by any harness so far (their random bytes differ).
    static let staffCardsMade = Atomic<Int>(0x80)
    /// What `.enrolCard` answers.
    var enrolResult: Result<Void, StationFailure> = .success(())
    /// What `.makeDiaryCard` answers.
    var makeDiaryResult: Result<Void, StationFailure> = .success(())
    /// What `.persist` answers.
    var persistResult: Result<Void, StationFailure> = .success(())
    private(set) var persisted: StationState?
    private(set) var tapOutcomes: [TapOutcome] = []
    /// The diary card on the reader and the desk that serves it, as the runner's `DiaryCardAccess` would: a job for
    /// another placement finds the card gone.
    var diary: (desk: DiaryDesk, card: MemoryDiaryCard, placement: UInt64)?

    init(
        configuration: StationConfiguration = StationConfiguration(
            staffCode: "STAFF-2026-secret", timeZone: StationFixtures.zone),
        state: StationState = .initial, synchronized: Bool = true, store: InMemoryCheckInStore = InMemoryCheckInStore()
    ) {
        self.store = store
        clock = ManualClockSource(now: StationFixtures.start, isSynchronized: synchronized)
        machine = CheckInMachine(configuration: configuration, state: state, crypto: OpenSSLCrypto())
        desk = CheckInDesk(store: store, crypto: crypto)
    }

    var now: ClockReading { clock.read() }

    /// The machine's own answer to `event`, without carrying anything out.
    mutating func send(_ event: StationEvent) -> [StationAction] {
        machine.handle(event, now: clock.read())
    }

    /// Handles `event` and carries out every action, feeding results back; returns all actions in order.
    @discardableResult
    mutating func run(_ event: StationEvent) -> [StationAction] {
        var all = [StationAction]()
        var pending = [event]
        while !pending.isEmpty {
            let actions = machine.handle(pending.removeFirst(), now: clock.read())
            all += actions
            for action in actions {
                switch action {
                case .recordTap(.kiosk(let card), let venue):
                    let (outcome, _, language) = desk.tap(
                        card, at: venue, clock: clock.read(), collectingMatchable: false)
                    tapOutcomes.append(outcome)
                    // As the runner: only a card whose holder allowed matching is matched.
                    let allowed = (try? desk.profile(of: card).matchingAllowed) == true
                    pending.append(
                        .tapDone(outcome, warning: allowed ? warnings[card.printedText] : nil, language: language))
                case .recordTap(.diary(let card), let venue):
                    var (outcome, language, full): (TapOutcome, Language?, Bool) = (.refused(.cardLeft), nil, false)
                    if let diary, diary.placement == card.placement {
                        let tap = diary.desk.stationTap(diary.card, at: venue, clock: clock.read())
                        (outcome, language, full) = (tap.outcome, tap.language, tap.cardWasFull)
                    }
                    tapOutcomes.append(outcome)
                    pending.append(.tapDone(outcome, warning: nil, language: language, cardWasFull: full))
                case .persist(let state):
                    if case .success = persistResult { persisted = state }
                    pending.append(.persistDone(persistResult))
                case .print(let job): pending.append(.printDone(job.kind, .success(())))
                case .enrolCard: pending.append(.enrolDone(enrolResult))
                case .makeDiaryCard: pending.append(.diaryCardMade(makeDiaryResult))
                case .wipeStore:
                    try! desk.wipeKiosk()
                    pending.append(.wipeDone(.success(())))
                case .expireNow: pending.append(.expiryDone(.success(try! desk.expire(clock: clock.read()))))
                case .requestRandom(let purpose):
                    pending.append(
                        .randomGenerated(purpose, .success([UInt8](repeating: randomByte, count: purpose.byteCount))))
                case .openCard(let card): pending.append(.cardOpened(open(card)))
                case .cardRequest(let card, let request): pending.append(.cardAnswered(serve(request, card: card)))
                case .show, .indicate, .acknowledgeWarning, .countRefusal: break
                }
            }
        }
        return all
    }

    /// Previews a session delivered (`deliver` requests), in order.
    private(set) var delivered: [Preview] = []
    /// The outputs a session may offer.
    var outputs: Set<VisitorSession.OutputKind> = [.print]

    /// What the runner does for `.openCard`, with the desk (warnings from `warnings`, by card).
    func open(_ shown: VisitorCard) -> Result<VisitorSession.CardView, StationFailure> {
        let card = shown.secret
        do throws(TapRefusal) {
            let contents: CheckInDesk.CardContents
            switch shown {
            case .kiosk(let secret): contents = try desk.contents(of: secret, clock: clock.read())
            case .diary(let onReader):
                guard let diary, diary.placement == onReader.placement else { throw .cardLeft }
                contents = try diary.desk.contents(of: diary.card, clock: clock.read())
            }
            let warning = contents.matchable.isEmpty ? nil : warnings[card.printedText]
            let owned = try desk.warningRecords(ownedBy: card, among: machine.state.warnings)
            return .success(
                VisitorSession.CardView(
                    contents: contents, warning: warning, warningAcknowledged: false, outputs: outputs,
                    ownedWarnings: owned,
                    warningsUnchecked: !contents.matchable.isEmpty && warningsUnchecked.contains(card.printedText)))
        } catch {
            return .failure(.refused(error))
        }
    }

    /// What the runner does for `.cardRequest`: the desk's own `serve`, then the contents again or the delivery.
    mutating func serve(_ request: VisitorSession.Request, card: VisitorCard) -> Result<
        VisitorSession.Answer, StationFailure
    > {
        let served: ServedRequest
        do throws(TapRefusal) {
            switch card {
            case .kiosk(let secret):
                served = try desk.serve(request, of: secret, now: Int64(clock.read().now.timeIntervalSince1970))
            case .diary(let onReader):
                guard let diary, diary.placement == onReader.placement else { throw .cardLeft }
                served = try diary.desk.serve(request, of: diary.card, clock: clock.read())
            }
        } catch {
            return .failure(.refused(error))
        }
        switch served {
        case .pin(let check): return .success(.pin(check))
        case .done: return .success(.done)
        case .changed: return open(card).map { .contents($0) }
        case .deliver(let preview):
            delivered.append(preview)
            return .success(.delivered("Printed."))
        }
    }

    /// Opens staff mode with the staff code.
    mutating func openStaff() {
        run(.codeScanned("STAFF-2026-secret"))
    }

    /// Enrols a staff card through staff mode (opened with the staff code), leaves staff mode; returns the card.
    mutating func enrolStaffCard() -> CardSecret? {
        // Each staff card gets randomness of its own, also across harnesses ("another kiosk's card").
        randomByte = UInt8(truncatingIfNeeded: Self.staffCardsMade.add(1, ordering: .relaxed).newValue)
        openStaff()
        run(.staffCommand(.enrolStaffCard))
        let actions = run(.cardRead(.blank))
        run(.staffCommand(.leave))
        return actions.compactMap { if case .enrolCard(let secret) = $0 { secret } else { nil } }.first
    }

    /// Binds the kiosk to `code` through staff mode, then leaves staff mode.
    /// Staff (already in staff mode) enrol a blank card: the new card's secret, its questions on the screen.
    mutating func enrolBlankCard() throws -> CardSecret {
        run(.staffCommand(.enrolCard))
        let enrolled = run(.cardRead(.blank))
        return try #require(enrolled.compactMap { if case .enrolCard(let s) = $0 { s } else { nil } }.first)
    }

    mutating func bind(_ code: String = StationFixtures.cwaCode) {
        openStaff()
        run(.codeScanned(code))
        run(.staffCommand(.leave))
    }
}

extension [StationAction] {
    var messages: [StationMessage] { compactMap { if case .show(let m) = $0 { m } else { nil } } }
    var patterns: [IndicatorPattern] { compactMap { if case .indicate(let p) = $0 { p } else { nil } } }
    var printJobs: [PrintJob] { compactMap { if case .print(let j) = $0 { j } else { nil } } }
    var persistedStates: [StationState] { compactMap { if case .persist(let s) = $0 { s } else { nil } } }
    var taps: Int { filter { if case .recordTap = $0 { true } else { false } }.count }
}
