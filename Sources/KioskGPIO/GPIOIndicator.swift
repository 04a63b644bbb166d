public import KioskCore
public import Logging
import SystemPackage

/// Lights and buzzer on GPIO output lines: plays the feedback table's patterns with an injected clock.
///
/// A pattern plays beside the station, never inside the event it has in hand: `show(_:)` sets the pattern's first
/// step and returns; the later steps play on the indicator's own task (a pattern lasts about 1.5 s, a check-in's
/// light followed by a warning's 3 s, and the next tap must not wait for them). A newer `show(_:)` cancels what
/// plays: none of the older patterns' later steps reach the lines. `clear()` cancels the playing task, waits for it to end, then turns every line off, so nothing
/// is lit after shutdown. If a line cannot be driven the pattern goes on with the others, and `lastError` and a debug
/// log say which line failed.
///
/// The one task the indicator keeps is the pattern playing now (at most `FeedbackSequence.maximumTotalMilliseconds`
/// long); it is not a service loop: it ends with its pattern, or when a newer pattern or `clear()` cancels it.
public actor GPIOIndicator<C: Clock>: Indicator where C.Duration == Duration {
    private let lines: [IndicatorOutput: any IndicatorLineDriver]
    private let table: FeedbackTable
    private let clock: C
    private let logger: Logger
    /// Bumped by every `show(_:)` and `clear()`: a playing task whose generation is no longer current touches no line.
    private var generation = 0
    /// The task playing the current pattern's later steps; nil when none is playing.
    private var player: Task<Void, Never>?
    /// The outputs currently on.
    public private(set) var lit: Set<IndicatorOutput> = []
    /// The last failure to drive a line, if any.
    public private(set) var lastError: GPIOError?

    /// Requests an output line for every configured output (all off). Outputs missing from `pins` are simply not
    /// shown. Throws on the first chip or line that cannot be had, releasing those already requested.
    public init(
        pins: [IndicatorOutput: GPIOPin], table: FeedbackTable = .default, clock: C,
        consumer: String = "kiosk", logger: Logger
    ) throws(GPIOError) {
        var lines: [IndicatorOutput: any IndicatorLineDriver] = [:]
        for output in IndicatorOutput.allCases {
            guard let pin = pins[output] else { continue }
            lines[output] = try GPIOLineHandle(pin, consumer: consumer, request: .output(initial: false))
        }
        self.init(drivers: lines, table: table, clock: clock, logger: logger)
    }

    /// Plays on other lines than GPIO lines: a recorder in tests, a line that costs nothing in the benchmarks.
    public init(drivers: [IndicatorOutput: any IndicatorLineDriver], table: FeedbackTable, clock: C, logger: Logger) {
        self.lines = drivers
        self.table = table
        self.clock = clock
        self.logger = logger
    }

    /// Sets the first pattern's first step and returns; the rest plays on the indicator's task (the patterns one
    /// after the other), replacing whatever was still playing.
    public func show(_ patterns: [IndicatorPattern], sound: Bool) async {
        let mine = stopPlaying()
        let timeline = table.timeline(for: patterns, sound: sound)
        let start = clock.now
        apply(timeline[0].on)
        player = timeline.count > 1 ? Task { await self.play(timeline, from: start, generation: mine) } : nil
    }

    /// Stops a playing pattern, waits until its task has ended, then turns every line off (unless a newer pattern
    /// was shown meanwhile: it stands).
    public func clear() async {
        let mine = stopPlaying()
        let stopped = player
        player = nil
        await stopped?.value
        guard generation == mine else { return }
        apply([])
    }

    /// Waits until the pattern playing now has played out or been replaced (for tests and tools).
    public func waitUntilPlayed() async {
        await player?.value
    }

    /// Starts a new generation: the playing task is cancelled and from now on touches no line. Returns the new
    /// generation. The cancelled task stays in `player` until the caller replaces or awaits it.
    private func stopPlaying() -> Int {
        generation &+= 1
        player?.cancel()
        return generation
    }

    /// The timeline's later steps, each at its time from `start`; ends early once `mine` is no longer current.
    private func play(
        _ timeline: [(atMilliseconds: Int, on: Set<IndicatorOutput>)], from start: C.Instant,
        generation mine: Int
    ) async {
        for state in timeline.dropFirst() {
            do {
                try await clock.sleep(until: start.advanced(by: .milliseconds(state.atMilliseconds)), tolerance: nil)
            } catch {
                return  // cancelled: a newer pattern or clear() took over
            }
            guard generation == mine else { return }
            apply(state.on)
        }
        if generation == mine { player = nil }
    }

    private func apply(_ on: Set<IndicatorOutput>) {
        for (output, line) in lines {
            do {
                try line.set(on.contains(output))
            } catch {
                lastError = error
                logger.debug(
                    "Indicator line could not be driven",
                    metadata: [
                        "gpio.chip": "\(error.chip)", "gpio.offset": "\(error.offset.map(String.init) ?? "-")",
                        "gpio.errno": "\(error.errno.rawValue)",
                    ])
            }
        }
        lit = on.intersection(lines.keys)
    }
}

extension GPIOIndicator where C == ContinuousClock {
    /// An indicator that plays patterns in real time.
    public init(
        pins: [IndicatorOutput: GPIOPin], table: FeedbackTable = .default, consumer: String = "kiosk",
        logger: Logger
    ) throws(GPIOError) {
        try self.init(pins: pins, table: table, clock: ContinuousClock(), consumer: consumer, logger: logger)
    }
}

/// What the indicator needs of a line: drive it. `GPIOLineHandle` in the kiosk, a recorder in tests.
public protocol IndicatorLineDriver: AnyObject {
    func set(_ active: Bool) throws(GPIOError)
}

extension GPIOLineHandle: IndicatorLineDriver {}
