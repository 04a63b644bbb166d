internal import KioskProto
internal import SwiftProtobuf

/// Reads venue QR codes of every family the kiosk knows (see `VenueCodeFormat`) and validates them the way the apps
/// that printed them did. Any input yields a `VenueCode` or a `VenueCodeError`; matching is linear in the input, and
/// inputs longer than any QR code are rejected before decoding.
public struct VenueCodeParser: Sendable {
    /// Longest accepted input: a version-40 QR code holds at most 2,953 bytes (7,089 digits); 8 KiB leaves room.
    public static let maximumInputBytes = 8192

    /// Where CWA payloads may sit.
    public var cwaDescriptors: [CWAQRCodeDescriptor]
    /// CrowdNotifier hosts: SwissCovid and NotifyMe.
    public var crowdNotifierHosts: [CrowdNotifierHost]

    /// A host that serves CrowdNotifier codes and the URL versions it uses.
    public struct CrowdNotifierHost: Sendable, Equatable {
        public var host: String
        public var format: VenueCodeFormat
        public var versions: ClosedRange<UInt32>
        public init(host: String, format: VenueCodeFormat, versions: ClosedRange<UInt32>) {
            self.host = host
            self.format = format
            self.versions = versions
        }
    }

    /// SwissCovid (`v=4`) and NotifyMe (`v=2…4`).
    public static let defaultCrowdNotifierHosts: [CrowdNotifierHost] = [
        CrowdNotifierHost(host: "qr.swisscovid.ch", format: .swissCovid, versions: 4...4),
        CrowdNotifierHost(host: "qr.notify-me.ch", format: .notifyMe, versions: 2...4),
    ]

    public init(
        cwaDescriptors: [CWAQRCodeDescriptor] = CWAQRCodeDescriptor.kioskDefault,
        crowdNotifierHosts: [CrowdNotifierHost] = VenueCodeParser.defaultCrowdNotifierHosts
    ) {
        self.cwaDescriptors = cwaDescriptors
        self.crowdNotifierHosts = crowdNotifierHosts
    }

    /// Parses `text` with the default descriptors and hosts.
    public static func parse(_ text: String, crypto: some CryptoProvider) throws(VenueCodeError) -> VenueCode {
        try VenueCodeParser().parse(text, crypto: crypto)
    }

    /// Parses `text` (the content of a QR code) into a venue.
    public func parse(_ text: String, crypto: some CryptoProvider) throws(VenueCodeError) -> VenueCode {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumInputBytes else { throw .tooLong(byteCount: bytes.count) }

        for descriptor in cwaDescriptors {
            if case .coronaWarnApp(let allowsSlash) = descriptor.shape,
                let match = Self.matchCoronaWarnApp(bytes, allowsSlash: allowsSlash)
            {
                guard match.version == 1 else { throw .unsupportedVersion(.cwa) }
                return try Self.cwaVenue(
                    encoded: match.payload, encoding: descriptor.encoding, format: .cwa,
                    urlVersion: match.version, vendorHost: nil, crypto: crypto)
            }
        }
        for host in crowdNotifierHosts {
            if let venue = try Self.crowdNotifierVenue(bytes, host: host, crypto: crypto) { return venue }
        }
        if let venue = try Self.cleaVenue(bytes) { return venue }
        for descriptor in cwaDescriptors {
            if case .vendor(let prefix) = descriptor.shape, let match = Self.matchVendor(bytes, prefix: prefix) {
                guard match.version == 1 else { throw .unsupportedVersion(.cwaVendor) }
                return try Self.cwaVenue(
                    encoded: match.payload, encoding: descriptor.encoding, format: .cwaVendor,
                    urlVersion: match.version, vendorHost: URLText.host(bytes), crypto: crypto)
            }
        }
        throw .notAVenueCode
    }

    // MARK: CWA

    /// `https://e.coronawarn.app[/]?v=<digits>#<payload>` (case-insensitive), CWA's own descriptor.
    static func matchCoronaWarnApp(_ bytes: [UInt8], allowsSlash: Bool) -> (
        version: UInt32, payload: ArraySlice<UInt8>
    )? {
        let base = "https://e.coronawarn.app"
        guard URLText.hasPrefix(bytes, base) else { return nil }
        var index = base.utf8.count
        if allowsSlash, index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
        guard URLText.hasPrefix(bytes, "?v=", at: index) else { return nil }
        index += 3
        let digits = URLText.digitRun(bytes, from: index)
        guard digits > 0, index + digits < bytes.count, bytes[index + digits] == UInt8(ascii: "#") else { return nil }
        let payload = bytes[(index + digits + 1)...]
        guard !payload.isEmpty, !URLText.containsLineTerminator(payload) else { return nil }
        // A version too large for UInt32 is still a CWA code, of a version the kiosk cannot read.
        return (URLText.number(bytes[index..<(index + digits)]) ?? UInt32.max, payload)
    }

    /// `<prefix>…#…/CWA<digits>/<payload>` (case-insensitive): the last `/CWA<n>/` after the first `#`.
    static func matchVendor(_ bytes: [UInt8], prefix: String?) -> (version: UInt32, payload: ArraySlice<UInt8>)? {
        if let prefix {
            guard URLText.hasPrefix(bytes, prefix) else { return nil }
        } else {
            guard URLText.host(bytes) != nil else { return nil }
        }
        guard let hash = bytes.firstIndex(of: UInt8(ascii: "#")) else { return nil }
        guard !URLText.containsLineTerminator(bytes[...]) else { return nil }
        var best: (version: UInt32, payload: ArraySlice<UInt8>)?
        var index = hash + 1
        while index + 4 < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), URLText.hasPrefix(bytes, "CWA", at: index + 1) {
                let digitsStart = index + 4
                let digits = URLText.digitRun(bytes, from: digitsStart)
                let slash = digitsStart + digits
                if digits > 0, slash + 1 < bytes.count, bytes[slash] == UInt8(ascii: "/") {
                    best = (URLText.number(bytes[digitsStart..<slash]) ?? UInt32.max, bytes[(slash + 1)...])
                }
            }
            index += 1
        }
        return best
    }

    static func cwaVenue(
        encoded: ArraySlice<UInt8>, encoding: PayloadEncoding, format: VenueCodeFormat,
        urlVersion: UInt32, vendorHost: String?, crypto: some CryptoProvider
    ) throws(VenueCodeError) -> VenueCode {
        guard let raw = encoding.decode(encoded) else { throw .undecodablePayload(format) }
        let payload: SAP_Internal_Pt_QRCodePayload
        do {
            payload = try SAP_Internal_Pt_QRCodePayload(serializedBytes: raw, options: decodingOptions)
        } catch {
            throw .undecodablePayload(format)
        }
        let vendor: SAP_Internal_Pt_CWALocationData
        do {
            vendor = try SAP_Internal_Pt_CWALocationData(
                serializedBytes: [UInt8](payload.vendorData), options: decodingOptions)
        } catch {
            throw .invalidVendorData(format)
        }
        let location = payload.locationData
        if let problem = textProblem(location.description_p, mayBeEmpty: false) {
            throw .invalidDescription(format, problem)
        }
        if let problem = textProblem(location.address, mayBeEmpty: false) { throw .invalidAddress(format, problem) }
        guard location.startTimestamp <= location.endTimestamp else { throw .invalidTimestamps(format) }
        guard payload.crowdNotifierData.cryptographicSeed.count == 16 else { throw .invalidCryptographicSeed(format) }

        let canonical = try canonicalBytes(payload, format: format)
        let (locationId, locationIdHash) = try identifiers(canonical, crypto: crypto)
        return VenueCode(
            format: format, urlVersion: urlVersion, payloadVersion: payload.version,
            name: location.description_p, address: location.address,
            startTimestamp: location.startTimestamp == 0 ? nil : location.startTimestamp,
            endTimestamp: location.endTimestamp == 0 ? nil : location.endTimestamp,
            cwa: CWAVenueData(
                version: vendor.version, type: vendor.type.rawValue,
                defaultCheckInLengthInMinutes: vendor.defaultCheckInLengthInMinutes == 0
                    ? nil : vendor.defaultCheckInLengthInMinutes),
            vendorHost: vendorHost,
            cryptographicSeed: [UInt8](payload.crowdNotifierData.cryptographicSeed),
            publicKey: [UInt8](payload.crowdNotifierData.publicKey),
            canonicalPayload: canonical, locationId: locationId, locationIdHash: locationIdHash)
    }

    // MARK: Shared rules

    /// Unknown fields are dropped while decoding, so that re-serializing gives the canonical form CWA hashes.
    static var decodingOptions: BinaryDecodingOptions {
        var options = BinaryDecodingOptions()
        options.discardUnknownFields = true
        return options
    }

    /// CWA's text rules: not empty (unless allowed), at most 255 UTF-16 code units (Android's `String.length`), one line.
    static func textProblem(_ text: String, mayBeEmpty: Bool) -> VenueCodeError.TextProblem? {
        if text.isEmpty { return mayBeEmpty ? nil : .empty }
        if text.utf16.count > 255 { return .tooLong }
        if text.contains(where: \.isNewline) { return .lineBreak }
        return nil
    }

    static func canonicalBytes(_ message: some SwiftProtobuf.Message, format: VenueCodeFormat) throws(VenueCodeError)
        -> [UInt8]
    {
        do {
            return try message.serializedBytes()
        } catch {
            throw .undecodablePayload(format)
        }
    }

    /// `locationId = SHA-256("CWA-GUID" || canonical)`, `locationIdHash = SHA-256(locationId)`.
    static func identifiers(_ canonical: [UInt8], crypto: some CryptoProvider) throws(VenueCodeError) -> (
        [UInt8], [UInt8]
    ) {
        do {
            let locationId = try crypto.sha256(Array("CWA-GUID".utf8) + canonical)
            return (locationId, try crypto.sha256(locationId))
        } catch {
            throw .cryptoFailure(error)
        }
    }
}
