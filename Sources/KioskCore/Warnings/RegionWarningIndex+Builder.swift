extension RegionWarningIndex {
    /// Gathers records package by package, then sorts them once: into an index of their own held in memory
    /// (`build`), or merged into an index's file (`RegionWarningIndex.rewriting(adding:…)`).
    public struct Builder: Sendable {
        var ckpr = ContiguousArray<UInt8>()
        var cwaWarnings = ContiguousArray<UInt8>()
        var cwaReports = [[UInt8]: [PublishedReport]]()

        /// A builder with room for the given counts (reserving spares growing the arrays record by record).
        public init(expectedCKPRRecords: Int = 0, expectedCWAWarnings: Int = 0) {
            ckpr.reserveCapacity(expectedCKPRRecords * RegionEntryKind.ckpr.stride)
            cwaWarnings.reserveCapacity(expectedCWAWarnings * RegionEntryKind.cwaWarning.stride)
        }

        /// How many records were added (the same record added twice counts twice).
        public var count: Int {
            ckpr.count / RegionEntryKind.ckpr.stride + cwaWarnings.count / RegionEntryKind.cwaWarning.stride
                + cwaReports.values.reduce(0) { $0 + $1.count }
        }

        /// Adds the records of a CKPW/1 package.
        public mutating func add(_ package: WarningPackage) {
            add(ckprRecords: package.records, publishedAt: Int64(clamping: package.createdAt))
        }

        /// Adds CKPR/1 records published at `publishedAt` (UNIX seconds); records of another length are ignored.
        public mutating func add(ckprRecords records: [[UInt8]], publishedAt: Int64) {
            let day = Self.day(publishedAt)
            for record in records where record.count == CKPR.recordLength {
                ckpr.append(contentsOf: record)
                ckpr.append(UInt8(day >> 8))
                ckpr.append(UInt8(day & 0xFF))
            }
        }

        /// Adds CKPR/1 records laid one after another in `bytes` (as `WarningPackageReader` gathers a whole package),
        /// published at `publishedAt` (UNIX seconds); a cut record at the end is ignored.
        public mutating func add(ckprRecordBytes bytes: ContiguousArray<UInt8>, publishedAt: Int64) {
            let day = Self.day(publishedAt)
            let count = bytes.count / CKPR.recordLength
            ckpr.reserveCapacity(ckpr.count + count * RegionEntryKind.ckpr.stride)
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
                cwaWarnings.append(contentsOf: warning.locationIdHash[0..<RegionEntryKind.keyLength])
                for shift in [24, 16, 8, 0] {
                    cwaWarnings.append(UInt8(truncatingIfNeeded: warning.startIntervalNumber >> shift))
                }
                for shift in [24, 16, 8, 0] { cwaWarnings.append(UInt8(truncatingIfNeeded: warning.period >> shift)) }
                cwaWarnings.append(UInt8(warning.transmissionRiskLevel))
            }
            let day = StayPreparation.floorTo(publishedAt, 86_400) / 86_400
            for report in reports { cwaReports.add(PublishedReport(report: report, day: day)) }
        }

        /// The index of these records alone, held in memory (its entries' bytes serve as its file): entries sorted by
        /// key (records with the same key in the order they were added), duplicates dropped (a CKPR/1 record keeps
        /// its latest publication day), records older than the parameters' maximum age at `now` dropped.
        public consuming func build(now: Int64, parameters: PresenceTracingParameters = .cwaProduction)
            -> RegionWarningIndex
        {
            let runs = sortedRuns(deadline: WarningMatcher.ageDeadline(now: now, parameters: parameters))
            return RegionWarningIndex(
                ckpr: RegionWarningEntries(kind: .ckpr, sorted: runs.ckpr),
                cwaWarnings: RegionWarningEntries(kind: .cwaWarning, sorted: runs.cwaWarnings),
                cwaReports: runs.cwaReports)
        }

        /// The records sorted as `build` sorts them, those whose age is before `deadline` dropped.
        consuming func sortedRuns(deadline: Int64) -> (
            ckpr: ContiguousArray<UInt8>, cwaWarnings: ContiguousArray<UInt8>,
            cwaReports: [[UInt8]: [PublishedReport]]
        ) {
            let sortedCKPR = Self.sorted(ckpr, kind: .ckpr, deadline: deadline)
            ckpr = []
            let sortedWarnings = Self.sorted(cwaWarnings, kind: .cwaWarning, deadline: deadline)
            cwaWarnings = []
            return (sortedCKPR, sortedWarnings, cwaReports.current(at: deadline))
        }

        /// The UTC day of `time` (UNIX seconds), as a CKPR/1 entry keeps it.
        static func day(_ time: Int64) -> UInt16 { UInt16(clamping: StayPreparation.floorTo(time, 86_400) / 86_400) }

        /// `storage`'s entries of `kind` sorted by key (stable), those whose age is before `deadline` dropped and no
        /// two of the same record (the later day kept).
        static func sorted(_ storage: ContiguousArray<UInt8>, kind: RegionEntryKind, deadline: Int64)
            -> ContiguousArray<UInt8>
        {
            let stride = kind.stride
            return storage.withUnsafeBufferPointer { bytes in
                var order = [(key: RegionEntryKey, index: UInt32)]()
                order.reserveCapacity(bytes.count / stride)
                for index in 0..<(bytes.count / stride) where kind.age(of: bytes, at: index * stride) >= deadline {
                    order.append((RegionEntryKey(bytes, at: index * stride), UInt32(index)))
                }
                order.sort { ($0.key, $0.index) < ($1.key, $1.index) }
                var sorted = ContiguousArray<UInt8>()
                sorted.reserveCapacity(order.count * stride)
                var runStart = 0  // offset in `sorted` of the first entry with the current key
                var runKey: RegionEntryKey?
                for (key, index) in order {
                    if key != runKey {
                        runKey = key
                        runStart = sorted.count
                    }
                    let source = Int(index) * stride
                    kind.add(bytes[source..<(source + stride)], to: &sorted, runStart: runStart)
                }
                return sorted
            }
        }
    }
}
