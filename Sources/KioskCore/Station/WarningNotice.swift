internal import Foundation

/// A published warning that matched a card's stays, as the kiosk shows it at that card's taps: the days of exposure
/// (the calendar days the holder was there, in the venue's zone), whether the risk is high, and a tag that recognises
/// the same warning for the same card at later taps.
///
/// The tag is HMAC-SHA256 under the card's record key over the exposure days, so the station state can remember an
/// acknowledgement without holding anything that links it to a card, a handle or a stay.
public struct WarningNotice: Sendable, Equatable {
    public var acknowledgementTag: [UInt8]
    /// Day numbers (days since 1970-01-01) of the calendar dates in the venue's zone on which the matched stays
    /// overlapped the warnings, ascending: the dates the holder reads.
    public var exposureDays: [Int64]
    public var isHighRisk: Bool
    /// The hour from which what the station remembers of this warning must go: the expiry hour of the latest stay it
    /// concerns (`RetentionPolicy.expiryHour`), so the record never outlives the stays.
    public var expiryHour: Int64
    /// HMAC-SHA256 under the card's record key over a label and `expiryHour`: with the card, the kiosk recognises
    /// the station's records of this card's warnings (to delete them with its stays); without it, two records are
    /// not linkable to each other or to a card.
    public var ownerMark: [UInt8]

    public init(
        acknowledgementTag: [UInt8], exposureDays: [Int64], isHighRisk: Bool, expiryHour: Int64,
        ownerMark: [UInt8] = []
    ) {
        self.acknowledgementTag = acknowledgementTag
        self.exposureDays = exposureDays
        self.isHighRisk = isHighRisk
        self.expiryHour = expiryHour
        self.ownerMark = ownerMark
    }

    static let tagLabel = Array("CheckInKiosk warning acknowledgement v1".utf8)
    static let ownerLabel = Array("CheckInKiosk warning owner v1".utf8)
}

extension CheckInDesk {
    /// Looks for a published warning about the card's stays: opens them (keys wiped before returning), hands them to
    /// `match` (the warnings client) and turns a match into a notice. `nil` when nothing matches.
    public func warningNotice(
        for card: CardSecret, clock: ClockReading, zone: VenueZone = .board,
        match: @Sendable ([MatchableStay]) async -> ExposureResult?
    ) async throws(TapRefusal) -> WarningNotice? {
        let stays: [Stay]
        do {
            let keys = try self.keys(for: card)
            defer { keys.wipe() }
            stays = try openStays(keys: keys)
        }
        let matchable = matchableStays(stays, clock: clock)
        guard !matchable.isEmpty, let result = await match(matchable) else { return nil }
        return try warningNotice(for: card, result: result, stays: matchable, zone: zone)
    }

    /// The stays a warning may concern (`CardContents.matchable`).
    func matchableStays(_ stays: [Stay], clock: ClockReading) -> [MatchableStay] {
        CardContents.matchable(stays, retention: policy.retention, clock: clock)
    }

    /// Turns a match of the card's stays (`stays`: as they were matched) into the notice shown at its taps; `nil`
    /// when nothing matched. Needs only the card's keys (derived, then wiped), not its stored stays. A match's day is
    /// a UTC day (as the warnings count them); the notice gives the date in `zone` (the venue's) of the matched
    /// stay's first moment in that UTC day, so a stay just after local midnight is not shown a day early.
    public func warningNotice(
        for card: CardSecret, result: ExposureResult, stays: [MatchableStay], zone: VenueZone = .board
    ) throws(TapRefusal) -> WarningNotice? {
        guard !result.matches.isEmpty else { return nil }
        let matched = Set(result.matches.map(\.stayId))
        let latestEnd = stays.filter { matched.contains($0.id) }.map(\.end).max() ?? stays.map(\.end).max() ?? 0
        let expiryHour = policy.retention.expiryHour(
            forStayEndingAt: Date(timeIntervalSince1970: TimeInterval(latestEnd)))
        let keys = try self.keys(for: card)
        defer { keys.wipe() }
        let starts = Dictionary(stays.map { ($0.id, $0.start) }, uniquingKeysWith: min)
        let days = Set(
            result.matches.map { match in
                zone.dayNumber(of: max(starts[match.stayId] ?? match.day * 86_400, match.day * 86_400))
            }
        ).sorted()
        var message = WarningNotice.tagLabel
        for day in days {
            for shift in stride(from: 56, through: 0, by: -8) {
                message.append(UInt8(truncatingIfNeeded: day >> Int64(shift)))
            }
        }
        let tag: [UInt8]
        do { tag = try crypto.hmacSHA256(key: keys.recordKey, data: message) } catch { throw .cryptoFailure }
        return WarningNotice(
            acknowledgementTag: tag, exposureDays: days, isHighRisk: result.isHighRisk, expiryHour: expiryHour,
            ownerMark: try ownerMark(keys: keys, expiryHour: expiryHour))
    }

    /// The acknowledgement tags of those of `records` that belong to `card` (their owner mark is the card's for their
    /// expiry hour, compared in constant time): what its holder's deletion takes with it.
    public func warningRecords(ownedBy card: CardSecret, among records: [WarningRecord]) throws(TapRefusal)
        -> [[UInt8]]
    {
        let marked = records.filter { $0.owner != nil }
        guard !marked.isEmpty else { return [] }
        let keys = try self.keys(for: card)
        defer { keys.wipe() }
        var tags = [[UInt8]]()
        for record in marked {
            let mark = try ownerMark(keys: keys, expiryHour: record.expiryHour)
            if let owner = record.owner, crypto.constantTimeEquals(owner, mark) { tags.append(record.tag) }
        }
        return tags
    }

    private func ownerMark(keys: CardKeys, expiryHour: Int64) throws(TapRefusal) -> [UInt8] {
        var message = WarningNotice.ownerLabel
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8(truncatingIfNeeded: expiryHour >> Int64(shift)))
        }
        do { return try crypto.hmacSHA256(key: keys.recordKey, data: message) } catch { throw .cryptoFailure }
    }
}
