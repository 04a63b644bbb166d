import Foundation
import KioskCore
import KioskDaemon
import KioskLogTesting
import KioskOpenSSL
import KioskPrinter
import KioskSimulation
import Logging
import Synchronization

/// A printer that keeps every receipt (ESC/POS bytes), or fails like a missing printer.
actor RecordingPrinter: ReceiptPrinter {
    private(set) var receipts: [[UInt8]] = []
    var failure: PrinterError?

    func setFailure(_ failure: PrinterError?) { self.failure = failure }

    func print(_ bytes: [UInt8]) async throws(PrinterError) {
        if let failure { throw failure }
        receipts.append(bytes)
    }

    /// The text lines of every receipt, via the ESC/POS interpreter.
    func lines() throws -> [[String]] {
        try receipts.map { try ESCPOSInterpreter.render($0, paper: .mm58).lines.map(\.text) }
    }
}

/// An enroller that records the secrets it was given and answers with a set result.
actor FakeEnroller: CardEnroller {
    private(set) var enrolled: [CardSecret] = []
    var failure: StationFailure?

    func setFailure(_ failure: StationFailure?) { self.failure = failure }

    func enrol(_ secret: CardSecret) async throws(StationFailure) {
        if let failure { throw failure }
        enrolled.append(secret)
    }
}

/// Warnings through the real matcher: published CKPR records in a `WarningIndex`.
final class IndexWarningSource: WarningSource {
    private let index = Mutex(WarningIndex())
    let clock: ManualClockSource
    let crypto = OpenSSLCrypto()

    init(clock: ManualClockSource) { self.clock = clock }

    /// Publishes a report for `locationId` covering `start` for `minutes` (transmission risk level 7).
    func publish(locationId: [UInt8], start: Date, minutes: Int) throws {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        let interval = UInt32(start.timeIntervalSince1970 / 600)
        let record = try CKPR.seal(
            PresenceReport(
                startIntervalNumber: interval, period: UInt16(minutes / 10),
                transmissionRiskLevel: 7), keys: keys)
        let day = Int64(start.timeIntervalSince1970 / 86_400)
        let tags = Set(try WarningMatcher.tags(locationId: locationId, days: day...day, crypto: crypto))
        _ = index.withLock { $0.add([record], keepingTags: tags) }
    }

    /// How often a tap's stays were matched.
    let matchCalls = Mutex(0)

    var holdsWarnings: Bool { get async { index.withLock { $0.count > 0 } } }

    func match(_ stays: [MatchableStay]) async -> ExposureResult? {
        matchCalls.withLock { $0 += 1 }
        let index = self.index.withLock { $0 }
        let now = Int64(clock.read().now.timeIntervalSince1970)
        let result = WarningMatcher.match(stays: stays, index: index, now: now, crypto: crypto)
        return result.matches.isEmpty ? nil : result
    }
}

/// A runner over in-memory ports with a manual clock (and the recording indicator, unless `lights` are given).
struct StationBench {
    let clock: ManualClockSource
    let store: InMemoryCheckInStore
    let settings: InMemoryStationStateStore
    let indicator: RecordingIndicator
    let printer: RecordingPrinter
    let enroller: FakeEnroller
    let warnings: IndexWarningSource
    let crypto: OpenSSLCrypto
    let log = CapturedLog()
    let runner: StationRunner

    static let cwaCode =
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"

    init(
        settings: InMemoryStationStateStore = InMemoryStationStateStore(), printer: (any ReceiptPrinter)? = nil,
        lights: (any Indicator)? = nil, codePage: PrinterCodePage = .cp1252, logLevel: Logger.Level = .trace
    ) throws {
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_772_445_600))  // 2026-03-02 10:00 UTC
        let store = InMemoryCheckInStore()
        let indicator = RecordingIndicator()
        let recording = RecordingPrinter()
        let enroller = FakeEnroller()
        let warnings = IndexWarningSource(clock: clock)
        let crypto = OpenSSLCrypto()
        runner = try StationRunner(
            configuration: StationConfiguration(
                staffCode: "STAFF-CODE-1", timeZone: VenueZone(identifier: "Europe/Rome")),
            desk: CheckInDesk(store: store, crypto: crypto), indicator: lights ?? indicator,
            printer: printer ?? recording,
            enroller: enroller, warnings: warnings, clock: clock, settings: settings, codePage: codePage,
            logger: log.logger(label: "station-test", level: logLevel))
        self.clock = clock
        self.store = store
        self.settings = settings
        self.indicator = indicator
        self.printer = recording
        self.enroller = enroller
        self.warnings = warnings
        self.crypto = crypto
    }

    /// A fresh card; `matching`: its holder allowed matching against warnings (saved in its profile, as the answer at
    /// enrolment is).
    func card(_ kind: CardKind = .visitor, matching: Bool = false) throws -> CardSecret {
        let card = try CardSecret.generate(kind: kind, crypto: crypto)
        if matching {
            try CheckInDesk(store: store, crypto: crypto).saveProfile(CardProfile(matchingAllowed: true), of: card)
        }
        return card
    }

    /// Staff code, scan the venue's poster, leave.
    func bind(_ code: String = StationBench.cwaCode) async {
        _ = await runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await runner.handle(.codeScanned(code))
        _ = await runner.handle(.staffCommand(.leave))
    }

    var logLines: [String] { log.lines }
}
