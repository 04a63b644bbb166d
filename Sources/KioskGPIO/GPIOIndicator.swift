public import KioskCore
public import Logging
import SystemPackage

/// Lights and buzzer on GPIO output lines: plays the feedback table's patterns with an injected clock.
///
/// A pattern started while another is playing takes over at the other's next step. If a line cannot be driven the
/// pattern goes on with the others, and `lastError` and a debug log say which line failed.
public actor GPIOIndicator<C: Clock>: Indicator where C.Duration == Duration {
    private let lines: [IndicatorOutput: any IndicatorLineDriver]
    private let table: FeedbackTable
    private let clock: C
    private let logger: Logger
    private var generation = 0
    /// The outputs currently on.
    public private(set) var lit: Set<IndicatorOutput> = []
    /// The last failure to drive a line, if any.
    public private(set) var lastError: GPIOError?

    /// Requests an output line for every configured output (all off). Outputs missing from `pins` are simply not
    /// shown. Throws on the first chip or line that cannot be had, releasing those already requested.
    public init(pins: [IndicatorOutput: GPIOPin], table: FeedbackTable = .default, clock: C,
                consumer: String = "kiosk", logger: Logger) throws(GPIOError)
    {
        var lines: [IndicatorOutput: any IndicatorLineDriver] = [:]
        for output in IndicatorOutput.allCases {
            guard let pin = pins[output] else { continue }
            lines[output] = try GPIOLineHandle(pin, consumer: consumer, request: .output(initial: false))
        }
        self.init(drivers: lines, table: table, clock: clock, logger: logger)
    }

    /// For tests of the playing logic without a chip.
    init(drivers: [IndicatorOutput: any IndicatorLineDriver], table: FeedbackTable, clock: C, logger: Logger) {
        self.lines = drivers
        self.table = table
        self.clock = clock
        self.logger = logger
    }

    public func show(_ pattern: IndicatorPattern) async {
        generation &+= 1
        let mine = generation
        let timeline = table[pattern].timeline
        for (index, state) in timeline.enumerated() {
            guard generation == mine else { return }
            apply(state.on)
            guard index + 1 < timeline.count else { return }
            let wait = timeline[index + 1].atMilliseconds - state.atMilliseconds
            do {
                try await clock.sleep(for: .milliseconds(wait))
            } catch {
                // Cancelled (shutdown or a newer caller gave up): leave nothing lit.
                if generation == mine { apply([]) }
                return
            }
        }
    }

    public func clear() async {
        generation &+= 1
        apply([])
    }

    private func apply(_ on: Set<IndicatorOutput>) {
        for (output, line) in lines {
            do {
                try line.set(on.contains(output))
            } catch {
                lastError = error
                logger.debug("Indicator line could not be driven", metadata: [
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
    public init(pins: [IndicatorOutput: GPIOPin], table: FeedbackTable = .default, consumer: String = "kiosk",
                logger: Logger) throws(GPIOError)
    {
        try self.init(pins: pins, table: table, clock: ContinuousClock(), consumer: consumer, logger: logger)
    }
}

/// What the indicator needs of a line: drive it. `GPIOLineHandle` in the kiosk, a recorder in tests.
protocol IndicatorLineDriver: AnyObject {
    func set(_ active: Bool) throws(GPIOError)
}

extension GPIOLineHandle: IndicatorLineDriver {}
