/// Server-based CrowdNotifier (SwissCovid's `USER_QR_CODE` venues): what a visitor who tests positive would upload
/// about a stay, and how a health authority turns it into problematic events. Each entry covers one hour the stay
/// touches, as the CrowdNotifier SDKs build a `UserUploadInfo` / SwissCovid `UploadVenueInfo`: the venue's `preId`,
/// the hour's `timeKey`, the notification key, and the stay's part of the hour in milliseconds. With them the
/// authority derives exactly the hour's identity (`CN-ID`), without learning the venue's code.
///
/// Not yet part of the share flow: the consent screens do not offer it (`docs/PRIVACY.md`, row 001-5).
public struct CrowdNotifierUploadEntry: Sendable, Equatable {
    public var preId: [UInt8]
    public var timeKey: [UInt8]
    public var notificationKey: [UInt8]
    /// The hour's start (UNIX seconds).
    public var intervalStart: Int64
    /// The stay's part of the hour, in UNIX milliseconds.
    public var startMs: Int64
    public var endMs: Int64

    /// The entries of a stay from `startMs` to `endMs` at the venue of `keys` (v3 keys only: v2 identities have no
    /// time key to hand over).
    public static func entries(
        keys: CrowdNotifierVenueKeys, startMs: Int64, endMs: Int64, crypto: some CryptoProvider
    ) throws(CryptoError) -> [CrowdNotifierUploadEntry] {
        guard keys.scheme == .v3, endMs > startMs else { return [] }
        var out = [CrowdNotifierUploadEntry]()
        for hour in CrowdNotifierVenueKeys.hours(
            from: CrowdNotifierVenueKeys.floorDivide(startMs, 1000), to: CrowdNotifierVenueKeys.floorDivide(endMs, 1000)
        ) {
            let intervalStart = hour * CrowdNotifierVenueKeys.intervalLength
            out.append(
                CrowdNotifierUploadEntry(
                    preId: keys.preId, timeKey: try keys.timeKey(intervalStart: intervalStart, crypto: crypto),
                    notificationKey: keys.notificationKey, intervalStart: intervalStart,
                    startMs: max(intervalStart * 1000, startMs),
                    endMs: min((intervalStart + CrowdNotifierVenueKeys.intervalLength) * 1000, endMs)))
        }
        return out
    }

    /// The hour's identity, as the authority computes it from the entry: `SHA-256("CN-ID" ‖ preId ‖ be32(3600) ‖
    /// be64(intervalStart) ‖ timeKey)`.
    public func identity(crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        try crypto.sha256(
            Array("CN-ID".utf8) + preId + CrowdNotifierVenueKeys.timeBytes(intervalStart: intervalStart) + timeKey)
    }

    /// The problematic event the authority publishes for this entry (form 3): the identity, and the stay's part of
    /// the hour sealed under the notification key.
    public func event(nonce: [UInt8], crypto: some CryptoProvider, box: some SecretBox) throws(CryptoError)
        -> CrowdNotifierEvent
    {
        let start = CrowdNotifierVenueKeys.floorDivide(startMs, 1000)
        let end = -CrowdNotifierVenueKeys.floorDivide(-endMs, 1000)
        return try CrowdNotifierEvent.sealV3(
            identity: try identity(crypto: crypto), notificationKey: notificationKey,
            hour: intervalStart / CrowdNotifierVenueKeys.intervalLength, start: start, end: end, nonce: nonce, box: box)
    }
}
