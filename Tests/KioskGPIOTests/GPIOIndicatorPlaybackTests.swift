import KioskCore
import Logging
import Synchronization
import SystemPackage
import Testing

@testable import KioskGPIO

/// The indicator's playing logic with recording line drivers (the real lines are exercised under QEMU by
/// Tests/scripts/40-gpio-qemu.sh): the order of output states, playing beside the caller, replacing, clearing, and a
/// failing line.
@Suite struct GPIOIndicatorPlaybackTests {
    /// Records every state change of all lines as one snapshot of the lit outputs.
    final class Board: Sendable {
        let lit = Mutex<Set<IndicatorOutput>>([])
        let history = Mutex<[Set<IndicatorOutput>]>([])
        let broken = Mutex<Set<IndicatorOutput>>([])

        func record() {
            let now = lit.withLock { $0 }
            history.withLock { if $0.last != now { $0.append(now) } }
        }
    }

    final class RecordingLine: IndicatorLineDriver, @unchecked Sendable {
        let output: IndicatorOutput
        let board: Board
        init(_ output: IndicatorOutput, _ board: Board) {
            self.output = output
            self.board = board
        }

        func set(_ active: Bool) throws(GPIOError) {
            if board.broken.withLock({ $0.contains(output) }) {
                throw GPIOError(.setValue, chip: "gpiochip0", offset: 9, errno: .ioError)
            }
            board.lit.withLock { if active { $0.insert(output) } else { $0.remove(output) } }
            board.record()
        }
    }

    static func indicator(_ board: Board, table: FeedbackTable) -> GPIOIndicator<ContinuousClock> {
        var drivers: [IndicatorOutput: any IndicatorLineDriver] = [:]
        for output in IndicatorOutput.allCases { drivers[output] = RecordingLine(output, board) }
        return GPIOIndicator(drivers: drivers, table: table, clock: ContinuousClock(), logger: Logger(label: "test"))
    }

    static let fastTable: FeedbackTable = try! FeedbackTable.default.overriding(with: [
        .accepted: FeedbackSequence(steps: [
            FeedbackStep(on: [.green, .buzzer], milliseconds: 5),
            FeedbackStep(on: [.green], milliseconds: 5),
        ]),
        .warningPending: FeedbackSequence(
            steps: [
                FeedbackStep(on: [.amber, .buzzer], milliseconds: 400),
                FeedbackStep(on: [.amber], milliseconds: 400),
            ], hold: [.amber]),
    ])

    @Test func playsTheStepsInOrderAndEndsDark() async {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        await indicator.show(.accepted)
        await indicator.waitUntilPlayed()
        // The recorder sees each state the indicator applied (one snapshot per line change, merged).
        let states = board.history.withLock { $0 }
        #expect(states.contains([.green, .buzzer]))
        #expect(states.firstIndex(of: [.green, .buzzer])! < states.lastIndex(of: [.green])!)
        #expect(board.lit.withLock { $0 }.isEmpty)
        #expect(await indicator.lit.isEmpty)
    }

    /// On a real clock a pattern takes 1.5 s; `show` sets its first step and returns, the rest plays on.
    @Test func showReturnsAtOnceAndThePatternPlaysOn() async {
        let board = Board()
        let indicator = Self.indicator(board, table: .default)
        let length = FeedbackTable.default[.accepted].duration
        let started = ContinuousClock.now
        await indicator.show(.accepted)
        let returned = ContinuousClock.now - started
        #expect(returned < length / 3, "show took \(returned)")
        #expect(board.lit.withLock { $0 } == [.green, .buzzer])
        await indicator.waitUntilPlayed()
        #expect(ContinuousClock.now - started >= length)
        #expect(board.lit.withLock { $0 }.isEmpty)
        #expect(board.history.withLock { $0 }.contains([.green]))
    }

    @Test func aNewerPatternReplacesTheOlderOne() async throws {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        await indicator.show(.warningPending)  // amber + buzzer 400 ms, amber 400 ms, then amber held
        #expect(await indicator.lit == [.amber, .buzzer])
        await indicator.show(.accepted)  // 10 ms, then dark
        let replacedAt = board.history.withLock { $0.count } - 1
        await indicator.waitUntilPlayed()
        // Past the end of the warning: none of its later steps (amber alone, the amber hold) reached the lines.
        try await Task.sleep(for: .milliseconds(1_000))
        let after = board.history.withLock { Array($0[replacedAt...]) }
        #expect(after.first == [.green, .buzzer])
        #expect(!after.contains { $0.contains(.amber) }, "after the replacement: \(after)")
        #expect(board.lit.withLock { $0 }.isEmpty)
    }

    /// A check-in's light, then the warning's: shown together, played one after the other.
    @Test func patternsShownTogetherPlayOneAfterTheOther() async throws {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        await indicator.show([.accepted, .warningPending])
        #expect(await indicator.lit == [.green, .buzzer])
        await indicator.waitUntilPlayed()
        let states = board.history.withLock { $0 }
        let green = try #require(states.lastIndex(of: [.green]))
        let amber = try #require(states.firstIndex(of: [.amber, .buzzer]))
        #expect(green < amber)
        #expect(board.lit.withLock { $0 } == [.amber])  // the warning's hold
    }

    @Test func clearStopsThePatternAndTurnsEverythingOff() async throws {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        await indicator.show(.warningPending)
        #expect(board.lit.withLock { $0 } == [.amber, .buzzer])
        await indicator.clear()
        #expect(board.lit.withLock { $0 }.isEmpty)
        #expect(await indicator.lit.isEmpty)
        let cleared = board.history.withLock { $0.count }
        // The warning would have played on for 800 ms and held amber: nothing reaches the lines after the clear.
        try await Task.sleep(for: .milliseconds(1_000))
        #expect(board.history.withLock { $0.count } == cleared)
        #expect(board.lit.withLock { $0 }.isEmpty)
    }

    @Test func aBrokenLineDoesNotStopTheOthers() async {
        let board = Board()
        board.broken.withLock { $0 = [.buzzer] }
        let indicator = Self.indicator(
            board,
            table: try! FeedbackTable.default.overriding(with: [
                .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red, .buzzer], milliseconds: 1)], hold: [.red])
            ]))
        await indicator.show(.refused)
        await indicator.waitUntilPlayed()
        #expect(board.lit.withLock { $0 } == [.red])
        #expect(await indicator.lastError?.operation == .setValue)
    }
}
