public import Foundation

/// When an open stay ends by itself: a maximum length, and for a temporary event its end time, whichever comes first.
///
/// An open stay never lasts longer than `latestEnd(forStayStartingAt:)`: a checkout tap after that moment starts a
/// new stay instead, and a clock jump forward cannot stretch the stay (its end is clamped to this bound).
public struct AutoCheckoutRule: Sendable, Equatable {
    /// Upper bound for every rule, whatever a venue code says: one day.
    public static let longestStay: TimeInterval = 24 * 3600
    /// Lower bound for a stay's planned length: CWA's 15 minutes.
    public static let shortestStay: TimeInterval = 15 * 60

    /// The stay's maximum length, already clamped to `shortestStay...longestStay`.
    public let maximumStay: TimeInterval
    /// The end of a temporary event, if the venue is one.
    public let eventEnd: Date?

    public init(maximumStay: TimeInterval, eventEnd: Date? = nil) {
        self.maximumStay = min(max(maximumStay, Self.shortestStay), Self.longestStay)
        self.eventEnd = eventEnd
    }

    /// The moment a stay that began at `start` ends automatically. Never before `start`; for an event, never after
    /// its end (unless the check-in itself came after the end, in which case the maximum length applies).
    public func latestEnd(forStayStartingAt start: Date) -> Date {
        let byLength = start.addingTimeInterval(maximumStay)
        if let eventEnd, eventEnd > start { return min(byLength, eventEnd) }
        return byLength
    }

    /// The rule for a venue, from whatever its code provides, in this order:
    /// 1. CWA `defaultCheckInLengthInMinutes` (non-zero), and otherwise CWA event start/end — both with CWA's
    ///    Android rounding (`CWAAutoCheckoutLength.android`);
    /// 2. SwissCovid/NotifyMe `automaticCheckoutDelaylMs` (positive);
    /// 3. the kiosk's configured default.
    /// An event's end time (`eventEnd`, temporary venues) always bounds the stay as well.
    public static func forVenue(
        cwaDefaultCheckInLengthInMinutes: UInt32? = nil,
        cwaEventStart: Date? = nil,
        cwaEventEnd: Date? = nil,
        swissCovidAutomaticCheckoutDelayMs: Int64? = nil,
        eventEnd: Date? = nil,
        configuredDefault: TimeInterval
    ) -> AutoCheckoutRule {
        if let minutes = cwaDefaultCheckInLengthInMinutes, minutes != 0 {
            let length = CWAAutoCheckoutLength.android(defaultCheckInLengthInMinutes: minutes, start: nil, end: nil)
            return AutoCheckoutRule(maximumStay: TimeInterval(length * 60), eventEnd: eventEnd ?? cwaEventEnd)
        }
        if cwaEventStart != nil || cwaEventEnd != nil {
            let length = CWAAutoCheckoutLength.android(
                defaultCheckInLengthInMinutes: nil, start: cwaEventStart, end: cwaEventEnd)
            return AutoCheckoutRule(maximumStay: TimeInterval(length * 60), eventEnd: eventEnd ?? cwaEventEnd)
        }
        if let delay = swissCovidAutomaticCheckoutDelayMs, delay > 0 {
            return AutoCheckoutRule(maximumStay: TimeInterval(delay) / 1000, eventEnd: eventEnd)
        }
        return AutoCheckoutRule(maximumStay: configuredDefault, eventEnd: eventEnd)
    }
}

/// CWA's suggested stay length for a venue, as both apps compute it (vectors:
/// `cwa/transcribed/auto-checkout-length.json`). The kiosk uses the Android variant.
public enum CWAAutoCheckoutLength {
    static let minimumMinutes = 15
    static let maximumMinutes = 1425

    /// Android `DefaultAutoCheckoutLength`: the default length if non-zero, else the event length, clamped to
    /// 15…1425 minutes and rounded to the nearest 15 (halves up); 15 without usable times.
    public static func android(defaultCheckInLengthInMinutes: UInt32?, start: Date?, end: Date?) -> Int {
        if let minutes = defaultCheckInLengthInMinutes, minutes != 0 {
            return roundToNearest15(clamp(Int(minutes)))
        }
        guard let start, let end, start <= end else { return minimumMinutes }
        let minutes = Int((end.timeIntervalSince(start) / 60).rounded(.down))
        return roundToNearest15(clamp(minutes))
    }

    /// iOS `suggestedCheckoutLengthInMinutes`: the default length if positive, else the event length if both times
    /// are positive (0 minutes → 15), else 15; rounded up to a multiple of 15 and capped at 1425.
    public static func iOS(defaultCheckInLengthInMinutes: UInt32?, startEpochSeconds: UInt64?, endEpochSeconds: UInt64?)
        -> Int
    {
        var duration = minimumMinutes
        if let minutes = defaultCheckInLengthInMinutes, minutes > 0 {
            duration = Int(minutes)
        } else if let start = startEpochSeconds, let end = endEpochSeconds, start > 0, end > 0, end >= start {
            let minutes = Int((end - start) / 60)
            duration = minutes == 0 ? minimumMinutes : minutes
        }
        let roundedUp = (duration + 14) / 15 * 15
        return min(roundedUp, maximumMinutes)
    }

    /// Rounds to the nearest multiple of 15 minutes, halves up (7 → 0, 8 → 15).
    public static func roundToNearest15(_ minutes: Int) -> Int {
        (minutes + 7) / 15 * 15
    }

    private static func clamp(_ minutes: Int) -> Int { min(max(minutes, minimumMinutes), maximumMinutes) }
}
