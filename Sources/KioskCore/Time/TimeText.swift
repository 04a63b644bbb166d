/// Human-readable UTC dates and times without Foundation.
public enum TimeText {
    /// `2021-03-04` for a day number.
    public static func day(_ day: UInt32) -> String { date(unixSeconds: Int64(day) * 86_400) }

    /// `2021-03-04` for UNIX seconds (UTC).
    public static func date(unixSeconds: Int64) -> String {
        let (y, m, d) = civil(fromDays: StayPreparation.floorTo(unixSeconds, 86_400) / 86_400)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// `14:20` for UNIX seconds (UTC).
    public static func time(unixSeconds: Int64) -> String {
        let secondsOfDay = unixSeconds - StayPreparation.floorTo(unixSeconds, 86_400)
        return "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay % 3600 / 60, 2))"
    }

    /// `2021-03-04T14:20:05Z` (ISO 8601, UTC, whole seconds) for UNIX seconds, without Foundation's formatters (they
    /// load ICU's calendar data into the daemon's memory).
    public static func iso8601(unixSeconds: Int64) -> String {
        let secondsOfDay = unixSeconds - StayPreparation.floorTo(unixSeconds, 86_400)
        return "\(date(unixSeconds: unixSeconds))T\(time(unixSeconds: unixSeconds)):\(pad(secondsOfDay % 60, 2))Z"
    }

    /// `2021-03-04 14:20` for UNIX seconds (UTC).
    public static func dateTime(unixSeconds: Int64) -> String {
        "\(date(unixSeconds: unixSeconds)) \(time(unixSeconds: unixSeconds))"
    }

    /// `14:20–15:10` for a report's window.
    public static func intervalWindow(_ report: PresenceReport) -> String {
        let start = Int64(report.startIntervalNumber) * Interval.seconds
        let end = Int64(report.endIntervalNumber) * Interval.seconds
        let endText = end % 86_400 == 0 ? "24:00" : time(unixSeconds: end)
        return "\(time(unixSeconds: start))–\(endText)"
    }

    /// `10:15–11:00` for a part of a day from `startMs` to `endMs` (UNIX milliseconds); an end at midnight is `24:00`.
    public static func window(startMs: Int64, endMs: Int64) -> String {
        let end = StayPreparation.floorTo(endMs, 1000) / 1000
        let endText = end % 86_400 == 0 && endMs > startMs ? "24:00" : time(unixSeconds: end)
        return "\(time(unixSeconds: StayPreparation.floorTo(startMs, 1000) / 1000))–\(endText)"
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Proleptic Gregorian date of a day number (H. Hinnant's algorithm).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
