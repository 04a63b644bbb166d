public import Foundation

/// A stay as the card holder sees it in their list.
public struct StaySummary: Sendable, Equatable, Identifiable {
    public var id: StayID
    public var venueDescription: String
    public var venueAddress: String
    public var start: Date
    /// The end, or nil while still checked in.
    public var end: Date?
    /// When an open stay ends by itself.
    public var automaticEnd: Date

    init(_ stay: Stay, now: Date) {
        id = stay.id
        venueDescription = stay.venueDescription
        venueAddress = stay.venueAddress
        start = stay.start
        end = stay.end(asOf: now)
        automaticEnd = stay.latestEnd
    }

    /// One line for the screen or a printout, e.g. "Café Central, Main Street 1 — 2026-11-22 13:00–14:30".
    /// `secondsFromGMT` is the venue's offset (fixed per kiosk; the screen says which).
    public func text(secondsFromGMT: Int = 0) -> String {
        let from = Self.format(start, secondsFromGMT: secondsFromGMT)
        let until: String
        if let end {
            let endText = Self.format(end, secondsFromGMT: secondsFromGMT)
            until = endText.prefix(10) == from.prefix(10) ? String(endText.dropFirst(11)) : endText
        } else {
            until = "now (ends by itself at \(Self.format(automaticEnd, secondsFromGMT: secondsFromGMT).dropFirst(11)))"
        }
        let place = venueAddress.isEmpty ? venueDescription : "\(venueDescription), \(venueAddress)"
        return "\(place) — \(from)–\(until)"
    }

    /// "YYYY-MM-DD HH:MM" in the given fixed offset (proleptic Gregorian, from the civil-from-days algorithm).
    static func format(_ date: Date, secondsFromGMT: Int) -> String {
        let seconds = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(secondsFromGMT)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60))"
    }
}
