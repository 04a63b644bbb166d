public import Foundation
public import KioskCore

/// An `Indicator` that records what it was asked to show, for daemon tests ("a refused card shows `refused`").
///
/// Like the board's lights it returns at once and keeps their timing as values: each pattern is recorded with when it
/// started and when it would end on `clock` (the start plus the pattern's duration; patterns shown together follow
/// each other), and a newer `show` or `clear()` cuts what plays short (`IndicatorHistory`), so a test can see a
/// pattern still playing or replaced by moving the clock. It never sleeps.
public actor RecordingIndicator: Indicator {
    /// Every call in order.
    public enum Call: Equatable, Sendable {
        case show(IndicatorPattern)
        case clear
    }

    public private(set) var calls: [Call] = []
    /// The output states the patterns produced, in order (from `FeedbackTable`'s timelines): the newest pattern's in
    /// full (what the lights do unless something replaces it), a replaced pattern's only those it reached before it
    /// was replaced, and the dark state of each `clear()`.
    public private(set) var states: [Set<IndicatorOutput>] = []
    /// The patterns shown, with when each started, ends, and was cut short.
    public private(set) var history = IndicatorHistory(limit: .max)
    private let table: FeedbackTable
    private let clock: any ClockSource
    /// Where the newest patterns' states start in `states`, when each of them starts (from `started`), and when they
    /// were shown; nil once `clear()` came.
    private var newest: (index: Int, at: [Int], started: Date)?

    /// `clock` times the patterns (a `ManualClockSource` a test moves); by default one that stands still, so every
    /// pattern is replaced the moment the next one starts.
    public init(
        table: FeedbackTable = .default,
        clock: any ClockSource = ManualClockSource(now: Date(timeIntervalSince1970: 1_767_225_600))
    ) {
        self.table = table
        self.clock = clock
    }

    public func show(_ patterns: [IndicatorPattern], sound: Bool) async {
        let now = clock.read().now
        calls += patterns.map { .show($0) }
        history.show(patterns, sound: sound, table: table, at: now)
        cutShort(at: now)
        let timeline = table.timeline(for: patterns, sound: sound)
        newest = (states.count, timeline.map(\.atMilliseconds), now)
        states += timeline.map(\.on)
    }

    public func clear() async {
        calls.append(.clear)
        let now = clock.read().now
        history.clear(at: now)
        cutShort(at: now)
        newest = nil
        states.append([])
    }

    /// The patterns shown, without the clears.
    public var patterns: [IndicatorPattern] {
        calls.compactMap { if case .show(let pattern) = $0 { pattern } else { nil } }
    }

    /// What is lit once the newest pattern has played out (its `hold` outputs), or nothing after `clear()`.
    public var lit: Set<IndicatorOutput> { states.last ?? [] }

    /// The pattern whose steps are playing at the clock's time, if any.
    public var playing: PlayedPattern? { history.playing(at: clock.read().now) }

    /// Drops the states the newest patterns had not reached by `now` (a newer `show` or `clear()` stopped them).
    private func cutShort(at now: Date) {
        guard let newest else { return }
        let elapsed = now.timeIntervalSince(newest.started) * 1000
        let reached = max(1, newest.at.count(where: { Double($0) <= elapsed }))
        states.removeSubrange(newest.index + reached..<newest.index + newest.at.count)
    }
}
