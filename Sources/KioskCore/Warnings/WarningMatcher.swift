/// Matching published reports against a card holder's stays, on the kiosk, at the holder's tap: the only moment the
/// stays are readable. Records are looked up by their day tag (a hash map), never by scanning every record against
/// every stay.
public struct WarningIndex: Sendable {
    /// A 16-byte tag as two words: hashing it costs no allocation, which matters for a feed of millions.
    struct TagKey: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        init?(_ bytes: some Collection<UInt8>) {
            guard bytes.count >= CKPR.tagLength else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            for (offset, byte) in bytes.prefix(CKPR.tagLength).enumerated() {
                if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
            }
            self.high = high
            self.low = low
        }

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }
    }

    /// Records by their 16-byte tag.
    private(set) var recordsByTag: [TagKey: [[UInt8]]] = [:]

    public init() {}

    /// How many records are kept.
    public private(set) var count = 0

    /// Adds the records of `package` whose tag is in `interestingTags` (the tags of the venues and days this kiosk
    /// has stays for); returns how many were kept. Everything else is dropped at once, so memory stays small however
    /// large the feed.
    @discardableResult
    public mutating func add(_ records: [[UInt8]], keepingTags interestingTags: Set<[UInt8]>) -> Int {
        let wanted = Set(interestingTags.compactMap(TagKey.init))
        var kept = 0
        for record in records where record.count == CKPR.recordLength {
            guard let tag = TagKey(record), wanted.contains(tag) else { continue }
            if recordsByTag[tag, default: []].contains(record) { continue }
            recordsByTag[tag, default: []].append(record)
            kept += 1
        }
        count += kept
        return kept
    }

    /// The records filed under `tag`.
    public func records(tagged tag: [UInt8]) -> [[UInt8]] { TagKey(tag).flatMap { recordsByTag[$0] } ?? [] }

    /// Drops records whose tag is no longer interesting (their stays expired).
    public mutating func retain(tags: Set<[UInt8]>) {
        let wanted = Set(tags.compactMap(TagKey.init))
        recordsByTag = recordsByTag.filter { wanted.contains($0.key) }
        count = recordsByTag.values.reduce(0) { $0 + $1.count }
    }
}

/// Where the matcher finds the CKPR/1 records published under a tag: a kiosk's own `WarningIndex` (in memory: a
/// lookup cannot fail), or a region's `RegionWarningIndex` (read from its file: a lookup can).
public protocol TaggedRecordLookup {
    /// What a lookup throws when it could not look: `Never` for records held in memory.
    associatedtype LookupFailure: Error = Never
    /// The records filed under `tag`, in the order they were kept.
    func records(tagged tag: [UInt8]) throws(LookupFailure) -> [[UInt8]]
}

extension WarningIndex: TaggedRecordLookup {}

/// A stay to match: its venue and its times (UNIX seconds), and whether the holder submitted it themselves.
public struct MatchableStay: Equatable, Sendable {
    public let id: String
    public let locationId: [UInt8]
    public let start: Int64
    public let end: Int64
    /// Reports this holder sent from this stay: a visitor's own reports never warn themselves.
    public let ownReports: Set<[UInt8]>
    /// The venue's CrowdNotifier keys, for stays at SwissCovid and NotifyMe venues (`CrowdNotifierMatcher`).
    public let crowdNotifier: CrowdNotifierVenueKeys?

    public init(
        id: String, locationId: [UInt8], start: Int64, end: Int64, ownReports: Set<[UInt8]> = [],
        crowdNotifier: CrowdNotifierVenueKeys? = nil
    ) {
        self.id = id
        self.locationId = locationId
        self.start = start
        self.end = end
        self.ownReports = ownReports
        self.crowdNotifier = crowdNotifier
    }

    /// The UTC days the stay touches.
    public var days: ClosedRange<Int64> {
        StayPreparation.floorTo(start, 86_400) / 86_400...StayPreparation.floorTo(max(start, end), 86_400) / 86_400
    }
}

/// A stay that overlapped a published report.
public struct ExposureMatch: Equatable, Sendable {
    public let stayId: String
    /// UTC day of the overlap (days since the epoch).
    public let day: Int64
    public let overlapMinutes: Int64
    public let transmissionRiskLevel: UInt8
    /// Transmission risk value × overlap minutes.
    public let normalizedTime: Double
}

/// The risk found at one tap.
public struct ExposureResult: Equatable, Sendable {
    public let matches: [ExposureMatch]
    /// Risk level per UTC day (1 low, 2 high) after summing normalized time per day.
    public let riskLevelByDay: [Int64: Int]

    /// Whether any day reached high risk.
    public var isHighRisk: Bool { riskLevelByDay.values.contains { $0 >= 2 } }
}

public enum WarningMatcher {
    /// The tags under which reports about `locationId` on `days` would be published.
    public static func tags(locationId: [UInt8], days: ClosedRange<Int64>, crypto: some CryptoProvider)
        throws(ProtectedReportError) -> [[UInt8]]
    {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        var tags = [[UInt8]]()
        for day in days where day >= 0 && day <= Int64(UInt32.max) {
            tags.append(try CKPR.tag(day: UInt32(day), keys: keys))
        }
        return tags
    }

    /// Matches `stays` against the kept records: tag lookup, constant-time MAC check, decryption, validation, overlap
    /// in minutes, and risk per CWA's rules. Stays older than the parameters' maximum age are ignored. Throws what a
    /// lookup throws (then there is no answer at all).
    public static func match<Lookup: TaggedRecordLookup>(
        stays: [MatchableStay], index: Lookup, now: Int64,
        parameters: PresenceTracingParameters = .cwaProduction, crypto: some CryptoProvider
    ) throws(Lookup.LookupFailure) -> ExposureResult {
        var matches = [ExposureMatch]()
        let deadline = ageDeadline(now: now, parameters: parameters)
        // Keys per venue, and the records of each venue and day (looked up by tag, MAC-checked and decrypted), are
        // derived once, however many stays share them.
        var keysByVenue = [[UInt8]: CKPRKeys]()
        var opened = [TagCacheKey: [(record: [UInt8], report: PresenceReport)]]()
        for stay in stays where stay.end > stay.start {
            let keys: CKPRKeys
            if let known = keysByVenue[stay.locationId] {
                keys = known
            } else {
                guard let derived = try? CKPR.deriveKeys(locationId: stay.locationId, crypto: crypto) else { continue }
                keysByVenue[stay.locationId] = derived
                keys = derived
            }
            for day in stay.days where day >= 0 && (day + 1) * 86_400 >= deadline {
                let cacheKey = TagCacheKey(locationId: stay.locationId, day: day)
                let reports: [(record: [UInt8], report: PresenceReport)]
                if let known = opened[cacheKey] {
                    reports = known
                } else {
                    guard let tag = try? CKPR.tag(day: UInt32(day), keys: keys) else { continue }
                    var found = [(record: [UInt8], report: PresenceReport)]()
                    for record in try index.records(tagged: tag) {
                        guard let report = try? CKPR.openAfterTagMatch(record, day: UInt32(day), keys: keys) else {
                            continue
                        }
                        found.append((record, report))
                    }
                    reports = found
                    opened[cacheKey] = reports
                }
                for (record, report) in reports where stay.ownReports.isEmpty || !stay.ownReports.contains(record) {
                    let minutes = overlapMinutes(stayStart: stay.start, stayEnd: stay.end, report: report)
                    let overlapEnd = min(stay.end, Int64(report.endIntervalNumber) * Interval.seconds)
                    guard minutes > 0, overlapEnd >= deadline else { continue }
                    let value = parameters.transmissionRiskValue(for: report.transmissionRiskLevel)
                    guard value > 0 else { continue }
                    matches.append(
                        ExposureMatch(
                            stayId: stay.id, day: day, overlapMinutes: minutes,
                            transmissionRiskLevel: report.transmissionRiskLevel,
                            normalizedTime: value * Double(minutes)))
                }
            }
        }
        return ExposureResult(matches: matches, riskLevelByDay: riskLevels(matches, parameters: parameters))
    }

    private struct TagCacheKey: Hashable {
        let locationId: [UInt8]
        let day: Int64
    }

    /// Minutes that a stay and a report share: `min(ends) − max(starts)`, rounded to whole minutes; 0 if none.
    public static func overlapMinutes(stayStart: Int64, stayEnd: Int64, report: PresenceReport) -> Int64 {
        overlapMinutes(
            stayStart: stayStart, stayEnd: stayEnd, startIntervalNumber: Int64(report.startIntervalNumber),
            endIntervalNumber: Int64(report.endIntervalNumber))
    }

    /// Minutes that a stay and a warned window of whole intervals share, rounded to whole minutes; 0 if none.
    public static func overlapMinutes(
        stayStart: Int64, stayEnd: Int64, startIntervalNumber: Int64, endIntervalNumber: Int64
    ) -> Int64 {
        let reportStart = startIntervalNumber * Interval.seconds
        let reportEnd = endIntervalNumber * Interval.seconds
        let overlap = min(stayEnd, reportEnd) - max(stayStart, reportStart)
        guard overlap > 0 else { return 0 }
        return Int64((Double(overlap) / 60).rounded(.toNearestOrAwayFromZero))
    }

    /// One result from the results of several sources (CKPW/1 and CWA records about the same stays): all matches,
    /// with the per-day risk computed over all of them together.
    public static func combined(_ results: [ExposureResult], parameters: PresenceTracingParameters = .cwaProduction)
        -> ExposureResult
    {
        let matches = results.flatMap(\.matches)
        return ExposureResult(matches: matches, riskLevelByDay: riskLevels(matches, parameters: parameters))
    }

    /// The age filter, as Corona-Warn-App's Android client applies it (`CheckInsFilter.filterCheckInWarningsByAge`,
    /// with the deadline at the start of the UTC day `maxCheckInAgeInDays` before today): an overlap counts unless it
    /// ended before the deadline. Android's rule is taken because it judges each overlap, as matching here does (a
    /// stay across midnight keeps its recent day and drops its old one), and keeps an overlap that was still going on
    /// at the deadline (an earlier Android version required the overlap to start after it).
    public static func ageDeadline(now: Int64, parameters: PresenceTracingParameters) -> Int64 {
        (StayPreparation.floorTo(now, 86_400) / 86_400 - Int64(parameters.maxCheckInAgeInDays)) * 86_400
    }

    /// Per-day risk, exactly as Corona-Warn-App's presence-tracing risk calculation: per check-in and UTC day (the
    /// matches are already split at midnight), the normalized time (transmission risk value × overlap minutes) is
    /// summed over its matches and mapped with `normalizedTimePerCheckInToRiskLevel`; only check-in-days that got a
    /// level are kept; their normalized times are summed per day and the sum mapped with
    /// `normalizedTimePerDayToRiskLevel` — the day's level comes from that mapping alone.
    static func riskLevels(_ matches: [ExposureMatch], parameters: PresenceTracingParameters) -> [Int64: Int] {
        struct CheckInDay: Hashable {
            let stayId: String
            let day: Int64
        }
        var perCheckIn = [CheckInDay: Double]()
        for match in matches {
            perCheckIn[CheckInDay(stayId: match.stayId, day: match.day), default: 0] += match.normalizedTime
        }
        var perDay = [Int64: Double]()
        for (checkIn, normalizedTime) in perCheckIn
        where Self.level(of: normalizedTime, in: parameters.normalizedTimePerCheckInToRiskLevel) != nil {
            perDay[checkIn.day, default: 0] += normalizedTime
        }
        var levels = [Int64: Int]()
        for (day, total) in perDay {
            if let level = Self.level(of: total, in: parameters.normalizedTimePerDayToRiskLevel), level > 0 {
                levels[day] = level
            }
        }
        return levels
    }

    /// The level of the first range holding `value`, nil when none does.
    static func level(of value: Double, in ranges: [RiskLevelRange]) -> Int? {
        ranges.first { $0.range.contains(value) }?.riskLevel
    }
}
