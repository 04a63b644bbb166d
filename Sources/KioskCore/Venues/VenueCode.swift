/// The families of venue QR codes the kiosk reads.
public enum VenueCodeFormat: String, Sendable, Equatable, CaseIterable {
    /// Corona-Warn-App, `https://e.coronawarn.app?v=1#<base64url QRCodePayload>`.
    case cwa
    /// A CWA payload inside another vendor's URL, `<URL>/<VENDOR_DATA>#[ADDITIONAL]/CWA1/<base64url QRCodePayload>`.
    case cwaVendor = "cwa-vendor"
    /// SwissCovid, `https://qr.swisscovid.ch?v=4#<base64url QRCodePayload>` with `SwissCovidLocationData`.
    case swissCovid = "swisscovid"
    /// NotifyMe, `https://qr.notify-me.ch?v=2…4#…` (v2: libcrowdnotifier `QRCodeEntry`; v3/v4: `QRCodePayload`).
    case notifyMe = "notifyme"
    /// Cléa (TousAntiCovid), `https://tac.gouv.fr?v=0#<base64url LSP>`: only the clear header is readable.
    case clea

    /// A name a field worker recognises.
    public var displayName: String {
        switch self {
        case .cwa: "Corona-Warn-App"
        case .cwaVendor: "Corona-Warn-App (inside another app's code)"
        case .swissCovid: "SwissCovid"
        case .notifyMe: "NotifyMe"
        case .clea: "Cléa (TousAntiCovid)"
        }
    }
}

/// A venue read from a QR code: what the kiosk needs to check visitors in, and nothing it would have to guess.
///
/// Fields that a format does not define are `nil`. `description` (`CustomStringConvertible`) deliberately prints only
/// the format, so that a venue passed to a logger by mistake does not leak its name or identifiers.
public struct VenueCode: Sendable, Equatable {
    /// Which family of code this is.
    public var format: VenueCodeFormat
    /// The `v=` number of the URL.
    public var urlVersion: UInt32
    /// The version field of the payload (`QRCodePayload.version`, `QRCodeEntry.version`, Cléa header version).
    public var payloadVersion: UInt32

    /// The venue's name (`TraceLocation.description`, NotifyMe v2 `name`).
    public var name: String?
    /// The venue's address (`TraceLocation.address`, NotifyMe v2 `location`); may be empty for CrowdNotifier codes.
    public var address: String?
    /// Start of the event in UNIX seconds, `nil` for permanent venues (0 in the payload).
    public var startTimestamp: UInt64?
    /// End of the event in UNIX seconds, `nil` for permanent venues (0 in the payload).
    public var endTimestamp: UInt64?

    /// CWA's vendor data (`CWALocationData`), for `.cwa` and `.cwaVendor`.
    public var cwa: CWAVenueData?
    /// `SwissCovidLocationData` with the SwissCovid defaults applied, for `.swissCovid`.
    public var swissCovid: SwissCovidVenueData?
    /// NotifyMe's venue type and room, for `.notifyMe`.
    public var notifyMe: NotifyMeVenueData?
    /// The clear header of a Cléa location-specific part, for `.clea`.
    public var clea: CLEAHeader?
    /// The host of the URL a `.cwaVendor` code came in (e.g. `app.luca-app.de`); no vendor data is kept.
    public var vendorHost: String?

    /// `crowdNotifierData.cryptographicSeed` (16 bytes for valid CWA codes), `nil` where the format has none.
    public var cryptographicSeed: [UInt8]?
    /// `crowdNotifierData.publicKey` (or NotifyMe v2 `masterPublicKey`).
    public var publicKey: [UInt8]?

    /// The payload re-serialized canonically (proto3: fields in number order, defaults and unknown fields omitted);
    /// for Cléa the raw LSP bytes.
    public var canonicalPayload: [UInt8]
    /// `SHA-256("CWA-GUID" || canonicalPayload)`; `nil` for Cléa (its identifier is `clea.locationTemporaryId`).
    /// For SwissCovid/NotifyMe codes this is the kiosk's identifier, computed the CWA way over their `QRCodePayload`.
    public var locationId: [UInt8]?
    /// `SHA-256(locationId)`; `nil` where `locationId` is.
    public var locationIdHash: [UInt8]?
    /// What matching CrowdNotifier problematic events about this venue needs (SwissCovid and NotifyMe codes);
    /// `nil` for other formats.
    public var crowdNotifier: CrowdNotifierVenueKeys?

    public init(
        format: VenueCodeFormat, urlVersion: UInt32, payloadVersion: UInt32, name: String? = nil,
        address: String? = nil,
        startTimestamp: UInt64? = nil, endTimestamp: UInt64? = nil, cwa: CWAVenueData? = nil,
        swissCovid: SwissCovidVenueData? = nil, notifyMe: NotifyMeVenueData? = nil, clea: CLEAHeader? = nil,
        vendorHost: String? = nil, cryptographicSeed: [UInt8]? = nil, publicKey: [UInt8]? = nil,
        canonicalPayload: [UInt8], locationId: [UInt8]? = nil, locationIdHash: [UInt8]? = nil
    ) {
        self.format = format
        self.urlVersion = urlVersion
        self.payloadVersion = payloadVersion
        // Shown, printed, said and written to terminals: no control or direction character gets through.
        self.name = name.map(OutsideText.neutralized)
        self.address = address.map(OutsideText.neutralized)
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.cwa = cwa
        self.swissCovid = swissCovid
        self.notifyMe = notifyMe
        self.clea = clea
        self.vendorHost = vendorHost.map(OutsideText.neutralized)
        self.cryptographicSeed = cryptographicSeed
        self.publicKey = publicKey
        self.canonicalPayload = canonicalPayload
        self.locationId = locationId
        self.locationIdHash = locationIdHash
    }
}

extension VenueCode: CustomStringConvertible {
    public var description: String { "VenueCode(format: \(format.rawValue))" }
}

/// CWA's `CWALocationData` (the `vendorData` of a CWA `QRCodePayload`).
public struct CWAVenueData: Sendable, Equatable {
    /// `CWALocationData.version`.
    public var version: UInt32
    /// `TraceLocationType` number (0 unspecified, 1–8 permanent, 9–12 temporary; others are kept as read).
    public var type: Int
    /// Suggested stay in minutes; `nil` when 0 (not set).
    public var defaultCheckInLengthInMinutes: UInt32?

    public init(version: UInt32, type: Int, defaultCheckInLengthInMinutes: UInt32?) {
        self.version = version
        self.type = type
        self.defaultCheckInLengthInMinutes = defaultCheckInLengthInMinutes
    }

    /// The English label CWA shows for `type`, or `nil` for a number CWA does not define.
    public var typeLabel: String? { Self.typeLabels[type] }

    /// Whether `type` is one of CWA's temporary (event) types.
    public var isTemporary: Bool { type == 2 || (9...12).contains(type) }

    static let typeLabels: [Int: String] = [
        0: "Unspecified", 1: "Other place", 2: "Other event", 3: "Retail", 4: "Food service", 5: "Craft business",
        6: "Workplace", 7: "Educational institution", 8: "Public building", 9: "Cultural event", 10: "Club activity",
        11: "Private event", 12: "Worship service",
    ]
}

/// `SwissCovidLocationData` from `countryData`, with the SwissCovid app's defaults where the code leaves a value out.
public struct SwissCovidVenueData: Sendable, Equatable {
    /// Default `checkoutWarningDelayMs`: 8 hours.
    public static let defaultCheckoutWarningDelayMs: Int64 = 1000 * 60 * 60 * 8
    /// Default `automaticCheckoutDelaylMs`: 12 hours.
    public static let defaultAutomaticCheckoutDelayMs: Int64 = 1000 * 60 * 60 * 12
    /// Default reminder options: 30 minutes, 1 hour, 2 hours.
    public static let defaultReminderDelayOptionsMs: [Int64] = [1000 * 60 * 30, 1000 * 60 * 60, 1000 * 60 * 60 * 2]

    /// `SwissCovidLocationData.version` (0 when `countryData` was empty).
    public var version: UInt32
    /// Venue type number: 0 `USER_QR_CODE`, 1 `CONTACT_TRACING_QR_CODE`.
    public var venueType: Int
    /// Room, `nil` when empty.
    public var room: String?
    /// After this many milliseconds the visitor is warned that the automatic checkout is coming; `nil` when the code's
    /// value is not smaller than the automatic checkout delay (SwissCovid requires warning < automatic).
    public var checkoutWarningDelayMs: Int64?
    /// The longest stay in milliseconds; the visitor is checked out automatically after it.
    public var automaticCheckoutDelayMs: Int64
    /// The reminder choices offered at check-in: the first three positive values of the code, or the defaults.
    public var reminderDelayOptionsMs: [Int64]

    public init(
        version: UInt32, venueType: Int, room: String?, checkoutWarningDelayMs: Int64?,
        automaticCheckoutDelayMs: Int64, reminderDelayOptionsMs: [Int64]
    ) {
        self.version = version
        self.venueType = venueType
        self.room = room.map(OutsideText.neutralized)
        self.checkoutWarningDelayMs = checkoutWarningDelayMs
        self.automaticCheckoutDelayMs = automaticCheckoutDelayMs
        self.reminderDelayOptionsMs = reminderDelayOptionsMs
    }

    /// Applies SwissCovid's rules to raw `SwissCovidLocationData` values.
    public init(
        version: UInt32, venueType: Int, room: String, rawCheckoutWarningDelayMs: Int64,
        rawAutomaticCheckoutDelayMs: Int64, rawReminderDelayOptionsMs: [Int64]
    ) {
        let automatic =
            rawAutomaticCheckoutDelayMs > 0 ? rawAutomaticCheckoutDelayMs : Self.defaultAutomaticCheckoutDelayMs
        let warning = rawCheckoutWarningDelayMs > 0 ? rawCheckoutWarningDelayMs : Self.defaultCheckoutWarningDelayMs
        let reminders = rawReminderDelayOptionsMs.filter { $0 > 0 }.prefix(3)
        self.init(
            version: version, venueType: venueType, room: room.isEmpty ? nil : room,
            checkoutWarningDelayMs: warning < automatic ? warning : nil,
            automaticCheckoutDelayMs: automatic,
            reminderDelayOptionsMs: reminders.isEmpty ? Self.defaultReminderDelayOptionsMs : Array(reminders))
    }
}

/// NotifyMe's `NotifyMeLocationData` (v3/v4 `countryData`) or the v2 `QRCodeContent` venue type and room.
public struct NotifyMeVenueData: Sendable, Equatable {
    /// NotifyMe `VenueType` number (0 other, 1 meeting room, 2 cafeteria, … 10 office space).
    public var venueType: Int
    /// Room, `nil` when empty.
    public var room: String?

    public init(venueType: Int, room: String?) {
        self.venueType = venueType
        self.room = room.map(OutsideText.neutralized)
    }

    /// English label for `venueType`, or `nil` for an unknown number.
    public var venueTypeLabel: String? {
        let labels = [
            "Other", "Meeting room", "Cafeteria", "Private event", "Canteen", "Library", "Lecture room", "Shop",
            "Gym", "Kitchen area", "Office space",
        ]
        return labels.indices.contains(venueType) ? labels[venueType] : nil
    }
}

/// The clear 17-byte header of a Cléa location-specific part (LSP); the rest is encrypted for the authority.
public struct CLEAHeader: Sendable, Equatable {
    /// Bits 7–5 of byte 0.
    public var version: UInt8
    /// Bits 4–2 of byte 0 (`LSPtype`).
    public var lspType: UInt8
    /// Bytes 1–16: the location temporary identifier (LTId).
    public var locationTemporaryId: [UInt8]
    /// Length of the whole LSP in bytes.
    public var lspLength: Int

    public init(version: UInt8, lspType: UInt8, locationTemporaryId: [UInt8], lspLength: Int) {
        self.version = version
        self.lspType = lspType
        self.locationTemporaryId = locationTemporaryId
        self.lspLength = lspLength
    }

    /// The LTId as a lower-case UUID string (`8-4-4-4-12`), as TousAntiCovid shows it.
    public var locationTemporaryIdUUID: String {
        let hex = Array(Hex.encode(locationTemporaryId))
        var out = ""
        for (index, char) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { out.append("-") }
            out.append(char)
        }
        return out
    }
}
