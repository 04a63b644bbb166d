/// One step of a feedback pattern: the outputs in `on` are on (every other output is off) for `milliseconds`.
public struct FeedbackStep: Sendable, Codable, Equatable, Hashable {
    /// Outputs that are on during this step; all others are off.
    public var on: Set<IndicatorOutput>
    /// How long the step lasts.
    public var milliseconds: Int

    public init(on: Set<IndicatorOutput>, milliseconds: Int) {
        self.on = on
        self.milliseconds = milliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case on
        case milliseconds = "ms"
    }
}

/// A feedback pattern as data: steps played `repeatCount` times, then the `hold` outputs stay on until the next
/// pattern (empty `hold`: everything off).
///
/// JSON: `{"steps": [{"on": ["green", "buzzer"], "ms": 120}, {"on": ["green"], "ms": 880}], "repeat": 1, "hold": []}`;
/// `repeat` and `hold` may be left out.
public struct FeedbackSequence: Sendable, Codable, Equatable, Hashable {
    public var steps: [FeedbackStep]
    public var repeatCount: Int
    public var hold: Set<IndicatorOutput>

    public init(steps: [FeedbackStep], repeatCount: Int = 1, hold: Set<IndicatorOutput> = []) {
        self.steps = steps
        self.repeatCount = repeatCount
        self.hold = hold
    }

    private enum CodingKeys: String, CodingKey {
        case steps
        case repeatCount = "repeat"
        case hold
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        steps = try container.decode([FeedbackStep].self, forKey: .steps)
        repeatCount = try container.decodeIfPresent(Int.self, forKey: .repeatCount) ?? 1
        hold = try container.decodeIfPresent(Set<IndicatorOutput>.self, forKey: .hold) ?? []
    }

    /// The longest single step accepted from configuration (a buzzer stuck on for minutes is a configuration mistake).
    public static let maximumStepMilliseconds = 10_000
    /// The longest whole pattern accepted from configuration: feedback must not hold up the next visitor.
    public static let maximumTotalMilliseconds = 30_000

    /// Total playing time (without the `hold` state, which lasts until the next pattern).
    public var totalMilliseconds: Int {
        steps.reduce(0) { $0 + $1.milliseconds } * repeatCount
    }

    /// Total playing time as a duration: a pattern started at `t` plays until `t + duration` unless replaced.
    public var duration: Duration { .milliseconds(totalMilliseconds) }

    /// The output states in playing order, with the time each starts at (from the start of the pattern), ending with
    /// the `hold` state at `totalMilliseconds` (always, so a player knows when the pattern is over). Neighbouring steps
    /// with the same outputs are merged.
    public var timeline: [(atMilliseconds: Int, on: Set<IndicatorOutput>)] {
        var result: [(atMilliseconds: Int, on: Set<IndicatorOutput>)] = []
        var time = 0
        for _ in 0..<max(repeatCount, 0) {
            for step in steps where step.milliseconds > 0 {
                if result.last?.on != step.on { result.append((time, step.on)) }
                time += step.milliseconds
            }
        }
        result.append((time, hold))
        return result
    }

    /// Checks the limits above; configuration loading calls this for every pattern it reads.
    public func validate(as pattern: IndicatorPattern) throws(FeedbackTableError) {
        guard !steps.isEmpty else { throw .noSteps(pattern) }
        guard (1...20).contains(repeatCount) else { throw .badRepeatCount(pattern) }
        for step in steps where !(0...Self.maximumStepMilliseconds).contains(step.milliseconds) {
            throw .stepTooLong(pattern)
        }
        guard totalMilliseconds <= Self.maximumTotalMilliseconds else { throw .patternTooLong(pattern) }
    }
}
