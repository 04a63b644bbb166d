internal import Foundation

extension BoundVenue {
    static let cleaLabel = Array("CheckInKiosk Clea location v1".utf8)
    static let fingerprintLabel = Array("CheckInKiosk venue fingerprint v1".utf8)

    /// The binding for a parsed venue code. Cléa codes carry no location id in clear: the kiosk uses SHA-256 over a
    /// label and the code's location-specific part, so one poster is one venue. The stay rule comes from the code
    /// (`AutoCheckoutRule.forVenue`), with the configured default where the code sets none.
    public init(
        _ code: VenueCode, posterURL: String?, configuration: StationConfiguration,
        crypto: any CryptoProvider
    ) throws(CryptoError) {
        let locationId: [UInt8]
        if let known = code.locationId {
            locationId = known
        } else {
            locationId = try crypto.sha256(Self.cleaLabel + code.canonicalPayload)
        }
        let digest = try crypto.sha256(Self.fingerprintLabel + locationId)
        let hex = Hex.encode(digest.prefix(4)).uppercased()
        let start = code.startTimestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        let end = code.endTimestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        let isCWA = code.cwa != nil
        let rule = AutoCheckoutRule.forVenue(
            cwaDefaultCheckInLengthInMinutes: code.cwa?.defaultCheckInLengthInMinutes,
            cwaEventStart: isCWA ? start : nil, cwaEventEnd: isCWA ? end : nil,
            swissCovidAutomaticCheckoutDelayMs: code.swissCovid?.automaticCheckoutDelayMs,
            eventEnd: end, configuredDefault: configuration.defaultStayLength)
        let name = code.name.flatMap { $0.isEmpty ? nil : $0 } ?? "\(code.format.displayName) venue"
        var cwaFields: CWAFields?
        if let cwa = code.cwa {
            cwaFields = CWAFields(
                CWAVenueEncoder.Fields(
                    description: code.name ?? "", address: code.address ?? "", type: cwa.type,
                    startTimestamp: code.startTimestamp, endTimestamp: code.endTimestamp,
                    defaultCheckInLengthInMinutes: cwa.defaultCheckInLengthInMinutes))
        }
        self.init(
            format: code.format.rawValue, locationId: locationId, description: name, address: code.address ?? "",
            maximumStay: rule.maximumStay, eventEnd: rule.eventEnd, fingerprint: "\(hex.prefix(4))-\(hex.dropFirst(4))",
            cwaFields: cwaFields, posterURL: posterURL)
        crowdNotifier = code.crowdNotifier
        checkoutWarningDelay = code.swissCovid?.checkoutWarningDelayMs.map { TimeInterval($0) / 1000 }
    }
}
