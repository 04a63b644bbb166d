public import KioskCore

/// An `Indicator` that records what it was asked to show, for daemon tests ("a refused card shows `refused`").
/// Optionally plays each pattern's timeline instantly into `states`, so a test can check what the lights did.
public actor RecordingIndicator: Indicator {
    /// Every call in order.
    public enum Call: Equatable, Sendable {
        case show(IndicatorPattern)
        case clear
    }

    public private(set) var calls: [Call] = []
    /// The output states the patterns would have produced, in order (from `FeedbackTable`'s timelines).
    public private(set) var states: [Set<IndicatorOutput>] = []
    private let table: FeedbackTable

    public init(table: FeedbackTable = .default) {
        self.table = table
    }

    public func show(_ pattern: IndicatorPattern) async {
        calls.append(.show(pattern))
        states += table[pattern].timeline.map(\.on)
    }

    public func clear() async {
        calls.append(.clear)
        states.append([])
    }

    /// The patterns shown, without the clears.
    public var patterns: [IndicatorPattern] {
        calls.compactMap { if case .show(let pattern) = $0 { pattern } else { nil } }
    }

    /// What is lit now: the last state played.
    public var lit: Set<IndicatorOutput> { states.last ?? [] }
}
