import KioskCore
import KioskOpenSSL
import Testing

/// A region's index gives, for random records and stays, exactly the matches the kiosk's own `WarningIndex` and
/// `CWAWarningSet` give for the same records, built in memory and read back from its stored file alike; records past
/// the maximum age are dropped without changing an answer.
@Suite struct RegionWarningIndexTests {
    let crypto = OpenSSLCrypto()
    let today: Int64 = 20_000

    /// SplitMix64: the same cases on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random records about a few venues (and none), each with the time it was published (never before its window
    /// ended), and random stays at those venues.
    struct Case {
        var ckpr = [(record: [UInt8], publishedAt: Int64)]()
        var warnings = [(warning: CWATraceWarning, publishedAt: Int64)]()
        var reports = [(report: CWAProtectedReport, publishedAt: Int64)]()
        var stays = [MatchableStay]()
        var now: Int64 = 0
    }

    func randomBytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    func makeCase(seed: UInt64) throws -> Case {
        var rng = SeededGenerator(state: seed)
        var result = Case()
        result.now = today * 86_400 + Int64.random(in: 0..<86_400, using: &rng)
        let venues = (0..<4).map { _ in randomBytes(32, &rng) }
        // Windows in the last 20 days: some before the 14-day deadline, some across it.
        func window(_ rng: inout SeededGenerator) -> (day: Int64, start: UInt32, period: UInt16) {
            let day = today - Int64.random(in: 0...20, using: &rng)
            let startInDay = UInt32.random(in: 0..<144, using: &rng)
            let period = UInt16.random(in: 1...UInt16(144 - startInDay), using: &rng)
            return (day, UInt32(day) * 144 + startInDay, period)
        }
        func published(end: Int64, _ rng: inout SeededGenerator) -> Int64 {
            end + Int64.random(in: 0...(3 * 86_400), using: &rng)
        }
        for _ in 0..<40 {
            let venue = venues.randomElement(using: &rng)!
            let (day, start, period) = window(&rng)
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            let report = PresenceReport(
                startIntervalNumber: start, period: period,
                transmissionRiskLevel: UInt8.random(in: 1...8, using: &rng))
            let record = try CKPR.seal(report, keys: keys, iv: randomBytes(16, &rng))
            let publishedAt = published(end: (Int64(start) + Int64(period)) * 600, &rng)
            result.ckpr.append((record, publishedAt))
            // The same record published again; a decoy under the same tag; a random record.
            if Bool.random(using: &rng) { result.ckpr.append((record, publishedAt + 86_400)) }
            let tag = try CKPR.tag(day: UInt32(day), keys: keys)
            result.ckpr.append((tag + randomBytes(CKPR.recordLength - CKPR.tagLength, &rng), publishedAt))
            result.ckpr.append((randomBytes(CKPR.recordLength, &rng), publishedAt))
        }
        for _ in 0..<40 {
            let venue = Int.random(in: 0...4, using: &rng)
            let hash = venue < 4 ? try crypto.sha256(venues[venue]) : randomBytes(32, &rng)
            let (_, start, _) = window(&rng)
            // Periods and levels outside the valid ranges too (such warnings never match).
            let period = UInt32.random(in: 0...40, using: &rng)
            let level = UInt32.random(in: 0...9, using: &rng)
            let warning = CWATraceWarning(
                locationIdHash: hash, startIntervalNumber: start, period: period, transmissionRiskLevel: level)
            let publishedAt = published(end: (Int64(start) + Int64(period)) * 600, &rng)
            result.warnings.append((warning, publishedAt))
            if Bool.random(using: &rng) { result.warnings.append((warning, publishedAt)) }
        }
        for _ in 0..<20 {
            let venue = venues.randomElement(using: &rng)!
            let (_, start, period) = window(&rng)
            let record = CWAProtectedReport.Record(
                startIntervalNumber: start, period: UInt32(period),
                transmissionRiskLevel: UInt32.random(in: 1...8, using: &rng))
            let report = try CWAProtectedReport.seal(
                record, locationId: venue, iv: randomBytes(16, &rng), crypto: crypto)
            result.reports.append((report, published(end: (Int64(start) + Int64(period)) * 600, &rng)))
        }
        for index in 0..<30 {
            let venue = index == 0 ? randomBytes(32, &rng) : venues.randomElement(using: &rng)!
            let start =
                (today - Int64.random(in: 0...18, using: &rng)) * 86_400
                + Int64.random(in: 0..<86_400, using: &rng)
            let end = start + Int64.random(in: -600...(8 * 3600), using: &rng)
            // Now and then, the holder's own report from this stay.
            var own = Set<[UInt8]>()
            if Int.random(in: 0..<5, using: &rng) == 0 { own.insert(result.ckpr.randomElement(using: &rng)!.record) }
            if Int.random(in: 0..<5, using: &rng) == 0 {
                own.insert(result.reports.randomElement(using: &rng)!.report.mac)
            }
            result.stays.append(
                MatchableStay(id: "stay-\(index)", locationId: venue, start: start, end: end, ownReports: own))
        }
        return result
    }

    func regionIndex(_ testCase: Case, builtAt now: Int64) -> RegionWarningIndex {
        var builder = RegionWarningIndex.Builder()
        for (record, publishedAt) in testCase.ckpr { builder.add(ckprRecords: [record], publishedAt: publishedAt) }
        for (warning, publishedAt) in testCase.warnings {
            builder.add(cwaWarnings: [warning], reports: [], publishedAt: publishedAt)
        }
        for (report, publishedAt) in testCase.reports {
            builder.add(cwaWarnings: [], reports: [report], publishedAt: publishedAt)
        }
        return builder.build(now: now)
    }

    /// The answer of the kiosk's own structures, holding every record.
    func expected(_ testCase: Case, now: Int64) -> (ckpr: ExposureResult, all: ExposureResult) {
        var index = WarningIndex()
        let records = testCase.ckpr.map(\.record)
        index.add(records, keepingTags: Set(records.map { Array($0.prefix(CKPR.tagLength)) }))
        let cwa = CWAWarningSet(warnings: testCase.warnings.map(\.warning), reports: testCase.reports.map(\.report))
        let ckpr = WarningMatcher.match(stays: testCase.stays, index: index, now: now, crypto: crypto)
        let cwaResult = WarningMatcher.match(stays: testCase.stays, cwa: cwa, now: now, crypto: crypto)
        return (ckpr, WarningMatcher.combined([ckpr, cwaResult]))
    }

    /// `index` written as a new stored file (`rewriting`, with `added` merged in, at `now`): the index over it, and
    /// its bytes.
    static func rewritten(
        _ index: RegionWarningIndex, adding added: RegionWarningIndex.Builder = .init(), now: Int64
    ) throws -> (index: RegionWarningIndex, bytes: ContiguousArray<UInt8>) {
        var rewrite = index.rewriting(adding: added, now: now)
        var bytes = ContiguousArray<UInt8>()
        while let piece = try rewrite.next() { bytes += piece }
        return (try rewrite.index(over: RegionWarningBytes(bytes)), bytes)
    }

    /// The index a stored file's bytes hold, read as at a restart.
    static func opened(_ bytes: ContiguousArray<UInt8>) throws -> RegionWarningIndex {
        guard case .index(let index) = try RegionWarningIndex.stored(in: RegionWarningBytes(bytes)) else {
            throw RegionWarningReadError.malformed
        }
        return index
    }

    @Test(arguments: 0..<24) func matchesEqualTheKiosksOwnMatcher(seed: UInt64) throws {
        let testCase = try makeCase(seed: seed)
        let built = regionIndex(testCase, builtAt: testCase.now)
        let stored = try Self.opened(Self.rewritten(built, now: testCase.now).bytes)
        let expected = expected(testCase, now: testCase.now)
        for region in [built, stored] {
            #expect(
                try WarningMatcher.match(stays: testCase.stays, index: region, now: testCase.now, crypto: crypto)
                    == expected.ckpr)
            #expect(
                try WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto)
                    == expected.all)
        }
    }

    @Test func theCasesMatchRecordsOfEachKind() throws {
        // The property above is only worth something if the random cases match CKPR/1 and CWA records.
        var ckprMatches = 0
        var allMatches = 0
        for seed in UInt64(0)..<24 {
            let testCase = try makeCase(seed: seed)
            let region = regionIndex(testCase, builtAt: testCase.now)
            ckprMatches +=
                try WarningMatcher.match(stays: testCase.stays, index: region, now: testCase.now, crypto: crypto)
                .matches.count
            allMatches +=
                try WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto)
                .matches.count
        }
        #expect(ckprMatches > 0)
        #expect(allMatches > ckprMatches)
    }

    @Test func oldRecordsAreDroppedWhenBuiltAndRewritten() throws {
        let testCase = try makeCase(seed: 99)
        let region = regionIndex(testCase, builtAt: testCase.now)
        let everything = regionIndex(testCase, builtAt: 0)
        #expect(region.ckprRecordCount < everything.ckprRecordCount)
        #expect(region.cwaWarningCount < everything.cwaWarningCount)
        #expect(everything.holdsRecords(pastAgeAt: testCase.now) && !region.holdsRecords(pastAgeAt: testCase.now))
        #expect(
            try WarningMatcher.match(stays: testCase.stays, region: everything, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto))

        // Rewritten days later (a prune), the answer is the kiosk's matcher's at that time.
        for later in [Int64(3), 7, 30] {
            let now = testCase.now + later * 86_400
            let pruned = try Self.rewritten(everything, now: now).index
            #expect(pruned.ckprRecordCount <= region.ckprRecordCount)
            #expect(!pruned.holdsRecords(pastAgeAt: now))
            #expect(
                try WarningMatcher.match(stays: testCase.stays, region: pruned, now: now, crypto: crypto)
                    == expected(testCase, now: now).all)
        }
        let empty = try Self.rewritten(everything, now: testCase.now + 30 * 86_400).index
        #expect(empty.ckprRecordCount == 0 && empty.cwaWarningCount == 0 && empty.cwaReportCount == 0)
    }

    @Test func aPackageIsIndexedWithItsCreationTime() throws {
        let venue = [UInt8](repeating: 0x44, count: 32)
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let start = UInt32(today) * 144 + 60
        let record = try CKPR.seal(
            PresenceReport(startIntervalNumber: start, period: 6, transmissionRiskLevel: 7), keys: keys)
        let package = try WarningPackage(createdAt: UInt64(today * 86_400 + 43_200), records: [record])
        var builder = RegionWarningIndex.Builder(expectedCKPRRecords: 1)
        builder.add(package)
        let now = today * 86_400 + 50_000
        let region = builder.build(now: now)
        #expect(try region.records(tagged: try CKPR.tag(day: UInt32(today), keys: keys)) == [record])
        #expect(region.keyStorageBytes >= 8)
        let stay = MatchableStay(id: "s", locationId: venue, start: Int64(start) * 600, end: Int64(start) * 600 + 1800)
        let result = try WarningMatcher.match(stays: [stay], region: region, now: now, crypto: crypto)
        #expect(result.matches.map(\.overlapMinutes) == [30])
        // Fifteen days on, the package is past the maximum age.
        #expect(region.holdsRecords(pastAgeAt: now + 15 * 86_400))
        #expect(try Self.rewritten(region, now: now + 15 * 86_400).index.ckprRecordCount == 0)
    }
}

/// Adding packages one by one to an index (`rewriting(adding:…)`, what a kiosk does at each sync: the index's file and
/// the package merged into a new file) gives the index built from all of them at once; the stored file gives the same
/// index back, and bytes that are not a stored file give none.
@Suite struct RegionWarningIndexMergeTests {
    let crypto = OpenSSLCrypto()
    let cases = RegionWarningIndexTests()

    /// The case's records in `parts` builders, in their order.
    func parts(_ testCase: RegionWarningIndexTests.Case, _ parts: Int) -> [RegionWarningIndex.Builder] {
        var builders = [RegionWarningIndex.Builder](repeating: RegionWarningIndex.Builder(), count: parts)
        for (position, item) in testCase.ckpr.enumerated() {
            builders[position * parts / testCase.ckpr.count].add(
                ckprRecords: [item.record], publishedAt: item.publishedAt)
        }
        for (position, item) in testCase.warnings.enumerated() {
            builders[position * parts / testCase.warnings.count].add(
                cwaWarnings: [item.warning], reports: [], publishedAt: item.publishedAt)
        }
        for (position, item) in testCase.reports.enumerated() {
            builders[position * parts / testCase.reports.count].add(
                cwaWarnings: [], reports: [item.report], publishedAt: item.publishedAt)
        }
        return builders
    }

    /// The entries of a stored file (its bytes before the protected reports, whose order is a dictionary's).
    func entries(_ bytes: ContiguousArray<UInt8>, of index: RegionWarningIndex) -> ContiguousArray<UInt8> {
        ContiguousArray(bytes.prefix(5 + index.ckprRecordCount * 76 + index.cwaWarningCount * 25))
    }

    @Test(arguments: 0..<12) func packagesMergedOneByOneGiveTheIndexBuiltAtOnce(seed: UInt64) throws {
        let testCase = try cases.makeCase(seed: seed)
        let whole = try RegionWarningIndexTests.rewritten(
            cases.regionIndex(testCase, builtAt: testCase.now), now: testCase.now)
        var merged = (index: RegionWarningIndex(), bytes: ContiguousArray<UInt8>())
        for part in parts(testCase, 3) {
            merged = try RegionWarningIndexTests.rewritten(merged.index, adding: part, now: testCase.now)
        }
        #expect(merged.index.ckprRecordCount == whole.index.ckprRecordCount)
        #expect(merged.index.cwaWarningCount == whole.index.cwaWarningCount)
        #expect(merged.index.cwaReportCount == whole.index.cwaReportCount)
        #expect(entries(merged.bytes, of: merged.index) == entries(whole.bytes, of: whole.index))
        #expect(
            try WarningMatcher.match(stays: testCase.stays, region: merged.index, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: whole.index, now: testCase.now, crypto: crypto))
        // The same packages again add nothing.
        var again = merged
        for part in parts(testCase, 3) {
            again = try RegionWarningIndexTests.rewritten(again.index, adding: part, now: testCase.now)
        }
        #expect(entries(again.bytes, of: again.index) == entries(merged.bytes, of: merged.index))
        #expect(again.index.cwaReportCount == merged.index.cwaReportCount)
    }

    @Test func aRunLongerThanAPieceIsMergedWhole() throws {
        // 2,000 records under one tag (152,000 bytes: more than two pieces of the file read at a time), among 3,000
        // random ones, in three packages; some published again in another package, a day later: the same entries as
        // built at once.
        var rng = RegionWarningIndexTests.SeededGenerator(state: 7)
        let now = cases.today * 86_400
        let tag = cases.randomBytes(CKPR.tagLength, &rng)
        var packages = [[(record: [UInt8], publishedAt: Int64)]](repeating: [], count: 3)
        for index in 0..<5_000 {
            let record =
                (index % 5 < 2 ? tag : cases.randomBytes(CKPR.tagLength, &rng))
                + cases.randomBytes(CKPR.recordLength - CKPR.tagLength, &rng)
            let publishedAt = now - Int64(index % 3) * 86_400
            packages[index % 3].append((record, publishedAt))
            if index % 7 == 0 { packages[(index + 1) % 3].append((record, publishedAt + 86_400)) }
        }
        var all = RegionWarningIndex.Builder()
        var merged = (index: RegionWarningIndex(), bytes: ContiguousArray<UInt8>())
        for package in packages {
            var added = RegionWarningIndex.Builder()
            for (record, publishedAt) in package {
                added.add(ckprRecords: [record], publishedAt: publishedAt)
                all.add(ckprRecords: [record], publishedAt: publishedAt)
            }
            merged = try RegionWarningIndexTests.rewritten(merged.index, adding: added, now: now)
        }
        let whole = try RegionWarningIndexTests.rewritten(all.build(now: now), now: now)
        #expect(merged.index.ckprRecordCount == 5_000)
        #expect(try merged.index.records(tagged: tag).count == 2_000)
        #expect(merged.bytes == whole.bytes)
    }

    @Test(arguments: 0..<6) func theStoredFileGivesTheIndexBack(seed: UInt64) throws {
        let testCase = try cases.makeCase(seed: seed)
        let index = cases.regionIndex(testCase, builtAt: testCase.now)
        let stored = try RegionWarningIndexTests.rewritten(index, now: testCase.now).bytes
        #expect(Array(stored.prefix(5)) == Array("KRWI".utf8) + [2])
        let restored = try RegionWarningIndexTests.opened(stored)
        #expect(restored.ckprRecordCount == index.ckprRecordCount)
        #expect(restored.cwaWarningCount == index.cwaWarningCount)
        #expect(restored.cwaReportCount == index.cwaReportCount)
        #expect(
            try WarningMatcher.match(stays: testCase.stays, region: restored, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: index, now: testCase.now, crypto: crypto))
        // Cut short, lengthened, of another version, or with its first entry out of order: not a stored index.
        var disordered = stored
        disordered.replaceSubrange(5..<(5 + CKPR.tagLength), with: repeatElement(0xFF, count: CKPR.tagLength))
        let damaged: [ContiguousArray<UInt8>] = [
            ContiguousArray(stored.dropLast()), stored + [0],
            ContiguousArray(stored.prefix(4)) + [3] + stored.dropFirst(5),
            disordered,
        ]
        for bytes in damaged {
            #expect(throws: RegionWarningReadError.malformed) {
                try RegionWarningIndex.stored(in: RegionWarningBytes(bytes))
            }
        }
    }
}
