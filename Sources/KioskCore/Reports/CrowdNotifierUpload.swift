import Foundation
import KioskProto
import SwiftProtobuf

/// Server-based CrowdNotifier (SwissCovid's `USER_QR_CODE` venues): what a visitor who tests positive uploads about a
/// stay, and how a health authority turns it into problematic events. Each entry covers one hour the stay touches, as
/// the CrowdNotifier SDKs build a `UserUploadInfo` / SwissCovid `UploadVenueInfo`: the venue's `preId`, the hour's
/// `timeKey`, the notification key, and the stay's part of the hour in milliseconds. With them the authority derives
/// exactly the hour's identity (`CN-ID`), without learning the venue's code. The share flow sends them as SwissCovid's
/// `UserUploadPayload` (`CrowdNotifierUploadPayload`).
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
        try entries(keys: keys, parts: hourParts(keys: keys, startMs: startMs, endMs: endMs), crypto: crypto)
    }

    /// The parts of hours a stay from `startMs` to `endMs` at the venue of `keys` is uploaded as: its `HourPart`s
    /// for v3 keys, none for v2 keys (their identities have no time key to hand over).
    public static func hourParts(keys: CrowdNotifierVenueKeys, startMs: Int64, endMs: Int64) -> [HourPart] {
        keys.scheme == .v3 ? HourPart.parts(startMs: startMs, endMs: endMs) : []
    }

    /// The entries of `parts` (from `hourParts(keys:startMs:endMs:)`) at the venue of `keys`.
    public static func entries(keys: CrowdNotifierVenueKeys, parts: [HourPart], crypto: some CryptoProvider)
        throws(CryptoError) -> [CrowdNotifierUploadEntry]
    {
        var out = [CrowdNotifierUploadEntry]()
        for part in parts {
            out.append(
                CrowdNotifierUploadEntry(
                    preId: keys.preId, timeKey: try keys.timeKey(intervalStart: part.intervalStart, crypto: crypto),
                    notificationKey: keys.notificationKey, intervalStart: part.intervalStart,
                    startMs: part.startMs, endMs: part.endMs))
        }
        return out
    }

    /// A stay's part of one hour: what an entry says about time, and what the consent preview shows of it.
    public struct HourPart: Sendable, Equatable {
        /// The hour's start (UNIX seconds).
        public let intervalStart: Int64
        /// The stay's part of the hour, in UNIX milliseconds.
        public let startMs: Int64
        public let endMs: Int64

        /// The parts of the hours a stay from `startMs` to `endMs` touches, as the CrowdNotifier SDKs split it (both
        /// ends' hours included), without an empty part (a stay ending on the hour); nothing for a stay that ends
        /// before it starts.
        public static func parts(startMs: Int64, endMs: Int64) -> [HourPart] {
            guard endMs > startMs else { return [] }
            return CrowdNotifierVenueKeys.hours(
                from: CrowdNotifierVenueKeys.floorDivide(startMs, 1000),
                to: CrowdNotifierVenueKeys.floorDivide(endMs, 1000)
            ).map { hour in
                let intervalStart = hour * CrowdNotifierVenueKeys.intervalLength
                return HourPart(
                    intervalStart: intervalStart, startMs: max(intervalStart * 1000, startMs),
                    endMs: min((intervalStart + CrowdNotifierVenueKeys.intervalLength) * 1000, endMs))
            }.filter { $0.endMs > $0.startMs }
        }
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

/// SwissCovid's `UserUploadPayload` as the kiosk sends it, on a stick, in an upload or as receipt codes: version 3,
/// one `UploadVenueInfo` per entry of the consented stays at CrowdNotifier venues (v3 keys), plus decoys, shuffled
/// with the CSPRNG.
///
/// The decoys are laid out over `preId` values as a CKPB/1 batch's are over tags (`ReportBatch.classSizes(forReal:)`):
/// the payload for 0 to 7 real entries always holds 16, in the same pattern of shared `preId`s. A decoy carries a real
/// or fresh random `preId`, random `timeKey` and notification key, and a random part of a random hour of the last 14
/// days before the hour of consent: the identity the authority derives from it is random, so the event it publishes warns no one. Every entry
/// is marked not fake (`fake` = one zero byte) and `userInteractionDurationMs` is 0: nothing in the payload tells a
/// decoy from a real entry or how long the holder took. The authority learns, as with any server-based
/// CrowdNotifier upload, the hours and which of them were at one place, but no venue's name or code.
public enum CrowdNotifierUploadPayload {
    public static let version: Int32 = 3
    /// The text form of one receipt code: `CNUP1:` + Base45 of a `UserUploadPayload`.
    public static let textPrefix = "CNUP1:"
    /// Entries per receipt code: about 650 bytes, 980 Base45 characters, printed as sharply as a batch's part.
    public static let entriesPerCode = 5
    /// The most entries one payload may carry (as many as the largest batch's records).
    public static let maximumEntries = 4096
    /// How far back a decoy's hour may lie: the 14 days a stay is kept.
    static let decoyHours: Int64 = 14 * 24

    /// The payload for `preview`'s consented stays (exactly the parts of hours it shows), with decoys, made at
    /// `preview.createdAt`.
    public static func bytes(for preview: Preview, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        var real = [CrowdNotifierUploadEntry]()
        for item in preview.items {
            guard let keys = item.stay.crowdNotifier else { continue }
            real += try CrowdNotifierUploadEntry.entries(keys: keys, parts: item.hourParts, crypto: crypto)
        }
        let nowHour = CrowdNotifierVenueKeys.floorDivide(preview.createdAt, CrowdNotifierVenueKeys.intervalLength)
        var all = real
        all += try ReportBatch.decoys(
            forRealLabels: real.map(\.preId),
            freshLabel: { () throws(CryptoError) in try crypto.randomBytes(count: 32) },
            decoy: { preId throws(CryptoError) in
                let hour = nowHour - 1 - Int64(try ReportBatch.uniformIndex(below: Int(decoyHours), crypto: crypto))
                let first = Int64(try ReportBatch.uniformIndex(below: 60, crypto: crypto))
                let last = first + 1 + Int64(try ReportBatch.uniformIndex(below: 60 - Int(first), crypto: crypto))
                let intervalStart = hour * CrowdNotifierVenueKeys.intervalLength
                return CrowdNotifierUploadEntry(
                    preId: preId, timeKey: try crypto.randomBytes(count: 32),
                    notificationKey: try crypto.randomBytes(count: SecretBoxSize.key), intervalStart: intervalStart,
                    startMs: (intervalStart + first * 60) * 1000, endMs: (intervalStart + last * 60) * 1000)
            })
        try ReportBatch.shuffle(&all, crypto: crypto)
        return serialized(all)
    }

    /// A `UserUploadPayload` of exactly `entries`, in order.
    public static func serialized(_ entries: [CrowdNotifierUploadEntry]) -> [UInt8] {
        var payload = SwissCovid_UserUploadPayload()
        payload.version = version
        payload.userInteractionDurationMs = 0
        payload.venueInfos = entries.map { entry in
            var info = SwissCovid_UploadVenueInfo()
            info.preID = Data(entry.preId)
            info.timeKey = Data(entry.timeKey)
            info.notificationKey = Data(entry.notificationKey)
            info.intervalStartMs = UInt64(max(0, entry.startMs))
            info.intervalEndMs = UInt64(max(0, entry.endMs))
            info.fake = Data([0])
            return info
        }
        return [UInt8]((try? payload.serializedData()) ?? Data())
    }

    /// The entries of a payload's bytes, each checked as the authority must before deriving an identity from it:
    /// 32-byte `preId`, `timeKey` and notification key, a part of one hour that ends after it starts; at most
    /// `maximumEntries`. Throws on anything else, so one bad entry refuses the whole payload. Entries marked fake are
    /// left out.
    public static func entries(in bytes: [UInt8]) throws(CrowdNotifierUploadError) -> [CrowdNotifierUploadEntry] {
        guard let payload = try? SwissCovid_UserUploadPayload(serializedBytes: bytes) else { throw .unreadable }
        guard payload.venueInfos.count <= maximumEntries else { throw .tooManyEntries }
        var entries = [CrowdNotifierUploadEntry]()
        for info in payload.venueInfos {
            guard info.preID.count == 32, info.timeKey.count == 32, info.notificationKey.count == SecretBoxSize.key,
                info.intervalStartMs < info.intervalEndMs, info.intervalEndMs <= UInt64(Int64.max)
            else { throw .invalidEntry }
            // An entry its sender marked fake (SwissCovid's apps mark theirs with a non-zero byte) is dropped.
            guard info.fake.allSatisfy({ $0 == 0 }) else { continue }
            let startMs = Int64(info.intervalStartMs)
            let endMs = Int64(info.intervalEndMs)
            let intervalStart =
                CrowdNotifierVenueKeys.intervalLength
                * CrowdNotifierVenueKeys.floorDivide(startMs / 1000, CrowdNotifierVenueKeys.intervalLength)
            guard endMs <= (intervalStart + CrowdNotifierVenueKeys.intervalLength) * 1000 else { throw .invalidEntry }
            entries.append(
                CrowdNotifierUploadEntry(
                    preId: [UInt8](info.preID), timeKey: [UInt8](info.timeKey),
                    notificationKey: [UInt8](info.notificationKey), intervalStart: intervalStart, startMs: startMs,
                    endMs: endMs))
        }
        return entries
    }

    /// The receipt codes of a payload: each a complete `UserUploadPayload` of at most `entriesPerCode` entries, as
    /// `CNUP1:` text (decoys and real entries alike, in the payload's shuffled order).
    public static func codeTexts(of bytes: [UInt8]) throws(CrowdNotifierUploadError) -> [String] {
        let all = try entries(in: bytes)
        return stride(from: 0, to: all.count, by: entriesPerCode).map { index in
            textPrefix + Base45.encode(serialized(Array(all[index..<min(index + entriesPerCode, all.count)])))
        }
    }

    /// The entries of one `CNUP1:` text (surrounding white space ignored), checked as `entries(in:)` checks them;
    /// nil when it is not one.
    public static func entries(text: String) -> [CrowdNotifierUploadEntry]? {
        let trimmed = text.trimmingASCIIWhitespace()
        guard trimmed.hasPrefix(textPrefix), let bytes = Base45.decode(String(trimmed.dropFirst(textPrefix.count)))
        else { return nil }
        return try? entries(in: bytes)
    }
}

/// Why an upload payload was refused.
public enum CrowdNotifierUploadError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable
    case tooManyEntries
    case invalidEntry

    public var description: String {
        switch self {
        case .unreadable: "this is not a CrowdNotifier upload"
        case .tooManyEntries: "this CrowdNotifier upload holds too many entries"
        case .invalidEntry: "an entry of this CrowdNotifier upload is malformed"
        }
    }
}
