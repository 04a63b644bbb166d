internal import Foundation
internal import KioskProto
internal import SwiftProtobuf

/// Builds CWA venue codes: the kiosk's own venues are CWA codes (`PROTOCOL.md` §1).
public enum CWAVenueEncoder {
    /// What goes into a CWA code.
    public struct Fields: Sendable, Equatable {
        public var description: String
        public var address: String
        /// `TraceLocationType` number (1–8 permanent, 2 and 9–12 temporary).
        public var type: Int
        /// UNIX seconds; `nil` (0) for permanent venues.
        public var startTimestamp: UInt64?
        public var endTimestamp: UInt64?
        /// Suggested stay in minutes; `nil` (0) for none.
        public var defaultCheckInLengthInMinutes: UInt32?

        public init(
            description: String, address: String, type: Int, startTimestamp: UInt64? = nil,
            endTimestamp: UInt64? = nil, defaultCheckInLengthInMinutes: UInt32? = nil
        ) {
            self.description = description
            self.address = address
            self.type = type
            self.startTimestamp = startTimestamp
            self.endTimestamp = endTimestamp
            self.defaultCheckInLengthInMinutes = defaultCheckInLengthInMinutes
        }
    }

    /// The CrowdNotifier public key CWA puts into every code it creates (the one in CWA's published example code).
    public static let cwaPublicKey: [UInt8] = PayloadEncoding.decodeBase64(
        Array(
            "gwLMzE153tQwAOf2MZoUXXfzWTdlSpfS99iZffmcmxOG9njSK4RTimFOFwDh6t0Tyw8XR01ugDYjtuKwjjuK49Oh83FWct6XpefPi9Skjxvvz53i9gaMmUEc96pbtoaA"
                .utf8))!

    /// The canonical `QRCodePayload` bytes for `fields`, exactly as CWA builds them (versions 1, proto3 encoding).
    /// Does not validate: `makeVenue` does.
    public static func payload(_ fields: Fields, cryptographicSeed: [UInt8], publicKey: [UInt8] = cwaPublicKey)
        -> [UInt8]
    {
        var vendor = SAP_Internal_Pt_CWALocationData()
        vendor.version = 1
        vendor.type = SAP_Internal_Pt_TraceLocationType(rawValue: fields.type) ?? .UNRECOGNIZED(fields.type)
        vendor.defaultCheckInLengthInMinutes = fields.defaultCheckInLengthInMinutes ?? 0
        var payload = SAP_Internal_Pt_QRCodePayload()
        payload.version = 1
        payload.locationData.version = 1
        payload.locationData.description_p = fields.description
        payload.locationData.address = fields.address
        payload.locationData.startTimestamp = fields.startTimestamp ?? 0
        payload.locationData.endTimestamp = fields.endTimestamp ?? 0
        payload.crowdNotifierData.version = 1
        payload.crowdNotifierData.publicKey = Data(publicKey)
        payload.crowdNotifierData.cryptographicSeed = Data(cryptographicSeed)
        // Serializing these plain proto3 messages cannot fail (no required fields, no Any, no maps).
        let vendorBytes: [UInt8] = (try? vendor.serializedBytes()) ?? []
        payload.vendorData = Data(vendorBytes)
        return (try? payload.serializedBytes()) ?? []
    }

    /// `https://e.coronawarn.app?v=1#<base64url without padding>`.
    public static func url(payload: [UInt8]) -> String {
        "https://e.coronawarn.app?v=1#" + PayloadEncoding.encodeBase64URL(payload)
    }

    /// A new CWA venue with a fresh 16-byte seed from the CSPRNG: validated by the same rules a scanner applies, and
    /// returned as the parser reads it back, together with its URL.
    public static func makeVenue(_ fields: Fields, crypto: some CryptoProvider) throws(VenueCodeError) -> (
        url: String, venue: VenueCode
    ) {
        let seed: [UInt8]
        do {
            seed = try crypto.randomBytes(count: 16)
        } catch {
            throw .cryptoFailure(error)
        }
        let url = url(payload: payload(fields, cryptographicSeed: seed))
        let venue = try VenueCodeParser(cwaDescriptors: CWAQRCodeDescriptor.production).parse(url, crypto: crypto)
        return (url, venue)
    }
}
