public import Foundation

/// How long stays are kept: the Off-Device Venue Check-Ins specification deletes check-ins "permanently when 14 days
/// have passed".
///
/// The store sees no times, only an **expiry hour** per row (hours since 1970-01-01 UTC): the first hour from whose
/// start the row may go. For a stay that ends at `end`, that is the hour after the one holding `end + 14 days`, so a
/// stay is always kept 14 full days after its end and gone within the hour after (the station runs the store's expiry
/// as each hour begins). While a card is present, its stays are also filtered to the exact 14 days.
///
/// Expiry must never be late, so it runs against `ClockReading.latest`, the latest the real time can be: the time
/// itself on a synchronized clock; on a clock that lost its synchronization during this boot, the last synchronized
/// reading moved on by the monotonic clock (`RealTimeFloor`, the time itself but for drift). After a restart whose
/// clock is not synchronized (a board without a real-time clock, switched off for a time it cannot know), the real time
/// may be anything: every stay may be past its 14 days. Such a boot first waits `synchronizationWait` (5 minutes of its
/// own running time) for the clock to be synchronized, as a board on a network is within a minute, showing and using no
/// stay meanwhile; then every stay goes, with what was derived from it — early, never late but for that wait. A wrong
/// clock that is not synchronized never keeps anything longer.
public struct RetentionPolicy: Sendable, Equatable {
    public var retention: TimeInterval

    public init(days: Int = 14) { self.retention = TimeInterval(days) * 86_400 }

    public static let `default` = RetentionPolicy()

    /// How long a boot after an unknown time off waits for the clock to be synchronized before every stay goes.
    public static let synchronizationWait: TimeInterval = 300

    /// True while retention must wait: the board was off for an unknown time and has not yet waited
    /// `synchronizationWait` for its clock. Nothing is shown, matched or deleted meanwhile.
    public static func awaitsSynchronization(_ clock: ClockReading) -> Bool {
        (clock.downtimeUnknownFor ?? .infinity) < synchronizationWait
    }

    /// The hour whose start the real time may have passed, by `ClockReading.latest`: rows whose expiry hour is this or
    /// earlier may be past their 14 days. `Int64.max` when the latest real time is unknown: every row may be.
    public static func hourReached(_ clock: ClockReading) -> Int64 {
        clock.latest.map(hourNumber) ?? Int64.max
    }

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

    /// The stays still surely within retention at the latest the real time can be; none when that is unknown.
    public func kept(_ stays: [Stay], clock: ClockReading) -> [Stay] {
        guard let latest = clock.latest else { return [] }
        return stays.filter { isWithinRetention($0, now: latest) }
    }

    /// True while `stay` must be kept at `now`: not yet ended, or ended no more than the retention period ago.
    public func isWithinRetention(_ stay: Stay, now: Date) -> Bool {
        guard let end = stay.end(asOf: now) else { return true }
        return now.timeIntervalSince(end) <= retention
    }
}
