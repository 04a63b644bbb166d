import KioskCore
@testable import KioskGPIO
import Logging
import Synchronization
import SystemPackage
import Testing

/// The indicator's playing logic with recording line drivers (the real lines are exercised under QEMU by
/// Tests/scripts/40-gpio-qemu.sh): the order of output states, superseding, cancellation, and a failing line.
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
        .warningPending: FeedbackSequence(steps: [
            FeedbackStep(on: [.amber, .buzzer], milliseconds: 400),
            FeedbackStep(on: [.amber], milliseconds: 400),
        ], hold: [.amber]),
    ])

    @Test func playsTheStepsInOrderAndEndsDark() async {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        await indicator.show(.accepted)
        // The recorder sees each state the indicator applied (one snapshot per line change, merged).
        let states = board.history.withLock { $0 }
        #expect(states.contains([.green, .buzzer]))
        #expect(states.firstIndex(of: [.green, .buzzer])! < states.lastIndex(of: [.green])!)
        #expect(board.lit.withLock { $0 }.isEmpty)
        #expect(await indicator.lit.isEmpty)
    }

    @Test func laterPatternTakesOver() async throws {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        let long = Task { await indicator.show(.warningPending) }
        for _ in 0..<100 where await indicator.lit.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await indicator.lit == [.amber, .buzzer])
        await indicator.show(.accepted)
        await long.value
        // The warning was cut short: its hold state (amber) never came back after the accepted pattern.
        #expect(board.lit.withLock { $0 }.isEmpty)
    }

    @Test func cancellingTheCallerTurnsEverythingOff() async throws {
        let board = Board()
        let indicator = Self.indicator(board, table: Self.fastTable)
        let task = Task { await indicator.show(.warningPending) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value
        #expect(board.lit.withLock { $0 }.isEmpty)
        #expect(await indicator.lit.isEmpty)
    }

    @Test func aBrokenLineDoesNotStopTheOthers() async {
        let board = Board()
        board.broken.withLock { $0 = [.buzzer] }
        let indicator = Self.indicator(board, table: try! FeedbackTable.default.overriding(with: [
            .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red, .buzzer], milliseconds: 1)], hold: [.red]),
        ]))
        await indicator.show(.refused)
        #expect(board.lit.withLock { $0 } == [.red])
        #expect(await indicator.lastError?.operation == .setValue)
    }
}
