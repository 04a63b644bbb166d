public import Foundation

/// How long stays are kept: the Off-Device Venue Check-Ins specification deletes check-ins "permanently when 14 days
/// have passed".
///
/// The store sees no times, only an **expiry hour** per row (hours since 1970-01-01 UTC): the first hour from whose
/// start the row may go. For a stay that ends at `end`, that is the hour after the one holding `end + 14 days`, so a
/// stay is always kept 14 full days after its end and gone within the hour after (the station runs the store's expiry
/// as each hour begins). While a card is present, its stays are also filtered to the exact 14 days.
///
/// Expiry runs against `ClockReading.earliest`, a lower bound of the real time: the time itself on a synchronized
/// clock; on a clock that is not synchronized (a board without a real-time clock that stays offline), the last
/// synchronized reading plus the time that has surely passed since (`RealTimeFloor`). A wrong clock can delay expiry
/// by the time the board was off, never bring it forward.
public struct RetentionPolicy: Sendable, Equatable {
    public var retention: TimeInterval

    public init(days: Int = 14) { self.retention = TimeInterval(days) * 86_400 }

    public static let `default` = RetentionPolicy()

    /// UTC day number of `date`.
    public static func dayNumber(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// Hours since the epoch of `date`.
    public static func hourNumber(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 3600).rounded(.down))
    }

    /// The first hour from whose start a stay ending at `end` may be deleted: more than `retention` after `end`, by
    /// at most an hour.
    public func expiryHour(forStayEndingAt end: Date) -> Int64 {
        Self.hourNumber(end.addingTimeInterval(retention)) + 1
    }

    /// The stays still within retention at the clock's lower bound of the real time; all of them when it knows none.
    public func kept(_ stays: [Stay], clock: ClockReading) -> [Stay] {
        guard let earliest = clock.earliest else { return stays }
        return stays.filter { isWithinRetention($0, now: earliest) }
    }

    /// True while `stay` must be kept at `now`: not yet ended, or ended no more than the retention period ago.
    public func isWithinRetention(_ stay: Stay, now: Date) -> Bool {
        guard let end = stay.end(asOf: now) else { return true }
        return now.timeIntervalSince(end) <= retention
    }
}
