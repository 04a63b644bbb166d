import Foundation
import KioskCore
import KioskDaemon
import KioskGPIO
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Logging
import Synchronization

/// Taps arriving back to back while the board's light patterns play in real time: the station runner and its loop
/// as the daemon runs them, the durable SQLite store, and a `GPIOIndicator` on a real `ContinuousClock` whose lines
/// cost nothing (they only note when they were set). Every tap is a new card checking in (`accepted`: 1.5 s of
/// light), one every `interval` (300 ms: the next visitor taps while the last one's light still plays).
///
/// Measured per tap, from the card's read reaching the station loop ("placed"; the reader's own time is what the
/// first benchmark measures): the durable commit returning ("stored"), the station asking for the light, the
/// pattern's first step reaching the lines ("light started"), and the tap's report (the whole event handled).
///
/// `waitingForLights` plays what the station did before the lights played beside it: the station's light action
/// returns only once the pattern has played out (as `GPIOIndicator.show` did when it slept through the pattern), so
/// each tap waits for the previous tap's light.
enum LightsBenchmark {
    static func run(taps: Int, interval: Duration, waitingForLights: Bool = false) async throws {
        let directory = "/tmp/kbench-lights-" + UUID().uuidString.prefix(8).lowercased()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let crypto = OpenSSLCrypto()
        let sqlite = try SQLiteCheckInStore(directory: directory)
        let store = TimedStore(sqlite)
        let lines = FreeLines()
        let lights = AskedIndicator(
            GPIOIndicator(
                drivers: lines.drivers, table: .default, clock: ContinuousClock(),
                logger: logger), waiting: waitingForLights)
        let clock = ManualClockSource(now: Date())
        let runner = try StationRunner(
            configuration: StationConfiguration(staffCode: "KIOSK-STAFF:BENCH"),
            desk: CheckInDesk(store: store, crypto: crypto), indicator: lights, printer: NoPrinter(),
            enroller: NoEnroller(), warnings: NoWarnings(), clock: clock, settings: sqlite, logger: logger)
        let loop = StationLoop(runner: runner)
        let running = Task { await loop.run() }

        // Set up: staff mode, bind a venue, leave; then let the set-up's lights play out.
        _ = await loop.handle(.codeScanned("KIOSK-STAFF:BENCH"))
        let fields = CWAVenueEncoder.Fields(
            description: "Bench hall", address: "Street 1", type: 3, defaultCheckInLengthInMinutes: 60)
        _ = await loop.handle(
            .codeScanned(
                CWAVenueEncoder.url(
                    payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 1, count: 16)))))
        _ = await loop.handle(.staffCommand(.leave))
        try await Task.sleep(for: .seconds(3))
        let cards = try (0..<taps).map { _ in try CardSecret.generate(kind: .visitor, crypto: crypto) }
        store.reset()
        lights.reset()
        lines.reset()

        // The reports, taken as they come (the observer keeps only the newest 32).
        let reports = loop.expect([.cardRead])
        let collected = Task { () -> [(ContinuousClock.Instant, StationReport)] in
            var result = [(ContinuousClock.Instant, StationReport)]()
            while result.count < taps, let handled = await reports.next(timeout: .seconds(3600)) {
                result.append((.now, handled.report))
            }
            return result
        }
        print(
            "Lights benchmark: \(taps) taps, one every \(interval), real-timed patterns (accepted: \(FeedbackTable.default[.accepted].duration))"
                + (waitingForLights ? ", the station waiting for each pattern to play out (as before the fix)" : ""))
        var placed = [ContinuousClock.Instant]()
        placed.reserveCapacity(taps)
        let first = ContinuousClock.now + .milliseconds(50)
        for (index, card) in cards.enumerated() {
            try await ContinuousClock().sleep(until: first + interval * index, tolerance: nil)
            placed.append(.now)
            loop.submit(.cardRead(.card(card)))
        }
        let handled = await collected.value
        reports.cancel()
        await lights.inner.clear()
        loop.finish()
        await running.value
        try sqlite.close()

        let stored = store.times()
        let asked = lights.times()
        let changes = lines.times()
        guard stored.count == taps, asked.count == taps, handled.count == taps else {
            print(
                "Not every tap was stored and lit: \(stored.count) stored, \(asked.count) lights, \(handled.count) reports"
            )
            return
        }
        var outcomes = [String: Int]()
        for (_, report) in handled {
            for step in report.steps {
                if case .tapRecorded(let outcome) = step {
                    outcomes["\(outcome)".prefix(while: { $0 != "(" }).description, default: 0] += 1
                }
            }
        }
        // The light started when the first line was set after the station asked for it.
        var started = [ContinuousClock.Instant]()
        var next = 0
        for instant in asked {
            while next < changes.count, changes[next] < instant { next += 1 }
            started.append(next < changes.count ? changes[next] : instant)
        }
        func report(_ name: String, _ ends: [ContinuousClock.Instant]) {
            let latencies = zip(placed, ends).map { $1 - $0 }.sorted()
            func at(_ p: Double) -> Double {
                latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))].fractionalMilliseconds
            }
            print(
                String(
                    format: "  %@  p50 %8.2f ms   p90 %8.2f ms   p99 %8.2f ms   max %8.2f ms",
                    name.padding(toLength: 30, withPad: " ", startingAt: 0), at(0.5), at(0.9), at(0.99), at(1.0)))
        }
        report("placed → durably stored", stored)
        report("placed → light asked", asked)
        report("placed → light started", started)
        report("placed → tap's event handled", handled.map(\.0))
        print(
            "  outcomes: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        print(
            String(
                format: "  whole run: %.1f s for %d taps",
                ((handled.last?.0 ?? first) - first).fractionalMilliseconds / 1000, taps))
    }
}

/// Remembers when each call happened.
final class Instants: Sendable {
    private let instants = Mutex<[ContinuousClock.Instant]>([])

    func now() { instants.withLock { $0.append(.now) } }
    func reset() { instants.withLock { $0.removeAll(keepingCapacity: true) } }
    func times() -> [ContinuousClock.Instant] { instants.withLock { $0 } }
}

/// The kiosk's store, noting when each commit has returned (durably stored).
final class TimedStore: CheckInStore {
    let inner: SQLiteCheckInStore
    private let commits = Instants()
    init(_ inner: SQLiteCheckInStore) { self.inner = inner }

    func reset() { commits.reset() }
    func times() -> [ContinuousClock.Instant] { commits.times() }

    func stays(handle: [UInt8]) throws(StoreError) -> [StoredStay] { try inner.stays(handle: handle) }
    func commit(handle: [UInt8], upserts: [StoredStay], deletions: [[UInt8]]) throws(StoreError) {
        try inner.commit(handle: handle, upserts: upserts, deletions: deletions)
        commits.now()
    }
    func deleteAll(handle: [UInt8]) throws(StoreError) -> Int { try inner.deleteAll(handle: handle) }
    func expire(throughHour hour: Int64) throws(StoreError) -> Int { try inner.expire(throughHour: hour) }
    func wipe() throws(StoreError) { try inner.wipe() }
    func counts() throws(StoreError) -> StoreCounts { try inner.counts() }
    func handleSalt(orStore fresh: [UInt8]) throws(StoreError) -> [UInt8] { try inner.handleSalt(orStore: fresh) }
    func profile(handle: [UInt8]) throws(StoreError) -> [UInt8]? { try inner.profile(handle: handle) }
    func saveProfile(handle: [UInt8], sealed: [UInt8]) throws(StoreError) {
        try inner.saveProfile(handle: handle, sealed: sealed)
    }
    func isBlocked(handle: [UInt8]) throws(StoreError) -> Bool { try inner.isBlocked(handle: handle) }
    func block(handle: [UInt8]) throws(StoreError) -> Int { try inner.block(handle: handle) }
}

/// The board's indicator, noting when the station asked it for a pattern (and, `waiting`, returning only once the
/// pattern has played out, as the indicator did before the fix).
final class AskedIndicator: Indicator {
    let inner: GPIOIndicator<ContinuousClock>
    let waiting: Bool
    private let asked = Instants()
    init(_ inner: GPIOIndicator<ContinuousClock>, waiting: Bool) {
        self.inner = inner
        self.waiting = waiting
    }

    func reset() { asked.reset() }
    func times() -> [ContinuousClock.Instant] { asked.times() }

    func show(_ patterns: [IndicatorPattern], sound: Bool) async {
        asked.now()
        await inner.show(patterns, sound: sound)
        if waiting { await inner.waitUntilPlayed() }
    }

    func clear() async { await inner.clear() }
}

/// Output lines that cost nothing: they only note when they were set (one note per pattern step and line).
final class FreeLines: Sendable {
    private let sets = Instants()

    final class Line: IndicatorLineDriver, Sendable {
        let sets: Instants
        init(_ sets: Instants) { self.sets = sets }
        func set(_ active: Bool) throws(GPIOError) { sets.now() }
    }

    var drivers: [IndicatorOutput: any IndicatorLineDriver] {
        Dictionary(uniqueKeysWithValues: IndicatorOutput.allCases.map { ($0, Line(sets) as any IndicatorLineDriver) })
    }

    func reset() { sets.reset() }
    func times() -> [ContinuousClock.Instant] { sets.times() }
}

/// The bench enrols no card.
struct NoEnroller: CardEnroller {
    func enrol(_ secret: CardSecret) async throws(StationFailure) { throw .enrolment(reason: "no reader") }
}
