public import Foundation

/// Why a feedback table from configuration was refused. Names the pattern, never anything about a visitor.
public enum FeedbackTableError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSteps(IndicatorPattern)
    case badRepeatCount(IndicatorPattern)
    case stepTooLong(IndicatorPattern)
    case patternTooLong(IndicatorPattern)
    /// The JSON could not be read (unknown pattern or output name, wrong type); `reason` says where.
    case malformed(reason: String)

    public var description: String {
        switch self {
        case .noSteps(let p): "feedback pattern '\(p.rawValue)' has no steps"
        case .badRepeatCount(let p): "feedback pattern '\(p.rawValue)' must repeat 1 to 20 times"
        case .stepTooLong(let p):
            "feedback pattern '\(p.rawValue)' has a step outside 0…\(FeedbackSequence.maximumStepMilliseconds) ms"
        case .patternTooLong(let p):
            "feedback pattern '\(p.rawValue)' lasts longer than \(FeedbackSequence.maximumTotalMilliseconds) ms"
        case .malformed(let reason): "the feedback patterns in the configuration cannot be read: \(reason)"
        }
    }
}

/// The light and sound of every `IndicatorPattern`: the defaults below, which configuration can override pattern by
/// pattern (a venue may want a quieter buzzer or longer lights for accessibility).
public struct FeedbackTable: Sendable, Equatable {
    public private(set) var sequences: [IndicatorPattern: FeedbackSequence]

    /// The sequence for `pattern` (every pattern has one).
    public subscript(pattern: IndicatorPattern) -> FeedbackSequence {
        sequences[pattern] ?? FeedbackTable.default.sequences[pattern]!
    }

    /// Green with one short beep: checked in. Green with two beeps: checked out. Red with a long low beep: refused.
    /// Amber blinking with three beeps: a warning is waiting. Red blinking: error. Amber steady: clock not set.
    public static let `default` = FeedbackTable(sequences: [
        .accepted: FeedbackSequence(steps: [
            FeedbackStep(on: [.green, .buzzer], milliseconds: 120),
            FeedbackStep(on: [.green], milliseconds: 1380),
        ]),
        .checkedOut: FeedbackSequence(steps: [
            FeedbackStep(on: [.green, .buzzer], milliseconds: 100),
            FeedbackStep(on: [.green], milliseconds: 100),
            FeedbackStep(on: [.green, .buzzer], milliseconds: 100),
            FeedbackStep(on: [.green], milliseconds: 1200),
        ]),
        .refused: FeedbackSequence(steps: [
            FeedbackStep(on: [.red, .buzzer], milliseconds: 600),
            FeedbackStep(on: [.red], milliseconds: 900),
        ]),
        .warningPending: FeedbackSequence(
            steps: [
                FeedbackStep(on: [.amber, .buzzer], milliseconds: 150),
                FeedbackStep(on: [.amber], milliseconds: 150),
                FeedbackStep(on: [], milliseconds: 200),
            ], repeatCount: 3, hold: [.amber]),
        .error: FeedbackSequence(
            steps: [
                FeedbackStep(on: [.red], milliseconds: 250),
                FeedbackStep(on: [], milliseconds: 250),
            ], repeatCount: 4, hold: [.red]),
        .clockNotSet: FeedbackSequence(
            steps: [
                FeedbackStep(on: [.amber], milliseconds: 1000)
            ], hold: [.amber]),
        .timeRunningOut: FeedbackSequence(
            steps: [
                FeedbackStep(on: [.amber, .buzzer], milliseconds: 80),
                FeedbackStep(on: [.amber], milliseconds: 420),
            ], repeatCount: 2),
    ])

    private init(sequences: [IndicatorPattern: FeedbackSequence]) {
        self.sequences = sequences
    }

    /// The output states of `patterns` played one after the other, with the time each starts at (from the start of
    /// the first), ending with the last pattern's `hold` state when it is over. Each pattern starts when the one
    /// before it has played its steps (the earlier ones' `hold` states are skipped). The one place that decides how
    /// patterns shown together follow each other, for the board's lights and for the recorded ones alike.
    /// Without `sound` the buzzer is left out (the lights keep their times; states that became alike are merged).
    public func timeline(for patterns: [IndicatorPattern], sound: Bool = true)
        -> [(atMilliseconds: Int, on: Set<IndicatorOutput>)]
    {
        var result: [(atMilliseconds: Int, on: Set<IndicatorOutput>)] = []
        var offset = 0
        for (index, pattern) in patterns.enumerated() {
            let sequence = self[pattern]
            var timeline = sequence.timeline
            if index < patterns.count - 1 { timeline.removeLast() }
            result += timeline.map { (offset + $0.atMilliseconds, $0.on) }
            offset += sequence.totalMilliseconds
        }
        if !sound {
            var quiet: [(atMilliseconds: Int, on: Set<IndicatorOutput>)] = []
            for (position, state) in result.enumerated() {
                let on = state.on.subtracting([.buzzer])
                // The last state stays (it marks the end); an earlier one like the one before it adds nothing.
                if position < result.count - 1, quiet.last?.on == on { continue }
                quiet.append((state.atMilliseconds, on))
            }
            result = quiet
        }
        return result.isEmpty ? [(0, [])] : result
    }

    /// This table with the patterns in `overrides` replaced (each validated first).
    public func overriding(with overrides: [IndicatorPattern: FeedbackSequence]) throws(FeedbackTableError)
        -> FeedbackTable
    {
        var copy = self
        for (pattern, sequence) in overrides {
            try sequence.validate(as: pattern)
            copy.sequences[pattern] = sequence
        }
        return copy
    }

    /// The default table overridden by a JSON object keyed by pattern name
    /// (`{"accepted": {"steps": [{"on": ["green"], "ms": 500}]}}`). Unknown pattern or output names are an error, so a
    /// typo in the configuration is noticed at start rather than silently ignored.
    public static func decode(json: Data) throws(FeedbackTableError) -> FeedbackTable {
        let raw: [String: FeedbackSequence]
        do {
            raw = try JSONDecoder().decode([String: FeedbackSequence].self, from: json)
        } catch let error as DecodingError {
            throw .malformed(reason: Self.describe(error))
        } catch {
            throw .malformed(reason: "not JSON")
        }
        var overrides: [IndicatorPattern: FeedbackSequence] = [:]
        for (name, sequence) in raw {
            guard let pattern = IndicatorPattern(rawValue: name) else {
                throw .malformed(
                    reason:
                        "unknown pattern '\(name)' (known: \(IndicatorPattern.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            overrides[pattern] = sequence
        }
        return try FeedbackTable.default.overriding(with: overrides)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context): return "invalid value at '\(path(context))'"
        case .keyNotFound(let key, let context): return "missing '\(key.stringValue)' at '\(path(context))'"
        case .typeMismatch(_, let context): return "wrong type at '\(path(context))'"
        case .valueNotFound(_, let context): return "missing value at '\(path(context))'"
        @unknown default: return "unreadable"
        }
    }
}
