public import Foundation

/// One pattern as the lights played it: when it started, when it ends if nothing replaces it (the start plus the
/// pattern's playing time, `FeedbackSequence.duration`), and when a newer pattern or `clear()` cut it short.
public struct PlayedPattern: Sendable, Equatable, Codable {
    public let pattern: IndicatorPattern
    public let started: Date
    /// When the pattern's last step ends (its `hold` outputs stay on after that, until the next pattern).
    public let ends: Date
    /// When a newer pattern or `clear()` stopped it; nil while nothing has.
    public fileprivate(set) var stopped: Date?
    /// Whether its buzzer sounded (false while the kiosk spoke: lights only).
    public var sound: Bool

    public init(pattern: IndicatorPattern, started: Date, ends: Date, stopped: Date? = nil, sound: Bool = true) {
        self.pattern = pattern
        self.started = started
        self.ends = ends
        self.stopped = stopped
        self.sound = sound
    }

    /// Whether its steps are still playing at `now`.
    public func isPlaying(at now: Date) -> Bool {
        now >= started && now < min(ends, stopped ?? ends)
    }

    /// Whether it was stopped before its last step had ended.
    public var wasCutShort: Bool { stopped.map { $0 < ends } ?? false }
}

/// What the lights played, as values: the one place where a fake or simulated indicator decides that a newer
/// pattern replaces the one playing (at the newer one's start) and that `clear()` stops it. The board's
/// `GPIOIndicator` does the same with real time: it cancels the older pattern's task.
public struct IndicatorHistory: Sendable, Equatable {
    /// The patterns in the order they were shown, the newest last (at most `limit`).
    public private(set) var played: [PlayedPattern] = []
    /// Whether `clear()` came after the last pattern (nothing is lit).
    public private(set) var cleared = false
    private let limit: Int

    public init(limit: Int = 200) {
        self.limit = limit
    }

    /// `patterns` start at `now`, one after the other, each playing for its sequence's duration (as
    /// `FeedbackTable.timeline(for:)` plays them); whatever was playing or still to come stops at `now`.
    public mutating func show(_ patterns: [IndicatorPattern], sound: Bool = true, table: FeedbackTable, at now: Date) {
        stopPlaying(at: now)
        var start = now
        for pattern in patterns {
            let ends = start.addingTimeInterval(table[pattern].duration.fractionalMilliseconds / 1000)
            played.append(PlayedPattern(pattern: pattern, started: start, ends: ends, sound: sound))
            start = ends
        }
        cleared = false
        if played.count > limit { played.removeFirst(played.count - limit) }
    }

    /// Stops what is playing or still to come at `now`; every output is off afterwards.
    public mutating func clear(at now: Date) {
        stopPlaying(at: now)
        cleared = true
    }

    /// The pattern whose steps are playing at `now`, if any.
    public func playing(at now: Date) -> PlayedPattern? {
        played.last { $0.isPlaying(at: now) }
    }

    /// A pattern not yet over at `now` stops then (one that had not started yet stops at its start: it never played).
    private mutating func stopPlaying(at now: Date) {
        for index in played.indices.reversed() {
            guard played[index].stopped == nil, now < played[index].ends else { break }
            played[index].stopped = max(now, played[index].started)
        }
    }
}
