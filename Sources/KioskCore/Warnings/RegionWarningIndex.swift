/// The published warnings of a whole region (every venue's, not only this kiosk's), kept compactly so that a card
/// from any venue of the region can be matched at its tap. Each kind of record lies in one contiguous byte array of
/// fixed-width entries sorted by its lookup key; a stay's records are found by binary search.
///
/// - CKPR/1 records (CKPW/1 packages), 76 bytes an entry: the 74-byte record and `u16 day` (the UTC day the package
///   was made). The window and risk level are sealed under keys only a holder of the venue's code derives, so the
///   entry keeps the whole record: its tag to be found by, its IV, ciphertext and MAC to be opened (a record
///   rebuilt from a shortened tag would open under the stay's tag, and a copy with a changed tag would then match
///   where the record it copies no longer does).
/// - CWA health-authority warnings (`timeIntervalWarnings`), 25 bytes an entry:
///   `locationIdHash[0..16) | u32 startIntervalNumber | u32 period | u8 transmissionRiskLevel`; only valid warnings
///   (`isValidWarning`) are kept. Two venues whose hashes share their first 16 bytes (a SHA-256 collision on 128 bits)
///   would share warnings.
/// - CWA protected reports are few beside these and kept as they are, filed by `locationIdHash`.
///
/// Records older than the matching parameters' maximum age are dropped when the index is built or pruned: CKPR/1
/// records and CWA protected reports by the day they were published (a report made before the age deadline is about
/// stays that ended before it), warnings by the end of their window. Matching (`WarningMatcher.match(stays:region:…)`)
/// gives the same answer as `WarningIndex` and `CWAWarningSet` holding the same records.
public struct RegionWarningIndex: Sendable {
    static let ckprStride = CKPR.recordLength + 2
    static let ckprDayOffset = CKPR.recordLength
    static let hashPrefixLength = 16
    static let cwaStride = hashPrefixLength + 4 + 4 + 1

    /// Sorted CKPR/1 entries.
    private(set) var ckpr: ContiguousArray<UInt8>
    /// Sorted CWA warning entries.
    private(set) var cwaWarnings: ContiguousArray<UInt8>
    /// CWA protected reports by `locationIdHash`, with the UTC day each was published.
    private(set) var cwaReports: [[UInt8]: [PublishedReport]]

    struct PublishedReport: Sendable {
        let report: CWAProtectedReport
        var day: Int64
    }

    /// An empty index.
    public init() {
        ckpr = []
        cwaWarnings = []
        cwaReports = [:]
    }

    /// How many CKPR/1 records are kept.
    public var ckprRecordCount: Int { ckpr.count / Self.ckprStride }
    /// How many CWA warnings are kept.
    public var cwaWarningCount: Int { cwaWarnings.count / Self.cwaStride }
    /// How many CWA protected reports are kept.
    public var cwaReportCount: Int { cwaReports.values.reduce(0) { $0 + $1.count } }
    /// Bytes allocated for the CKPR/1 and warning entries (protected reports not counted).
    public var entryStorageBytes: Int { ckpr.capacity + cwaWarnings.capacity }

    /// Gathers records package by package, then sorts them once (`build`).
    public struct Builder: Sendable {
        var ckpr = ContiguousArray<UInt8>()
        var cwaWarnings = ContiguousArray<UInt8>()
        var cwaReports = [[UInt8]: [PublishedReport]]()

        /// A builder with room for the given counts (reserving spares growing the arrays record by record).
        public init(expectedCKPRRecords: Int = 0, expectedCWAWarnings: Int = 0) {
            ckpr.reserveCapacity(expectedCKPRRecords * RegionWarningIndex.ckprStride)
            cwaWarnings.reserveCapacity(expectedCWAWarnings * RegionWarningIndex.cwaStride)
        }

        /// Adds the records of a CKPW/1 package.
        public mutating func add(_ package: WarningPackage) {
            add(ckprRecords: package.records, publishedAt: Int64(clamping: package.createdAt))
        }

        /// Adds CKPR/1 records published at `publishedAt` (UNIX seconds); records of another length are ignored.
        public mutating func add(ckprRecords records: [[UInt8]], publishedAt: Int64) {
            let day = UInt16(clamping: StayPreparation.floorTo(publishedAt, 86_400) / 86_400)
            for record in records where record.count == CKPR.recordLength {
                ckpr.append(contentsOf: record)
                ckpr.append(UInt8(day >> 8))
                ckpr.append(UInt8(day & 0xFF))
            }
        }

        /// Adds CKPR/1 records laid one after another in `bytes` (as `WarningPackageReader` gathers a whole package),
        /// published at `publishedAt` (UNIX seconds); a cut record at the end is ignored.
        public mutating func add(ckprRecordBytes bytes: ContiguousArray<UInt8>, publishedAt: Int64) {
            let day = UInt16(clamping: StayPreparation.floorTo(publishedAt, 86_400) / 86_400)
            let count = bytes.count / CKPR.recordLength
            ckpr.reserveCapacity(ckpr.count + count * RegionWarningIndex.ckprStride)
            bytes.withUnsafeBufferPointer { records in
                for index in 0..<count {
                    ckpr.append(contentsOf: records[(index * CKPR.recordLength)..<((index + 1) * CKPR.recordLength)])
                    ckpr.append(UInt8(day >> 8))
                    ckpr.append(UInt8(day & 0xFF))
                }
            }
        }

        /// Adds the records of a CWA package published at `publishedAt` (UNIX seconds); invalid warnings are ignored.
        public mutating func add(
            cwaWarnings warnings: [CWATraceWarning], reports: [CWAProtectedReport], publishedAt: Int64
        ) {
            for warning in warnings where warning.isValidWarning {
                cwaWarnings.append(contentsOf: warning.locationIdHash[0..<RegionWarningIndex.hashPrefixLength])
                for shift in [24, 16, 8, 0] {
                    cwaWarnings.append(UInt8(truncatingIfNeeded: warning.startIntervalNumber >> shift))
                }
                for shift in [24, 16, 8, 0] { cwaWarnings.append(UInt8(truncatingIfNeeded: warning.period >> shift)) }
                cwaWarnings.append(UInt8(warning.transmissionRiskLevel))
            }
            let day = StayPreparation.floorTo(publishedAt, 86_400) / 86_400
            for report in reports {
                if let index = cwaReports[report.locationIdHash]?.firstIndex(where: { $0.report == report }) {
                    cwaReports[report.locationIdHash]![index].day = max(
                        cwaReports[report.locationIdHash]![index].day, day)
                } else {
                    cwaReports[report.locationIdHash, default: []].append(PublishedReport(report: report, day: day))
                }
            }
        }

        /// The index: entries sorted by key (records with the same key in the order they were added), duplicates
        /// dropped (a CKPR/1 record keeps its latest publication day), records older than the parameters' maximum age
        /// at `now` dropped.
        public consuming func build(now: Int64, parameters: PresenceTracingParameters = .cwaProduction)
            -> RegionWarningIndex
        {
            var index = RegionWarningIndex()
            let deadline = WarningMatcher.ageDeadline(now: now, parameters: parameters)
            let firstDay = deadline / 86_400
            index.ckpr = RegionWarningIndex.sorted(
                ckpr, stride: RegionWarningIndex.ckprStride, keyLength: CKPR.tagLength,
                comparedLength: RegionWarningIndex.ckprDayOffset, dayOffset: RegionWarningIndex.ckprDayOffset
            ) { entry in Int64(entry.readUInt16(at: RegionWarningIndex.ckprDayOffset)) >= firstDay }
            ckpr = []
            index.cwaWarnings = RegionWarningIndex.sorted(
                cwaWarnings, stride: RegionWarningIndex.cwaStride, keyLength: RegionWarningIndex.hashPrefixLength,
                comparedLength: RegionWarningIndex.cwaStride, dayOffset: nil
            ) { entry in RegionWarningIndex.warningIsCurrent(entry, deadline: deadline) }
            cwaWarnings = []
            index.cwaReports = cwaReports.compactMapValues { list in
                let kept = list.filter { $0.day >= firstDay }
                return kept.isEmpty ? nil : kept
            }
            return index
        }
    }

    /// This index with the builder's records added (as `build` would sort them: the records of a key in the order
    /// they were added, this index's first), duplicates dropped (a CKPR/1 record keeps its latest publication day),
    /// and records older than the parameters' maximum age at `now` dropped. The two sorted runs are merged in one
    /// pass, so adding a few packages to a large index costs the new records' sort and one copy of the index, never a
    /// sort of everything; this index is left as it was (it can still be read while the merge runs).
    public func merging(
        _ builder: consuming Builder, now: Int64, parameters: PresenceTracingParameters = .cwaProduction
    ) -> RegionWarningIndex {
        let added = builder.build(now: now, parameters: parameters)
        let deadline = WarningMatcher.ageDeadline(now: now, parameters: parameters)
        let firstDay = deadline / 86_400
        var index = RegionWarningIndex()
        index.ckpr = Self.merged(
            ckpr, added.ckpr, stride: Self.ckprStride, keyLength: CKPR.tagLength, comparedLength: Self.ckprDayOffset,
            dayOffset: Self.ckprDayOffset
        ) { entry in Int64(entry.readUInt16(at: Self.ckprDayOffset)) >= firstDay }
        index.cwaWarnings = Self.merged(
            cwaWarnings, added.cwaWarnings, stride: Self.cwaStride, keyLength: Self.hashPrefixLength,
            comparedLength: Self.cwaStride, dayOffset: nil
        ) { entry in Self.warningIsCurrent(entry, deadline: deadline) }
        var reports = cwaReports.compactMapValues { list in
            let kept = list.filter { $0.day >= firstDay }
            return kept.isEmpty ? nil : kept
        }
        for (hash, list) in added.cwaReports {
            for published in list {
                if let position = reports[hash]?.firstIndex(where: { $0.report == published.report }) {
                    reports[hash]![position].day = max(reports[hash]![position].day, published.day)
                } else {
                    reports[hash, default: []].append(published)
                }
            }
        }
        index.cwaReports = reports
        return index
    }

    /// Drops records older than the parameters' maximum age at `now` (the order of the others is kept).
    public mutating func prune(now: Int64, parameters: PresenceTracingParameters = .cwaProduction) {
        let deadline = WarningMatcher.ageDeadline(now: now, parameters: parameters)
        let firstDay = deadline / 86_400
        Self.filter(&ckpr, stride: Self.ckprStride) { entry in
            Int64(entry.readUInt16(at: Self.ckprDayOffset)) >= firstDay
        }
        Self.filter(&cwaWarnings, stride: Self.cwaStride) { Self.warningIsCurrent($0, deadline: deadline) }
        cwaReports = cwaReports.compactMapValues { list in
            let kept = list.filter { $0.day >= firstDay }
            return kept.isEmpty ? nil : kept
        }
    }

    /// Whether a warning's window ends at or after `deadline` (one that ends before it can give no match).
    static func warningIsCurrent(_ entry: Entry, deadline: Int64) -> Bool {
        let start = Int64(entry.readUInt32(at: hashPrefixLength))
        let period = Int64(entry.readUInt32(at: hashPrefixLength + 4))
        return (start + period) * Interval.seconds >= deadline
    }

    // MARK: Lookup

    /// The CKPR/1 records whose tag is `tag`, in the order they were added.
    public func records(tagged tag: [UInt8]) -> [[UInt8]] {
        guard tag.count >= CKPR.tagLength else { return [] }
        let key = Key(tag, length: CKPR.tagLength)
        return ckpr.withUnsafeBufferPointer { bytes in
            var records = [[UInt8]]()
            var offset = Self.lowerBound(bytes, stride: Self.ckprStride, keyLength: CKPR.tagLength, key: key)
            while offset < bytes.count, Key(bytes, at: offset, length: CKPR.tagLength) == key {
                records.append(Array(bytes[offset..<(offset + CKPR.recordLength)]))
                offset += Self.ckprStride
            }
            return records
        }
    }

    /// The valid windows of the kept CWA warnings, then protected reports, about `locationId` (as `cwaWindows` gives
    /// for a `CWAWarningSet`).
    func cwaWindows(locationId: [UInt8], crypto: some CryptoProvider) -> [WarningMatcher.CWAWindow] {
        guard let hash = try? crypto.sha256(locationId), hash.count == 32 else { return [] }
        let key = Key(hash, length: Self.hashPrefixLength)
        var windows = cwaWarnings.withUnsafeBufferPointer { bytes in
            var windows = [WarningMatcher.CWAWindow]()
            var offset = Self.lowerBound(bytes, stride: Self.cwaStride, keyLength: Self.hashPrefixLength, key: key)
            while offset < bytes.count, Key(bytes, at: offset, length: Self.hashPrefixLength) == key {
                let entry = Entry(bytes: bytes, offset: offset)
                let start = Int64(entry.readUInt32(at: Self.hashPrefixLength))
                let period = Int64(entry.readUInt32(at: Self.hashPrefixLength + 4))
                windows.append(
                    WarningMatcher.CWAWindow(
                        start: start, end: start + period, level: bytes[offset + Self.cwaStride - 1], report: nil))
                offset += Self.cwaStride
            }
            return windows
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

    // MARK: Entries

    /// The first bytes of an entry (up to 16) as two big-endian words, in the order entries are sorted.
    struct Key: Equatable, Comparable {
        var high: UInt64 = 0
        var low: UInt64 = 0

        init(_ bytes: [UInt8], length: Int) {
            for position in 0..<length { push(bytes[position], at: position) }
        }

        init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, length: Int) {
            for position in 0..<length { push(bytes[offset + position], at: position) }
        }

        private mutating func push(_ byte: UInt8, at position: Int) {
            if position < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
    }

    /// One entry inside a storage buffer.
    struct Entry {
        let bytes: UnsafeBufferPointer<UInt8>
        let offset: Int

        func readUInt16(at position: Int) -> UInt16 {
            UInt16(bytes[offset + position]) << 8 | UInt16(bytes[offset + position + 1])
        }

        func readUInt32(at position: Int) -> UInt32 {
            var value: UInt32 = 0
            for index in 0..<4 { value = value << 8 | UInt32(bytes[offset + position + index]) }
            return value
        }
    }

    /// The offset of the first entry whose key is not below `key`.
    static func lowerBound(_ bytes: UnsafeBufferPointer<UInt8>, stride: Int, keyLength: Int, key: Key) -> Int {
        var low = 0
        var high = bytes.count / stride
        while low < high {
            let middle = (low + high) / 2
            if Key(bytes, at: middle * stride, length: keyLength) < key { low = middle + 1 } else { high = middle }
        }
        return low * stride
    }

    /// `storage`'s current entries sorted by key (stable), without duplicates (the first `comparedLength` bytes equal
    /// under one key; the later day, at `dayOffset`, is kept), in a buffer of exactly their size.
    static func sorted(
        _ storage: ContiguousArray<UInt8>, stride: Int, keyLength: Int, comparedLength: Int, dayOffset: Int?,
        isCurrent: (Entry) -> Bool
    ) -> ContiguousArray<UInt8> {
        storage.withUnsafeBufferPointer { bytes in
            var order = [(key: Key, index: UInt32)]()
            order.reserveCapacity(bytes.count / stride)
            for index in 0..<(bytes.count / stride) where isCurrent(Entry(bytes: bytes, offset: index * stride)) {
                order.append((Key(bytes, at: index * stride, length: keyLength), UInt32(index)))
            }
            order.sort { ($0.key, $0.index) < ($1.key, $1.index) }
            var sorted = ContiguousArray<UInt8>()
            sorted.reserveCapacity(order.count * stride)
            var runStart = 0  // offset in `sorted` of the first entry with the current key
            var runKey: Key?
            for (key, index) in order {
                let source = Int(index) * stride
                if key != runKey {
                    runKey = key
                    runStart = sorted.count
                } else if let duplicate = Swift.stride(from: runStart, to: sorted.count, by: stride).first(where: {
                    sorted[$0..<($0 + comparedLength)].elementsEqual(bytes[source..<(source + comparedLength)])
                }) {
                    if let dayOffset {
                        let kept =
                            UInt16(sorted[duplicate + dayOffset]) << 8 | UInt16(sorted[duplicate + dayOffset + 1])
                        let day = Entry(bytes: bytes, offset: source).readUInt16(at: dayOffset)
                        if day > kept {
                            sorted[duplicate + dayOffset] = UInt8(day >> 8)
                            sorted[duplicate + dayOffset + 1] = UInt8(day & 0xFF)
                        }
                    }
                    continue
                }
                sorted.append(contentsOf: bytes[source..<(source + stride)])
            }
            return sorted
        }
    }

    /// Two sorted runs of entries as one sorted run: per key, `old`'s entries `isCurrent` accepts, then `new`'s
    /// (already current and without duplicates among themselves) except those equal to one kept before them in their
    /// first `comparedLength` bytes, whose later day (at `dayOffset`) is kept instead.
    static func merged(
        _ old: ContiguousArray<UInt8>, _ new: ContiguousArray<UInt8>, stride: Int, keyLength: Int,
        comparedLength: Int, dayOffset: Int?, isCurrent: (Entry) -> Bool
    ) -> ContiguousArray<UInt8> {
        old.withUnsafeBufferPointer { first in
            new.withUnsafeBufferPointer { second in
                var merged = ContiguousArray<UInt8>()
                merged.reserveCapacity(first.count + second.count)
                var i = 0
                var j = 0
                while i < first.count || j < second.count {
                    let key: Key
                    if i < first.count, j < second.count {
                        key = min(
                            Key(first, at: i, length: keyLength), Key(second, at: j, length: keyLength))
                    } else if i < first.count {
                        key = Key(first, at: i, length: keyLength)
                    } else {
                        key = Key(second, at: j, length: keyLength)
                    }
                    let runStart = merged.count
                    while i < first.count, Key(first, at: i, length: keyLength) == key {
                        if isCurrent(Entry(bytes: first, offset: i)) {
                            merged.append(contentsOf: first[i..<(i + stride)])
                        }
                        i += stride
                    }
                    while j < second.count, Key(second, at: j, length: keyLength) == key {
                        let source = j
                        j += stride
                        guard
                            let duplicate = Swift.stride(from: runStart, to: merged.count, by: stride).first(where: {
                                merged[$0..<($0 + comparedLength)].elementsEqual(
                                    second[source..<(source + comparedLength)])
                            })
                        else {
                            merged.append(contentsOf: second[source..<(source + stride)])
                            continue
                        }
                        if let dayOffset {
                            let kept =
                                UInt16(merged[duplicate + dayOffset]) << 8 | UInt16(merged[duplicate + dayOffset + 1])
                            let day = Entry(bytes: second, offset: source).readUInt16(at: dayOffset)
                            if day > kept {
                                merged[duplicate + dayOffset] = UInt8(day >> 8)
                                merged[duplicate + dayOffset + 1] = UInt8(day & 0xFF)
                            }
                        }
                    }
                }
                return merged
            }
        }
    }

    /// Keeps the entries `isCurrent` accepts, in their order.
    static func filter(_ storage: inout ContiguousArray<UInt8>, stride: Int, isCurrent: (Entry) -> Bool) {
        var kept = ContiguousArray<UInt8>()
        storage.withUnsafeBufferPointer { bytes in
            let current = (0..<(bytes.count / stride)).filter { isCurrent(Entry(bytes: bytes, offset: $0 * stride)) }
            kept.reserveCapacity(current.count * stride)
            for index in current { kept.append(contentsOf: bytes[(index * stride)..<((index + 1) * stride)]) }
        }
        storage = kept
    }
}

extension RegionWarningIndex: TaggedRecordLookup {}
