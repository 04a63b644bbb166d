/// What matching a CrowdNotifier venue's published events needs, kept (sealed) with every stay there: the constant
/// part of the venue's hourly identity and the venue's notification key. Derived once, when the code is read.
///
/// - `v3` (SwissCovid `?v=4`, NotifyMe `?v=3`/`?v=4`, a `QRCodePayload`): `HKDF-SHA256(IKM = payload, salt = empty,
///   info = "CrowdNotifier_v3", L = 96) = noncePreId ‖ nonceTimekey ‖ notificationKey`;
///   `preId = SHA-256("CN-PREID" ‖ payload ‖ noncePreId)`; for the hour starting at `t` (UNIX seconds):
///   `timeKey = SHA-256("CN-TIMEKEY" ‖ be32(3600) ‖ be64(t) ‖ nonceTimekey)`,
///   `identity = SHA-256("CN-ID" ‖ preId ‖ be32(3600) ‖ be64(t) ‖ timeKey)`. The payload is the canonical
///   re-serialisation (as the Android SDK hashes it; `docs/PROTOCOL.md` §7).
/// - `v2` (NotifyMe `?v=2`, libcrowdnotifier v2's `QRCodeEntry`): `info` = the entry's `QRCodeContent` serialised;
///   `preId = SHA-256(info ‖ nonce1)`; for hour number `h` (hours since the epoch):
///   `identity = SHA-256(preId ‖ nonce2 ‖ ASCII decimal h)`; the notification key is the content's own.
///
/// `description` names the scheme only: the keys open the venue's events and must never reach a log.
public struct CrowdNotifierVenueKeys: Sendable, Hashable {
    public enum Scheme: UInt8, Sendable {
        case v2 = 2
        case v3 = 3
    }

    public var scheme: Scheme
    /// v3: `preId`; v2: `SHA-256(info ‖ nonce1)`.
    public var preId: [UInt8]
    /// v3: `nonceTimekey`; v2: `nonce2`.
    public var timeNonce: [UInt8]
    /// The 32-byte XSalsa20-Poly1305 key the venue's events are sealed under.
    public var notificationKey: [UInt8]

    /// CrowdNotifier's only interval length: one hour.
    public static let intervalLength: Int64 = 3600

    public init?(scheme: Scheme, preId: [UInt8], timeNonce: [UInt8], notificationKey: [UInt8]) {
        guard preId.count == 32, (1...64).contains(timeNonce.count), notificationKey.count == SecretBoxSize.key
        else { return nil }
        self.scheme = scheme
        self.preId = preId
        self.timeNonce = timeNonce
        self.notificationKey = notificationKey
    }

    /// HKDF-SHA256 over a v3 payload: `(noncePreId, nonceTimekey, notificationKey)`.
    public static func v3Nonces(payload: [UInt8], crypto: some CryptoProvider) throws(CryptoError)
        -> (noncePreId: [UInt8], nonceTimekey: [UInt8], notificationKey: [UInt8])
    {
        var okm = try crypto.hkdfSHA256(
            inputKeyMaterial: payload, salt: [], info: Array("CrowdNotifier_v3".utf8), length: 96)
        defer { crypto.wipe(&okm) }
        return (Array(okm[0..<32]), Array(okm[32..<64]), Array(okm[64..<96]))
    }

    /// The keys of a v3 payload (its canonical bytes).
    public static func v3(payload: [UInt8], crypto: some CryptoProvider) throws(CryptoError) -> CrowdNotifierVenueKeys {
        var nonces = try v3Nonces(payload: payload, crypto: crypto)
        defer { crypto.wipe(&nonces.noncePreId) }
        let preId = try crypto.sha256(Array("CN-PREID".utf8) + payload + nonces.noncePreId)
        guard
            let keys = CrowdNotifierVenueKeys(
                scheme: .v3, preId: preId, timeNonce: nonces.nonceTimekey, notificationKey: nonces.notificationKey)
        else { throw .invalidParameter("CrowdNotifier keys") }
        return keys
    }

    /// The keys of a v2 entry: its `QRCodeContent` bytes, the entry proof's nonces and the content's notification key.
    public static func v2(
        content: [UInt8], nonce1: [UInt8], nonce2: [UInt8], notificationKey: [UInt8], crypto: some CryptoProvider
    ) throws(CryptoError) -> CrowdNotifierVenueKeys {
        let preId = try crypto.sha256(content + nonce1)
        guard
            let keys = CrowdNotifierVenueKeys(
                scheme: .v2, preId: preId, timeNonce: nonce2, notificationKey: notificationKey)
        else { throw .invalidParameter("CrowdNotifier keys") }
        return keys
    }

    /// The venue's identity for hour number `hour` (hours since the epoch; the interval `[hour·3600, hour·3600+3600)`).
    public func identity(hour: Int64, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        switch scheme {
        case .v3: return try identity(intervalStart: hour * Self.intervalLength, crypto: crypto)
        case .v2: return try crypto.sha256(preId + timeNonce + Array(String(hour).utf8))
        }
    }

    /// The v3 identity of the interval starting at `intervalStart` (UNIX seconds, passed through as it is: the
    /// upstream vectors use starts that are not whole hours). For v2 keys, the identity of the hour holding it.
    public func identity(intervalStart: Int64, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        guard scheme == .v3 else {
            return try identity(hour: Self.floorDivide(intervalStart, Self.intervalLength), crypto: crypto)
        }
        let time = Self.timeBytes(intervalStart: intervalStart)
        return try crypto.sha256(
            Array("CN-ID".utf8) + preId + time + (try timeKey(intervalStart: intervalStart, crypto: crypto)))
    }

    /// v3: `timeKey = SHA-256("CN-TIMEKEY" ‖ be32(3600) ‖ be64(intervalStart) ‖ nonceTimekey)`.
    public func timeKey(intervalStart: Int64, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        try crypto.sha256(Array("CN-TIMEKEY".utf8) + Self.timeBytes(intervalStart: intervalStart) + timeNonce)
    }

    /// `be32(3600) ‖ be64(intervalStart)`.
    static func timeBytes(intervalStart: Int64) -> [UInt8] {
        var time = [UInt8]()
        time.appendBigEndian(UInt32(intervalLength))
        time.appendBigEndian(UInt64(bitPattern: intervalStart))
        return time
    }

    /// The hours (numbers since the epoch) a stay from `start` to `end` (UNIX seconds) touches, both ends included,
    /// as the CrowdNotifier SDKs count them.
    public static func hours(from start: Int64, to end: Int64) -> ClosedRange<Int64> {
        floorDivide(start, intervalLength)...floorDivide(max(start, end), intervalLength)
    }

    /// Overwrites the keys with zeros.
    public mutating func wipe(crypto: some CryptoProvider) {
        crypto.wipe(&preId)
        crypto.wipe(&timeNonce)
        crypto.wipe(&notificationKey)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

extension CrowdNotifierVenueKeys: CustomStringConvertible {
    public var description: String { "CrowdNotifierVenueKeys(scheme: v\(scheme.rawValue))" }
}

/// Saved (with the bound venue in the station state) as `{"scheme": 3, "preId": hex, "timeNonce": hex,
/// "notificationKey": hex}`; the same checks as `init(scheme:preId:timeNonce:notificationKey:)` on reading.
extension CrowdNotifierVenueKeys: Codable {
    private enum CodingKeys: String, CodingKey { case scheme, preId, timeNonce, notificationKey }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let scheme = Scheme(rawValue: try container.decode(UInt8.self, forKey: .scheme)),
            let preId = Hex.decode(try container.decode(String.self, forKey: .preId)),
            let timeNonce = Hex.decode(try container.decode(String.self, forKey: .timeNonce)),
            let notificationKey = Hex.decode(try container.decode(String.self, forKey: .notificationKey)),
            let keys = CrowdNotifierVenueKeys(
                scheme: scheme, preId: preId, timeNonce: timeNonce, notificationKey: notificationKey)
        else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "CrowdNotifier keys"))
        }
        self = keys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scheme.rawValue, forKey: .scheme)
        try container.encode(Hex.encode(preId), forKey: .preId)
        try container.encode(Hex.encode(timeNonce), forKey: .timeNonce)
        try container.encode(Hex.encode(notificationKey), forKey: .notificationKey)
    }
}
