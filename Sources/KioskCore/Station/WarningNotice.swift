internal import Foundation

/// A published warning that matched a card's stays, as the kiosk shows it at that card's taps: the UTC days of
/// exposure, whether the risk is high, and a tag that recognises the same warning for the same card at later taps.
///
/// The tag is HMAC-SHA256 under the card's record key over the exposure days, so the station state can remember an
/// acknowledgement without holding anything that links it to a card, a handle or a stay.
public struct WarningNotice: Sendable, Equatable {
    public var acknowledgementTag: [UInt8]
    /// UTC day numbers, ascending.
    public var exposureDays: [Int64]
    public var isHighRisk: Bool

    public init(acknowledgementTag: [UInt8], exposureDays: [Int64], isHighRisk: Bool) {
        self.acknowledgementTag = acknowledgementTag
        self.exposureDays = exposureDays
        self.isHighRisk = isHighRisk
    }

    static let tagLabel = Array("CheckInKiosk warning acknowledgement v1".utf8)
}

extension CheckInDesk {
    /// Looks for a published warning about the card's stays: opens them (keys wiped before returning), hands them to
    /// `match` (the warnings client) and turns a match into a notice. `nil` when nothing matches.
    public func warningNotice(
        for card: CardSecret, clock: ClockReading,
        match: @Sendable ([MatchableStay]) async -> ExposureResult?
    ) async throws(TapRefusal) -> WarningNotice? {
        let keys = try self.keys(for: card)
        defer { keys.wipe() }
        var stays = try openStays(keys: keys)
        if clock.isSynchronized {
            stays = stays.filter { policy.retention.isWithinRetention($0, now: clock.now) }
        }
        // A holder's own reported stays: any warning about them came from their own report.
        stays = stays.filter { !$0.reported }
        guard !stays.isEmpty else { return nil }
        let matchable = stays.map { stay in
            let end = stay.end(asOf: clock.now) ?? min(clock.now, stay.latestEnd)
            return MatchableStay(id: stay.id.hex, locationId: stay.locationId,
                                 start: Int64(stay.start.timeIntervalSince1970.rounded(.down)),
                                 end: Int64(max(end, stay.start).timeIntervalSince1970.rounded(.down)))
        }
        guard let result = await match(matchable), !result.matches.isEmpty else { return nil }
        let days = Set(result.matches.map(\.day)).sorted()
        var message = WarningNotice.tagLabel
        for day in days {
            for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: day >> Int64(shift))) }
        }
        let tag: [UInt8]
        do { tag = try crypto.hmacSHA256(key: keys.recordKey, data: message) } catch { throw .cryptoFailure }
        return WarningNotice(acknowledgementTag: tag, exposureDays: days, isHighRisk: result.isHighRisk)
    }
}
