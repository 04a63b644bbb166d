import Foundation
import KioskCore

/// Text and JSON renderings of decoded venues for `kiosk decode`.
enum DecodeOutput {
    // MARK: Text

    static func text(_ venue: VenueCode) -> String {
        var lines: [(String, String)] = [("Format", venue.format.displayName + versionNote(venue))]
        if let name = venue.name { lines.append(("Name", name)) }
        if let address = venue.address { lines.append(("Address", address.isEmpty ? "(none)" : address)) }
        if let cwa = venue.cwa {
            let kind = cwa.isTemporary ? "event" : "permanent place"
            lines.append(("Type", "\(cwa.typeLabel ?? "unknown type \(cwa.type)") (\(kind))"))
            lines.append(("Default stay", cwa.defaultCheckInLengthInMinutes.map { minutes($0) } ?? "not set"))
        }
        if let swiss = venue.swissCovid {
            lines.append(
                (
                    "Type",
                    swiss.venueType == 1
                        ? "contact tracing code (health authority)" : "venue code (visitors report themselves)"
                ))
            if let room = swiss.room { lines.append(("Room", room)) }
        }
        if let notifyMe = venue.notifyMe {
            lines.append(("Type", notifyMe.venueTypeLabel ?? "unknown type \(notifyMe.venueType)"))
            if let room = notifyMe.room { lines.append(("Room", room)) }
        }
        if let clea = venue.clea {
            lines.append(("Location temporary id", clea.locationTemporaryIdUUID))
            lines.append(
                ("Details", "encrypted for the health authority (Cléa); name and address are not in the clear"))
        }
        if venue.format != .clea { lines.append(("Valid", validity(venue))) }
        lines.append(("Checkout rules", checkoutRules(venue)))
        if let vendor = venue.vendorHost { lines.append(("Vendor", vendor)) }
        lines.append(("Location id", venue.locationId.map { Hex.encode($0) } ?? "not defined for this format"))
        if let hash = venue.locationIdHash { lines.append(("Location id hash", Hex.encode(hash))) }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { "  " + ($0.0 + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n")
    }

    private static func versionNote(_ venue: VenueCode) -> String {
        venue.format == .cwa || venue.format == .cwaVendor ? "" : " (URL version \(venue.urlVersion))"
    }

    static func validity(_ venue: VenueCode) -> String {
        switch (venue.startTimestamp, venue.endTimestamp) {
        case (nil, nil): "always (no time window)"
        case (let start?, nil): "from \(date(start))"
        case (nil, let end?): "until \(date(end))"
        case (let start?, let end?): "from \(date(start)) to \(date(end))"
        }
    }

    static func checkoutRules(_ venue: VenueCode) -> String {
        if let swiss = venue.swissCovid {
            var parts = ["automatic checkout after \(milliseconds(swiss.automaticCheckoutDelayMs))"]
            if let warning = swiss.checkoutWarningDelayMs { parts.append("warning after \(milliseconds(warning))") }
            parts.append("reminders offered: " + swiss.reminderDelayOptionsMs.map(milliseconds).joined(separator: ", "))
            return parts.joined(separator: "; ")
        }
        if let cwa = venue.cwa {
            if let length = cwa.defaultCheckInLengthInMinutes {
                return "the visitor is checked out after \(minutes(length)) unless they check out earlier"
            }
            return venue.endTimestamp != nil
                ? "the visitor is checked out when the event ends at the latest"
                : "no default stay: the visitor chooses when checking in"
        }
        if venue.format == .clea { return "set by the health authority (not readable)" }
        return "none in the code: the visitor checks out"
    }

    static func minutes(_ value: UInt32) -> String {
        value % 60 == 0 && value >= 60 ? "\(value) minutes (\(value / 60) h)" : "\(value) minutes"
    }

    static func milliseconds(_ value: Int64) -> String {
        let minutes = value / 60_000
        if value % 3_600_000 == 0 { return "\(value / 3_600_000) h" }
        if value % 60_000 == 0 { return "\(minutes) min" }
        return "\(value) ms"
    }

    static func date(_ seconds: UInt64) -> String {
        guard seconds <= 253_402_300_799 else { return "\(seconds) (after year 9999)" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))).replacingOccurrences(
            of: "T", with: " "
        )
        .replacingOccurrences(of: "Z", with: " UTC")
    }

    // MARK: JSON

    static func json(source: String, codes: [Result<VenueCode, VenueCodeError>]) -> String {
        let object: JSONValue = .object([
            "source": .string(source),
            "codes": .array(
                codes.map { result in
                    switch result {
                    case .success(let venue): venueObject(venue)
                    case .failure(let error):
                        .object([
                            "ok": .bool(false),
                            "error": .object([
                                "kind": .string(errorKind(error)),
                                "cwaErrorCode": error.cwaErrorCode.map(JSONValue.string) ?? .null,
                                "message": .string(error.message),
                            ]),
                        ])
                    }
                }),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func venueObject(_ venue: VenueCode) -> JSONValue {
        func hex(_ bytes: [UInt8]?) -> JSONValue { bytes.map { .string(Hex.encode($0)) } ?? .null }
        func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        func number<T: BinaryInteger>(_ value: T?) -> JSONValue { value.map { .number(Int64($0)) } ?? .null }
        return .object([
            "ok": .bool(true),
            "format": .string(venue.format.rawValue),
            "urlVersion": number(venue.urlVersion),
            "payloadVersion": number(venue.payloadVersion),
            "name": string(venue.name),
            "address": string(venue.address),
            "startTimestamp": number(venue.startTimestamp.flatMap { Int64(exactly: $0) }),
            "endTimestamp": number(venue.endTimestamp.flatMap { Int64(exactly: $0) }),
            "locationIdHex": hex(venue.locationId),
            "locationIdHashHex": hex(venue.locationIdHash),
            "cryptographicSeedHex": hex(venue.cryptographicSeed),
            "vendorHost": string(venue.vendorHost),
            "cwa": venue.cwa.map { cwa in
                .object([
                    "type": .number(Int64(cwa.type)),
                    "typeLabel": string(cwa.typeLabel),
                    "temporary": .bool(cwa.isTemporary),
                    "defaultCheckInLengthInMinutes": number(cwa.defaultCheckInLengthInMinutes),
                ])
            } ?? .null,
            "swissCovid": venue.swissCovid.map { swiss in
                .object([
                    "venueType": .number(Int64(swiss.venueType)),
                    "room": string(swiss.room),
                    "checkoutWarningDelayMs": number(swiss.checkoutWarningDelayMs),
                    "automaticCheckoutDelayMs": .number(swiss.automaticCheckoutDelayMs),
                    "reminderDelayOptionsMs": .array(swiss.reminderDelayOptionsMs.map { .number($0) }),
                ])
            } ?? .null,
            "notifyMe": venue.notifyMe.map { notifyMe in
                .object([
                    "venueType": .number(Int64(notifyMe.venueType)),
                    "venueTypeLabel": string(notifyMe.venueTypeLabel),
                    "room": string(notifyMe.room),
                ])
            } ?? .null,
            "clea": venue.clea.map { clea in
                .object([
                    "version": .number(Int64(clea.version)),
                    "lspType": .number(Int64(clea.lspType)),
                    "locationTemporaryId": .string(clea.locationTemporaryIdUUID),
                    "lspLength": .number(Int64(clea.lspLength)),
                ])
            } ?? .null,
        ])
    }

    static func errorKind(_ error: VenueCodeError) -> String {
        switch error {
        case .tooLong: "tooLong"
        case .notAVenueCode: "notAVenueCode"
        case .unsupportedVersion: "unsupportedVersion"
        case .undecodablePayload: "undecodablePayload"
        case .invalidVendorData: "invalidVendorData"
        case .invalidCountryData: "invalidCountryData"
        case .invalidDescription: "invalidDescription"
        case .invalidAddress: "invalidAddress"
        case .invalidTimestamps: "invalidTimestamps"
        case .invalidCryptographicSeed: "invalidCryptographicSeed"
        case .cryptoFailure: "cryptoFailure"
        }
    }
}

/// A JSON value that always writes every key (absent fields are `null`), so the output's shape is stable.
enum JSONValue: Encodable {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
