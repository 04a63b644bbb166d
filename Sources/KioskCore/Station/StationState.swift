public import Foundation

/// What the kiosk keeps across restarts besides the stays: the venue it is bound to, a non-personal counter of open
/// check-ins, which warnings were acknowledged, and the digests of the staff cards it enrolled. Saved by the runner (`StationStateStore`) before the kiosk acts
/// on a change.
public struct StationState: Sendable, Equatable, Codable {
    /// The format version of this value's encoding.
    public static let version = 1

    public var version: Int
    /// The venue the kiosk is bound to; `nil` until staff bind or create one.
    public var venue: BoundVenue?
    /// The automatic-checkout times (rounded up to the hour) of check-ins at the bound venue that may still be open,
    /// earliest first. It holds no card, handle or stay: only times. A checkout removes the earliest entry, so the counter never
    /// under-counts; entries whose time has passed are dropped.
    public var openCheckInEnds: [Date]
    /// Warnings seen at taps, by acknowledgement tag (an HMAC under the card's record key, unlinkable without the
    /// card); each goes away in its expiry hour, with the stays it concerns.
    public var warnings: [WarningRecord]
    /// The staff cards this kiosk enrolled, as `StaffCardDigest`s (a SHA-256 under a label of the card's secret):
    /// never the secrets. Only these cards open staff mode; a wipe forgets them.
    public var staffCards: [[UInt8]]

    public init(
        venue: BoundVenue? = nil, openCheckInEnds: [Date] = [], warnings: [WarningRecord] = [],
        staffCards: [[UInt8]] = []
    ) {
        self.version = Self.version
        self.venue = venue
        self.openCheckInEnds = openCheckInEnds
        self.warnings = warnings
        self.staffCards = staffCards
    }

    private enum CodingKeys: String, CodingKey {
        case version, venue, openCheckInEnds, warnings, staffCards
    }

    /// Reads a saved state; one saved before staff cards were enrolled has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        venue = try container.decodeIfPresent(BoundVenue.self, forKey: .venue)
        openCheckInEnds = try container.decode([Date].self, forKey: .openCheckInEnds)
        warnings = try container.decode([WarningRecord].self, forKey: .warnings)
        staffCards = try container.decodeIfPresent([[UInt8]].self, forKey: .staffCards) ?? []
    }

    /// A kiosk that was never set up.
    public static let initial = StationState()

    /// Check-ins that may still be open at `now`.
    public func openCheckIns(at now: Date) -> Int { openCheckInEnds.filter { $0 > now }.count }

    /// Check-ins that may still be open by `now`: by the counter's times on a synchronized clock, every counted one
    /// otherwise (an unset clock cannot tell which have ended).
    public func openCheckIns(now: ClockReading) -> Int {
        now.isSynchronized ? openCheckIns(at: now.now) : openCheckInEnds.count
    }
}

/// How a staff card is remembered: SHA-256 over a label, the card's kind and its 128 random bits. The secret cannot be
/// recovered from it, and the label keeps it from matching any other digest the kiosk computes.
public enum StaffCardDigest {
    static let label = Array("CheckInKiosk staff card v1".utf8)

    public static func of(_ secret: CardSecret, crypto: any CryptoProvider) throws(CryptoError) -> [UInt8] {
        try digest(of: secret, label: label, crypto: crypto)
    }

    /// SHA-256 over `label`, the card's kind and its 128 random bits (the input wiped after): the one way the kiosk
    /// tells cards apart without keeping their secrets — staff cards here, a visitor's card within their visit
    /// (`VisitorContext`), each under a label of its own.
    static func digest(of secret: CardSecret, label: [UInt8], crypto: any CryptoProvider) throws(CryptoError)
        -> [UInt8]
    {
        var input = label + [secret.kind.rawValue] + secret.entropy
        defer { crypto.wipe(&input) }
        return try crypto.sha256(input)
    }
}

/// A warning the kiosk showed at a tap.
public struct WarningRecord: Sendable, Equatable, Codable {
    public var tag: [UInt8]
    /// The hour (hours since the epoch) from which the record must be dropped: that of the stays it concerns.
    public var expiryHour: Int64
    public var slipPrinted: Bool
    public var acknowledged: Bool
    /// The warning's owner mark (`WarningNotice.ownerMark`): lets the card's holder delete it with their stays; nil in
    /// records saved before it was kept.
    public var owner: [UInt8]?

    public init(
        tag: [UInt8], expiryHour: Int64, slipPrinted: Bool = false, acknowledged: Bool = false, owner: [UInt8]? = nil
    ) {
        self.tag = tag
        self.expiryHour = expiryHour
        self.slipPrinted = slipPrinted
        self.acknowledged = acknowledged
        self.owner = owner
    }

    private enum CodingKeys: String, CodingKey {
        case tag, expiryHour, expiryDay, slipPrinted, acknowledged, owner
    }

    /// Reads a record; one saved with an expiry day keeps it, from that day's first hour.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tag = try container.decode([UInt8].self, forKey: .tag)
        if let hour = try container.decodeIfPresent(Int64.self, forKey: .expiryHour) {
            expiryHour = hour
        } else {
            expiryHour = try container.decode(Int64.self, forKey: .expiryDay) * 24
        }
        slipPrinted = try container.decode(Bool.self, forKey: .slipPrinted)
        acknowledged = try container.decode(Bool.self, forKey: .acknowledged)
        owner = try container.decodeIfPresent([UInt8].self, forKey: .owner)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tag, forKey: .tag)
        try container.encode(expiryHour, forKey: .expiryHour)
        try container.encode(slipPrinted, forKey: .slipPrinted)
        try container.encode(acknowledged, forKey: .acknowledged)
        try container.encodeIfPresent(owner, forKey: .owner)
    }
}

/// The venue a kiosk is bound to: what stays need, and what a rotation or a reprint of the poster needs.
public struct BoundVenue: Sendable, Equatable, Codable {
    /// `VenueCodeFormat.rawValue` of the code.
    public var format: String
    /// 32-byte location id (CWA `locationId`; for Cléa a kiosk-side hash of the location-specific part).
    public var locationId: [UInt8]
    public var description: String
    public var address: String
    /// The stay length rule (`AutoCheckoutRule.maximumStay`).
    public var maximumStay: TimeInterval
    /// A temporary event's end.
    public var eventEnd: Date?
    /// Short fingerprint for status slips ("1A2B-3C4D"): not the location id nor its published hash.
    public var fingerprint: String
    /// The CWA fields, for CWA codes: what a rotation keeps.
    public var cwaFields: CWAFields?
    /// The code's URL for venues created on this kiosk (to reprint the poster); `nil` for scanned posters.
    public var posterURL: String?
    /// CrowdNotifier venues (SwissCovid, NotifyMe): what stays keep to match the venue's problematic events.
    public var crowdNotifier: CrowdNotifierVenueKeys?
    /// SwissCovid's `checkoutWarningDelayMs`, in seconds: a check-out tap after a stay this long reminds the holder
    /// that a stay they forgot to end can be deleted (the SwissCovid app reminds them after this delay).
    public var checkoutWarningDelay: TimeInterval?

    public init(
        format: String, locationId: [UInt8], description: String, address: String, maximumStay: TimeInterval,
        eventEnd: Date?, fingerprint: String, cwaFields: CWAFields?, posterURL: String?
    ) {
        self.format = format
        self.locationId = locationId
        self.description = description
        self.address = address
        self.maximumStay = maximumStay
        self.eventEnd = eventEnd
        self.fingerprint = fingerprint
        self.cwaFields = cwaFields
        self.posterURL = posterURL
    }

    /// What a stay records about this venue.
    public var stayVenue: StayVenue {
        StayVenue(
            locationId: locationId, description: description, address: address,
            autoCheckout: AutoCheckoutRule(maximumStay: maximumStay, eventEnd: eventEnd), crowdNotifier: crowdNotifier)
    }

    /// The format's display name ("Corona-Warn-App", …).
    public var formatName: String { VenueCodeFormat(rawValue: format)?.displayName ?? format }
}

/// `CWAVenueEncoder.Fields` as a saved value.
public struct CWAFields: Sendable, Equatable, Codable {
    public var description: String
    public var address: String
    public var type: Int
    public var startTimestamp: UInt64?
    public var endTimestamp: UInt64?
    public var defaultCheckInLengthInMinutes: UInt32?

    public init(_ fields: CWAVenueEncoder.Fields) {
        description = fields.description
        address = fields.address
        type = fields.type
        startTimestamp = fields.startTimestamp
        endTimestamp = fields.endTimestamp
        defaultCheckInLengthInMinutes = fields.defaultCheckInLengthInMinutes
    }

    public var encoderFields: CWAVenueEncoder.Fields {
        CWAVenueEncoder.Fields(
            description: description, address: address, type: type, startTimestamp: startTimestamp,
            endTimestamp: endTimestamp, defaultCheckInLengthInMinutes: defaultCheckInLengthInMinutes)
    }
}

/// Where the runner keeps the station state: a settings row in the kiosk's database (`SQLiteCheckInStore`), an
/// in-memory fake in tests. Saving is durable when it returns.
public protocol StationStateStore: Sendable {
    /// The saved state, or `nil` if none was ever saved.
    func loadStationState() throws(StoreError) -> StationState?
    /// Replaces the saved state.
    func saveStationState(_ state: StationState) throws(StoreError)
}
