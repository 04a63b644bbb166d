public import Foundation
internal import Synchronization

/// The venue's time zone (`venue.timeZone`), resolved only when a visitor text first needs a time. Making a
/// Foundation `TimeZone` loads ICU's zone data into the daemon (about 2.4 MiB resident in the board's static build):
/// an idle kiosk, whose screens say no time, holds none of it. Resolved zones are kept for the next text.
public struct VenueZone: Sendable, Equatable {
    /// The IANA name (`Europe/Rome`), or nil for the board's own zone.
    public let identifier: String?
    /// A zone given as it is (tests, tools): used without resolving.
    private let given: Resolved?

    /// A zone and the Gregorian calendar in it, made once.
    private struct Resolved: Sendable {
        let zone: TimeZone
        let calendar: Calendar

        init(_ zone: TimeZone) {
            self.zone = zone
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            self.calendar = calendar
        }
    }

    /// The zone named `identifier` (an IANA name), or the board's own for nil.
    public init(identifier: String? = nil) {
        self.identifier = identifier
        given = nil
    }

    /// A zone already made.
    public init(_ zone: TimeZone) {
        identifier = zone.identifier
        given = Resolved(zone)
    }

    /// The board's own zone (`TimeZone.current` when first needed).
    public static let board = VenueZone()

    /// The zone itself; made (and kept) on first use. A name that does not resolve (checked when the configuration
    /// is read, `isKnown`) falls back to the board's own zone.
    public var timeZone: TimeZone { resolved.zone }

    /// The Gregorian calendar in the zone (days, "today" and "yesterday"), made with it.
    public var calendar: Calendar { resolved.calendar }

    /// The calendar day `seconds` (UNIX time) falls on in the zone, as a day number (days since 1970-01-01 of that
    /// calendar date): 00:30 on 29 November in Rome is 29 November's number, though it is still the 28th in UTC.
    public func dayNumber(of seconds: Int64) -> Int64 {
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        return StayPreparation.floorTo(seconds + offset, 86_400) / 86_400
    }

    private var resolved: Resolved {
        if let given { return given }
        let key = identifier ?? ""
        return Self.made.withLock { made in
            if let known = made[key] { return known }
            let resolved = Resolved(identifier.flatMap { TimeZone(identifier: $0) } ?? .current)
            made[key] = resolved
            return resolved
        }
    }

    private static let made = Mutex<[String: Resolved]>([:])

    public static func == (lhs: VenueZone, rhs: VenueZone) -> Bool { lhs.identifier == rhs.identifier }

    /// Whether `name` is an IANA zone name this board knows, checked in its time zone database
    /// (`/usr/share/zoneinfo`, Debian's tzdata) without loading ICU; where that database is missing, ICU decides.
    public static func isKnown(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, !name.contains(".."),
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789_+-/".unicodeScalars.contains($0))
            })
        else { return false }
        let database = "/usr/share/zoneinfo"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: database, isDirectory: &isFolder), isFolder.boolValue else {
            return TimeZone(identifier: name) != nil
        }
        guard FileManager.default.fileExists(atPath: database + "/" + name, isDirectory: &isFolder) else {
            return false
        }
        return !isFolder.boolValue
    }
}
