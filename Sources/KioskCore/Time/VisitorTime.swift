public import Foundation

/// How a visitor sees a time: the one place that decides it. Every visitor surface (the screen, which is also what
/// is spoken, and the paper the visitor takes) writes dates and times in the venue's time zone (`venue.timeZone`),
/// as the visitor's language writes them, through Foundation's locale-aware formatting (ICU/CLDR), never with "UTC".
/// Staff texts, logs, the status and metrics output and files for authorities keep `TimeText` (UTC, no Foundation).
///
/// Dates and times never break inside: the spaces of a date are no-break spaces (U+00A0) and the dash of a time
/// range is held by word joiners (U+2060), so a narrow button wraps only between the words of a venue's name or
/// between a date and a time.
///
/// English is written the European way (`en_GB`: 24-hour clock, day before month): the kiosk serves venues in the
/// countries whose codes it reads.
public struct VisitorTime: Sendable {
    public let language: Language
    public let venueZone: VenueZone

    /// `zone` defaults to the board's own, as `venue.timeZone` does; it is resolved when a time is first written.
    public init(_ language: Language = .fallback, zone: VenueZone = .board) {
        self.language = language
        self.venueZone = zone
    }

    /// A time zone already made.
    public init(_ language: Language, zone: TimeZone) {
        self.init(language, zone: VenueZone(zone))
    }

    /// The venue's zone itself (made on first use).
    public var zone: TimeZone { venueZone.timeZone }

    /// The locale whose conventions write `language`'s dates and times.
    public static func locale(of language: Language) -> Locale {
        switch language {
        case .en: Locale(identifier: "en_GB")
        case .de: Locale(identifier: "de_DE")
        case .fr: Locale(identifier: "fr_FR")
        case .it: Locale(identifier: "it_IT")
        }
    }

    /// `domenica 29 novembre`, `Sonntag, 29. November`: the day in the venue's zone.
    public func day(_ date: Date) -> String { Self.format(date, .day, language, zone).withNoBreakSpaces }

    /// `29 novembre 2026`: the day with its year, for paper kept for a while.
    public func dayWithYear(_ date: Date) -> String {
        Self.format(date, .dayWithYear, language, zone).withNoBreakSpaces
    }

    /// `10:55`: the time of day in the venue's zone.
    public func time(_ date: Date) -> String { Self.format(date, .time, language, zone).withNoBreakSpaces }

    /// `10:55–11:45` (a time range that does not break).
    public func times(_ start: Date, _ end: Date) -> String { time(start) + Self.joinedDash + time(end) }

    /// The day as a visitor reads it next to a time: "today" or "yesterday" when `now` is given and the day is one
    /// of them (in the venue's zone), else the day itself.
    public func dayName(_ date: Date, now: Date?) -> String {
        if let now {
            let calendar = venueZone.calendar
            if calendar.isDate(date, inSameDayAs: now) { return catalog[.timeToday] }
            if let yesterday = calendar.date(byAdding: .day, value: -1, to: now),
                calendar.isDate(date, inSameDayAs: yesterday)
            {
                return catalog[.timeYesterday]
            }
        }
        return day(date)
    }

    /// A time to come, as a visitor reads "until …" or "at …": `11:50` on the day of `now` (in the venue's zone), else
    /// with its day, `lunedì 30 novembre, 01:00`: a lock or a stay's end after midnight is never mistaken for one
    /// earlier today.
    public func until(_ date: Date, now: Date) -> String {
        isSameDay(date, now) ? time(date) : moment(date)
    }

    /// `domenica 29 novembre, 10:55` (or `oggi, 10:55`).
    public func moment(_ date: Date, now: Date? = nil) -> String {
        catalog.text(.timeDayAndTime, ["day": dayName(date, now: now), "time": time(date)])
    }

    /// `domenica 29 novembre, 10:55–11:45`; a span over midnight (in the venue's zone) names both days:
    /// `sabato 28 novembre, 23:10 – domenica 29 novembre, 01:00`.
    public func span(_ start: Date, _ end: Date, now: Date? = nil) -> String {
        guard isSameDay(start, end) else { return moment(start, now: now) + "\u{00A0}– " + moment(end, now: now) }
        return catalog.text(.timeDayAndTime, ["day": dayName(start, now: now), "time": times(start, end)])
    }

    /// A calendar day given as a day number (days since 1970-01-01 of that date; a warning's days are already the
    /// venue's dates, `WarningNotice.exposureDays`): its date in words, the same calendar date whatever the zone.
    public func calendarDay(_ dayNumber: Int64) -> String {
        Self.format(Date(timeIntervalSince1970: Double(dayNumber * 86_400)), .day, language, Self.utc).withNoBreakSpaces
    }

    /// Whether two instants fall on the same day in the venue's zone.
    public func isSameDay(_ a: Date, _ b: Date) -> Bool { venueZone.calendar.isDate(a, inSameDayAs: b) }

    private var catalog: Catalog { Catalog.of(language) }

    /// An en dash no line break can go next to.
    static let joinedDash = "\u{2060}–\u{2060}"
    static let utc = TimeZone(identifier: "UTC")!

    // MARK: Formatters

    enum Form: String, Sendable {
        case day = "EEEEdMMMM"
        case dayWithYear = "dMMMMy"
        case time = "jjmm"
    }

    /// The formatters made so far, per form, language and zone. They are made lazily: Foundation's formatters load
    /// ICU's calendar and locale data into memory, so the daemon's idle memory stays as it was until the first
    /// visitor text with a time is made; then each is kept for the next.
    private final class Formatters: @unchecked Sendable {
        private let lock = NSLock()
        private var made = [String: DateFormatter]()

        func format(_ date: Date, _ form: Form, _ language: Language, _ zone: TimeZone) -> String {
            lock.lock()
            defer { lock.unlock() }
            let key = "\(form.rawValue) \(language.rawValue) \(zone.identifier)"
            if let formatter = made[key] { return formatter.string(from: date) }
            let formatter = DateFormatter()
            formatter.locale = VisitorTime.locale(of: language)
            formatter.timeZone = zone
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.setLocalizedDateFormatFromTemplate(form.rawValue)
            made[key] = formatter
            return formatter.string(from: date)
        }
    }

    private static let formatters = Formatters()

    static func format(_ date: Date, _ form: Form, _ language: Language, _ zone: TimeZone) -> String {
        formatters.format(date, form, language, zone)
    }
}

extension String {
    /// Spaces made no-break (U+00A0); ICU's own narrow no-break spaces stay as they are.
    fileprivate var withNoBreakSpaces: String { replacingOccurrences(of: " ", with: "\u{00A0}") }
}
