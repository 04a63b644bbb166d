/// The CWA records a kiosk kept (those whose `locationIdHash` is one of its venues'), filed by that hash so a tap
/// looks them up instead of scanning them.
public struct CWAWarningSet: Equatable, Sendable {
    public private(set) var warningsByHash: [[UInt8]: [CWATraceWarning]] = [:]
    public private(set) var reportsByHash: [[UInt8]: [CWAProtectedReport]] = [:]

    public init() {}

    public init(warnings: [CWATraceWarning], reports: [CWAProtectedReport]) {
        add(warnings: warnings, reports: reports)
    }

    /// How many records are kept.
    public var count: Int {
        warningsByHash.values.reduce(0) { $0 + $1.count } + reportsByHash.values.reduce(0) { $0 + $1.count }
    }

    /// Adds records not kept yet; returns how many were new.
    @discardableResult
    public mutating func add(warnings: [CWATraceWarning], reports: [CWAProtectedReport]) -> Int {
        var added = 0
        for warning in warnings where !(warningsByHash[warning.locationIdHash]?.contains(warning) ?? false) {
            warningsByHash[warning.locationIdHash, default: []].append(warning)
            added += 1
        }
        for report in reports where !(reportsByHash[report.locationIdHash]?.contains(report) ?? false) {
            reportsByHash[report.locationIdHash, default: []].append(report)
            added += 1
        }
        return added
    }

    /// Drops records about venues whose hash is no longer interesting (their stays expired).
    public mutating func retain(locationIdHashes hashes: Set<[UInt8]>) {
        warningsByHash = warningsByHash.filter { hashes.contains($0.key) }
        reportsByHash = reportsByHash.filter { hashes.contains($0.key) }
    }

    /// Drops health-authority warnings whose window ended before `cutoff` (UNIX seconds) and the protected reports
    /// `isOld` says are (their windows are sealed: the caller judges them by when they were published).
    public mutating func drop(warningsEndingBefore cutoff: Int64, reportsWhere isOld: (CWAProtectedReport) -> Bool) {
        warningsByHash = warningsByHash.mapValues { list in
            list.filter { (Int64($0.startIntervalNumber) + Int64($0.period)) * Interval.seconds >= cutoff }
        }.filter { !$0.value.isEmpty }
        reportsByHash = reportsByHash.mapValues { $0.filter { !isOld($0) } }.filter { !$0.value.isEmpty }
    }
}

extension WarningMatcher {
    /// Matches `stays` against kept CWA records, with the same overlap and risk rules as CKPR/1 and the same result
    /// type. Health-authority warnings (`timeIntervalWarnings`) are matched by `locationIdHash`; protected reports are
    /// looked up by it, then MAC-checked in constant time and decrypted with the keys of the stay's `locationId`.
    /// Invalid records (period 0, risk level outside 1…8) are ignored, as are a holder's own reports (`ownReports`
    /// holds their `CheckInProtectedReport` bytes or MACs). Each stay is split at midnight UTC, so every day's
    /// overlap counts for that day.
    public static func match(
        stays: [MatchableStay], cwa: CWAWarningSet, now: Int64, parameters: PresenceTracingParameters = .cwaProduction,
        crypto: some CryptoProvider
    ) -> ExposureResult {
        match(stays: stays, now: now, parameters: parameters) { cwaWindows(locationId: $0, cwa: cwa, crypto: crypto) }
    }

    /// Matches `stays` against every kept record of a region: CKPR/1 records and CWA records, combined as
    /// `combined` does (the same answer as `match(stays:index:…)` and `match(stays:cwa:…)` over the same records).
    /// Throws when the region's file could not be read: then nothing was checked, and no answer is given.
    public static func match(
        stays: [MatchableStay], region: RegionWarningIndex, now: Int64,
        parameters: PresenceTracingParameters = .cwaProduction, crypto: some CryptoProvider
    ) throws(RegionWarningReadError) -> ExposureResult {
        let ckpr = try match(stays: stays, index: region, now: now, parameters: parameters, crypto: crypto)
        let cwa = try match(stays: stays, now: now, parameters: parameters) {
            (locationId: [UInt8]) throws(RegionWarningReadError) -> [CWAWindow] in
            try region.cwaWindows(locationId: locationId, crypto: crypto)
        }
        return combined([ckpr, cwa], parameters: parameters)
    }

    /// The CWA matching rules over the windows `windowsOf` gives for a venue's `locationId`; throws what it throws.
    static func match<Failure: Error>(
        stays: [MatchableStay], now: Int64, parameters: PresenceTracingParameters,
        windowsOf: ([UInt8]) throws(Failure) -> [CWAWindow]
    ) throws(Failure) -> ExposureResult {
        var matches = [ExposureMatch]()
        let deadline = ageDeadline(now: now, parameters: parameters)
        // Windows per venue: each record is hashed, MAC-checked and decrypted once per venue, however many stays
        // share the venue. `report` identifies a protected report for the own-report check (nil for warnings).
        var windowsByVenue = [[UInt8]: [CWAWindow]]()
        for stay in stays where stay.end > stay.start {
            let windows: [CWAWindow]
            if let known = windowsByVenue[stay.locationId] {
                windows = known
            } else {
                windows = try windowsOf(stay.locationId)
                windowsByVenue[stay.locationId] = windows
            }
            guard !windows.isEmpty else { continue }
            let pieces = StayPreparation.splitAtMidnightUTC(StayPreparation.Window(start: stay.start, end: stay.end))
            for window in windows {
                if let report = window.report, !stay.ownReports.isEmpty,
                    stay.ownReports.contains(report.mac) || stay.ownReports.contains(report.serialized)
                {
                    continue
                }
                let value = parameters.transmissionRiskValue(for: window.level)
                guard value > 0 else { continue }
                for piece in pieces {
                    let day = StayPreparation.floorTo(piece.start, 86_400) / 86_400
                    guard day >= 0 else { continue }
                    let minutes = overlapMinutes(
                        stayStart: piece.start, stayEnd: piece.end,
                        startIntervalNumber: window.start, endIntervalNumber: window.end)
                    let overlapEnd = min(piece.end, window.end * Interval.seconds)
                    guard minutes > 0, overlapEnd >= deadline else { continue }
                    matches.append(
                        ExposureMatch(
                            stayId: stay.id, day: day, overlapMinutes: minutes,
                            transmissionRiskLevel: window.level, normalizedTime: value * Double(minutes)))
                }
            }
        }
        return ExposureResult(matches: matches, riskLevelByDay: riskLevels(matches, parameters: parameters))
    }

    /// A warned window of whole intervals at one risk level, from a warning or an opened protected report.
    struct CWAWindow {
        let start: Int64
        let end: Int64
        let level: UInt8
        let report: CWAProtectedReport?
    }

    /// The valid windows the kept records give for the venue `locationId`.
    static func cwaWindows(locationId: [UInt8], cwa: CWAWarningSet, crypto: some CryptoProvider) -> [CWAWindow] {
        guard let hash = try? crypto.sha256(locationId) else { return [] }
        var windows = [CWAWindow]()
        for warning in cwa.warningsByHash[hash] ?? [] where warning.isValidWarning {
            windows.append(
                CWAWindow(
                    start: Int64(warning.startIntervalNumber),
                    end: Int64(warning.startIntervalNumber) + Int64(warning.period),
                    level: UInt8(warning.transmissionRiskLevel), report: nil))
        }
        for report in cwa.reportsByHash[hash] ?? [] {
            guard let record = try? report.open(locationId: locationId, crypto: crypto), record.isValidWarning else {
                continue
            }
            windows.append(
                CWAWindow(
                    start: Int64(record.startIntervalNumber),
                    end: Int64(record.startIntervalNumber) + Int64(record.period),
                    level: UInt8(record.transmissionRiskLevel), report: report))
        }
        return windows
    }
}
