import Foundation
import KioskCore
import KioskDaemon
import KioskGPIO
import KioskSimulation
import Logging
import Synchronization
import Testing

/// The board's lights take their time (a check-in's pattern lasts 1.5 s, with a warning's after it 3 s); the station
/// must not wait for them. These tests run the real `GPIOIndicator` on a real clock, over lines that cost nothing,
/// under the station loop as the daemon runs it.
@Suite struct StationLightsTests {
    /// Lines that cost nothing and keep every level they were set to, with when.
    final class LineLog: Sendable {
        struct Change: Sendable {
            let output: IndicatorOutput
            let on: Bool
            let at: ContinuousClock.Instant
        }

        let changes = Mutex<[Change]>([])

        final class Line: IndicatorLineDriver, Sendable {
            let output: IndicatorOutput
            let log: LineLog
            init(_ output: IndicatorOutput, _ log: LineLog) {
                self.output = output
                self.log = log
            }

            func set(_ active: Bool) throws(GPIOError) {
                log.changes.withLock { $0.append(Change(output: output, on: active, at: .now)) }
            }
        }

        var drivers: [IndicatorOutput: any IndicatorLineDriver] {
            Dictionary(
                uniqueKeysWithValues: IndicatorOutput.allCases.map { ($0, Line($0, self) as any IndicatorLineDriver) })
        }

        /// The first time `output` was set on at or after `instant`.
        func firstOn(_ output: IndicatorOutput, after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
            changes.withLock { $0.first { $0.output == output && $0.on && $0.at >= instant }?.at }
        }
    }

    static func indicator(_ log: LineLog, table: FeedbackTable = .default) -> GPIOIndicator<ContinuousClock> {
        GPIOIndicator(drivers: log.drivers, table: table, clock: ContinuousClock(), logger: Logger(label: "test"))
    }

    /// Two visitors tap 100 ms apart: the second is stored, answered and lit within half a pattern of arriving,
    /// not after the first one's light has played out (≥ 9.9 s later, as when the station waited for the lights).
    /// The check-in pattern is made ten seconds long (a venue may configure long lights), so that the bound leaves a
    /// loaded test machine seconds of room and the defect still fails it.
    @Test func aSecondTapIsServedWhileTheFirstTapsLightStillPlays() async throws {
        let log = LineLog()
        let long = try FeedbackTable.default.overriding(with: [
            .accepted: FeedbackSequence(steps: [
                FeedbackStep(on: [.green, .buzzer], milliseconds: 120), FeedbackStep(on: [.green], milliseconds: 9880),
            ])
        ])
        let indicator = Self.indicator(log, table: long)
        let bench = try StationBench(lights: indicator)
        let loop = StationLoop(runner: bench.runner)
        let running = Task { await loop.run() }
        _ = await loop.handle(.codeScanned("STAFF-CODE-1"))
        _ = await loop.handle(.codeScanned(StationBench.cwaCode))
        _ = await loop.handle(.staffCommand(.leave))
        let pattern = Duration.milliseconds(long[.accepted].totalMilliseconds)
        #expect(pattern == .seconds(10))
        let budget = pattern / 2

        let (first, second) = (try bench.card(), try bench.card())
        let rows = bench.store.allRows.count
        loop.submit(.cardRead(.card(first)))
        try await Task.sleep(for: .milliseconds(100))
        let arrived = ContinuousClock.now
        let report = await loop.handle(.cardRead(.card(second)))
        let answered = ContinuousClock.now - arrived

        guard case .tapRecorded(.checkedIn) = report.steps.first else {
            Issue.record("the second tap was not checked in: \(report.steps)")
            return
        }
        #expect(report.indicated == [.accepted])
        // Stored before the report came back (the desk returns after the commit).
        #expect(bench.store.allRows.count == rows + 2)
        #expect(answered < budget, "the second tap was answered \(answered) after it arrived")
        // Its light started within the budget too (the buzzer of `accepted` goes on with the pattern's first step).
        let lit = try #require(log.firstOn(.buzzer, after: arrived))
        #expect(lit - arrived < budget, "the second tap's light started \(lit - arrived) after it arrived")

        loop.finish()
        await running.value
        await indicator.clear()
    }
}
