/// Software debounce for one push button, as a value: feed it the raw edges the GPIO line reports (with the kernel's
/// monotonic timestamps) and ask it, at or after `deadline`, whether the level has settled.
///
/// A new level is reported only once the raw level has stayed there for `interval` without another edge, so contact
/// bounce (a burst of edges within a few milliseconds) yields exactly one press and one release, and a glitch shorter
/// than `interval` yields nothing. The debouncer never reads a clock: the caller passes times in.
public struct ButtonDebouncer: Sendable, Equatable {
    /// How long the raw level must stay unchanged before it counts.
    public let intervalNanoseconds: UInt64
    /// The last level reported (`true`: pressed).
    public private(set) var stableLevel: Bool
    private var rawLevel: Bool
    private var lastEdgeNanoseconds: UInt64?

    public init(interval: Duration, initialLevel: Bool = false) {
        let (seconds, attoseconds) = interval.components
        intervalNanoseconds = UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
        stableLevel = initialLevel
        rawLevel = initialLevel
    }

    /// Records a raw edge: the line went to `level` at `nanoseconds` (monotonic).
    public mutating func edge(to level: Bool, atNanoseconds nanoseconds: UInt64) {
        rawLevel = level
        lastEdgeNanoseconds = nanoseconds
    }

    /// When `settle(atNanoseconds:)` may next report a change, or nil if nothing is pending.
    public var deadlineNanoseconds: UInt64? {
        guard let last = lastEdgeNanoseconds else { return nil }
        return last + intervalNanoseconds
    }

    /// The new stable level if the raw level has been quiet for `interval` by `now` and differs from the last one
    /// reported; nil otherwise (still bouncing, or it bounced back to where it was).
    public mutating func settle(atNanoseconds now: UInt64) -> Bool? {
        guard let deadline = deadlineNanoseconds, now >= deadline else { return nil }
        lastEdgeNanoseconds = nil
        guard rawLevel != stableLevel else { return nil }
        stableLevel = rawLevel
        return rawLevel
    }
}
