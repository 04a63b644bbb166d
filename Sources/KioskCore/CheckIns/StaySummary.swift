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
        return TimeText.dateTime(unixSeconds: seconds)
    }
}
