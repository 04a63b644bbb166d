public import Foundation

/// How long stays are kept: the Off-Device Venue Check-Ins specification deletes check-ins "permanently when 14 days have passed".
///
/// The store sees no times, only an **expiry day** per row (UTC day number, days since 1970-01-01): the first day on
/// which the row may go. For a stay that ends on day `D`, that is `D + 15`, so a stay is always kept at least 14 full
/// days after its end and gone before 15 days have passed (with the store's expiry running at least daily). While
/// a card is present, its stays are also filtered to the exact 14 days.
public struct RetentionPolicy: Sendable, Equatable {
    public var retention: TimeInterval

    public init(days: Int = 14) { self.retention = TimeInterval(days) * 86_400 }

    public static let `default` = RetentionPolicy()

    /// UTC day number of `date`.
    public static func dayNumber(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The first UTC day on which a stay ending at `end` may be deleted.
    public func expiryDay(forStayEndingAt end: Date) -> Int64 {
        Self.dayNumber(end.addingTimeInterval(retention)) + 1
    }

    /// True while `stay` must be kept at `now`: not yet ended, or ended no more than the retention period ago.
    public func isWithinRetention(_ stay: Stay, now: Date) -> Bool {
        guard let end = stay.end(asOf: now) else { return true }
        return now.timeIntervalSince(end) <= retention
    }
}
