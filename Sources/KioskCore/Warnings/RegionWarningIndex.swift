/// The published warnings of a whole region (every venue's, not only this kiosk's), kept so that a card from any
/// venue of the region can be matched at its tap. Each kind of record is a run of fixed-width entries sorted by a
/// 16-byte key, in the index's file (`RegionWarningIndex+Stored.swift`, read through the `RegionWarningFileReading`
/// port); in memory the index holds only a compact key per entry, the key's first 8 bytes (`RegionWarningEntries`).
/// A stay's records are found by binary search over the compact keys, and only then read from the file (one read
/// per key found) and told apart by their whole key.
///
/// - CKPR/1 records (CKPW/1 packages), 76 bytes an entry: the 74-byte record and `u16 day` (the UTC day the package
///   was made), sorted by tag. The window and risk level are sealed under keys only a holder of the venue's code
///   derives, so the entry keeps the whole record: its tag to be found by, its IV, ciphertext and MAC to be opened (a
///   record rebuilt from a shortened tag would open under the stay's tag, and a copy with a changed tag would then
///   match where the record it copies no longer does).
/// - CWA health-authority warnings (`timeIntervalWarnings`), 25 bytes an entry:
///   `locationIdHash[0..16) | u32 startIntervalNumber | u32 period | u8 transmissionRiskLevel`; only valid warnings
///   (`isValidWarning`) are kept. Two venues whose hashes share their first 16 bytes (a SHA-256 collision on 128 bits)
///   would share warnings.
/// - CWA protected reports are few beside these and kept in memory as they are, filed by `locationIdHash`.
///
/// Records older than the matching parameters' maximum age are dropped when the index is built or rewritten:
/// CKPR/1 records and CWA protected reports by the day they were published (a report made before the age deadline
/// is about stays that ended before it), warnings by the end of their window. Matching
/// (`WarningMatcher.match(stays:region:…)`) gives the same answer as `WarningIndex` and `CWAWarningSet` holding the
/// same records, or throws when the file could not be read: then nothing was checked.
public struct RegionWarningIndex: Sendable {
    /// The CKPR/1 entries.
    let ckpr: RegionWarningEntries
    /// The CWA warning entries.
    let cwaWarnings: RegionWarningEntries
    /// CWA protected reports by `locationIdHash`, with the UTC day each was published.
    let cwaReports: [[UInt8]: [PublishedReport]]

    struct PublishedReport: Sendable {
        let report: CWAProtectedReport
        var day: Int64
    }

    /// An empty index.
    public init() {
        self.init(
            ckpr: RegionWarningEntries(kind: .ckpr), cwaWarnings: RegionWarningEntries(kind: .cwaWarning),
            cwaReports: [:])
    }

    init(ckpr: RegionWarningEntries, cwaWarnings: RegionWarningEntries, cwaReports: [[UInt8]: [PublishedReport]]) {
        self.ckpr = ckpr
        self.cwaWarnings = cwaWarnings
        self.cwaReports = cwaReports
    }

    /// How many CKPR/1 records are kept.
    public var ckprRecordCount: Int { ckpr.count }
    /// How many CWA warnings are kept.
    public var cwaWarningCount: Int { cwaWarnings.count }
    /// How many CWA protected reports are kept.
    public var cwaReportCount: Int { cwaReports.values.reduce(0) { $0 + $1.count } }
    /// Bytes allocated for the compact keys of the CKPR/1 and warning entries (8 bytes an entry; protected reports
    /// not counted). An index built in memory (`Builder.build`) holds its entries' bytes besides, as its file.
    public var keyStorageBytes: Int { (ckpr.keys.capacity + cwaWarnings.keys.capacity) * MemoryLayout<UInt64>.stride }

    /// Whether the index holds records older than the parameters' maximum age at `now`, which a rewrite
    /// (`rewriting(now:…)`) would drop.
    public func holdsRecords(pastAgeAt now: Int64, parameters: PresenceTracingParameters = .cwaProduction) -> Bool {
        let deadline = WarningMatcher.ageDeadline(now: now, parameters: parameters)
        return [ckpr.oldest, cwaWarnings.oldest].contains { ($0 ?? deadline) < deadline }
            || cwaReports.values.contains { $0.contains { $0.day * 86_400 < deadline } }
    }

    // MARK: Lookup

    /// The CKPR/1 records whose tag is `tag`, in the order they were added. Throws when the file cannot be read.
    public func records(tagged tag: [UInt8]) throws(RegionWarningReadError) -> [[UInt8]] {
        try ckpr.entries(keyed: tag).map { Array($0.prefix(CKPR.recordLength)) }
    }

    /// The valid windows of the kept CWA warnings, then protected reports, about `locationId` (as `cwaWindows` gives
    /// for a `CWAWarningSet`). Throws when the file cannot be read.
    func cwaWindows(locationId: [UInt8], crypto: some CryptoProvider) throws(RegionWarningReadError)
        -> [WarningMatcher.CWAWindow]
    {
        guard let hash = try? crypto.sha256(locationId), hash.count == 32 else { return [] }
        var windows = [WarningMatcher.CWAWindow]()
        for entry in try cwaWarnings.entries(keyed: hash) {
            let start = Int64(RegionEntryKind.field(UInt32.self, of: entry, at: RegionEntryKind.keyLength))
            let period = Int64(RegionEntryKind.field(UInt32.self, of: entry, at: RegionEntryKind.keyLength + 4))
            windows.append(
                WarningMatcher.CWAWindow(start: start, end: start + period, level: entry[entry.count - 1], report: nil))
        }
        for published in cwaReports[hash] ?? [] {
            guard let record = try? published.report.open(locationId: locationId, crypto: crypto),
                record.isValidWarning
            else { continue }
            windows.append(
                WarningMatcher.CWAWindow(
                    start: Int64(record.startIntervalNumber),
                    end: Int64(record.startIntervalNumber) + Int64(record.period),
                    level: UInt8(record.transmissionRiskLevel), report: published.report))
        }
        return windows
    }
}

extension RegionWarningIndex: TaggedRecordLookup {
    public typealias LookupFailure = RegionWarningReadError
}

extension [[UInt8]: [RegionWarningIndex.PublishedReport]] {
    /// Files `published` under its report's `locationIdHash`, unless the same report is filed there: that one then
    /// keeps the later of the two days.
    mutating func add(_ published: RegionWarningIndex.PublishedReport) {
        let hash = published.report.locationIdHash
        if let position = self[hash]?.firstIndex(where: { $0.report == published.report }) {
            self[hash]![position].day = Swift.max(self[hash]![position].day, published.day)
        } else {
            self[hash, default: []].append(published)
        }
    }

    /// The reports published on or after the day `deadline` starts (UNIX seconds, the start of a UTC day).
    func current(at deadline: Int64) -> Self {
        compactMapValues { list in
            let kept = list.filter { $0.day * 86_400 >= deadline }
            return kept.isEmpty ? nil : kept
        }
    }
}
