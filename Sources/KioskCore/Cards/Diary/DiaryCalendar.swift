public import Foundation

/// The days of the region's day ratchet (`DiaryDay`): whole days since 1970-01-01 in UTC, whatever the venue's zone,
/// so that every kiosk of a region turns to the next day key at the same moment (docs/diary-card.md, "The day
/// ratchet"). The core has no clock: the caller hands in the moment.
public enum DiaryCalendar {
    /// Seconds in a UTC day (POSIX time has no leap seconds).
    public static let secondsPerDay = 86_400

    /// The day `date` falls on in UTC: its seconds since 1970 divided by a day's, rounded down (a moment before 1970
    /// is on a negative day).
    public static func day(of date: Date) -> DiaryDay {
        let seconds = date.timeIntervalSince1970
        return Int((seconds / Double(secondsPerDay)).rounded(.down))
    }

    /// The first moment of `day` (midnight UTC).
    public static func start(of day: DiaryDay) -> Date {
        Date(timeIntervalSince1970: Double(day) * Double(secondsPerDay))
    }

    /// `day` as a calendar date in UTC, `2026-11-27`, for staff and files (never for a visitor).
    public static func isoDate(_ day: DiaryDay) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: start(of: day))
        let year = parts.year ?? 1970
        let month = parts.month ?? 1
        let dayOfMonth = parts.day ?? 1
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(twoDigits(month))-\(twoDigits(dayOfMonth))"
    }
}
