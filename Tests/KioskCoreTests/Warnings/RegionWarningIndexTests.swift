import KioskCore
import KioskOpenSSL
import Testing

/// A region's index gives, for random records and stays, exactly the matches the kiosk's own `WarningIndex` and
/// `CWAWarningSet` give for the same records; records past the maximum age are dropped without changing an answer.
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

    @Test(arguments: 0..<24) func matchesEqualTheKiosksOwnMatcher(seed: UInt64) throws {
        let testCase = try makeCase(seed: seed)
        let region = regionIndex(testCase, builtAt: testCase.now)
        let expected = expected(testCase, now: testCase.now)
        #expect(
            WarningMatcher.match(stays: testCase.stays, index: region, now: testCase.now, crypto: crypto)
                == expected.ckpr)
        #expect(
            WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto)
                == expected.all)
    }

    @Test func theCasesMatchRecordsOfEachKind() throws {
        // The property above is only worth something if the random cases match CKPR/1 and CWA records.
        var ckprMatches = 0
        var allMatches = 0
        for seed in UInt64(0)..<24 {
            let testCase = try makeCase(seed: seed)
            let region = regionIndex(testCase, builtAt: testCase.now)
            ckprMatches +=
                WarningMatcher.match(stays: testCase.stays, index: region, now: testCase.now, crypto: crypto)
                .matches.count
            allMatches +=
                WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto)
                .matches.count
        }
        #expect(ckprMatches > 0)
        #expect(allMatches > ckprMatches)
    }

    @Test func oldRecordsAreDroppedWhenBuiltAndPruned() throws {
        let testCase = try makeCase(seed: 99)
        let region = regionIndex(testCase, builtAt: testCase.now)
        let everything = regionIndex(testCase, builtAt: 0)
        #expect(region.ckprRecordCount < everything.ckprRecordCount)
        #expect(region.cwaWarningCount < everything.cwaWarningCount)
        #expect(
            WarningMatcher.match(stays: testCase.stays, region: everything, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto))

        // Pruning days later keeps the answer of the kiosk's matcher at that time.
        for later in [Int64(3), 7, 30] {
            let now = testCase.now + later * 86_400
            var pruned = everything
            pruned.prune(now: now)
            #expect(pruned.ckprRecordCount <= region.ckprRecordCount)
            #expect(
                WarningMatcher.match(stays: testCase.stays, region: pruned, now: now, crypto: crypto)
                    == expected(testCase, now: now).all)
        }
        var empty = everything
        empty.prune(now: testCase.now + 30 * 86_400)
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
        #expect(region.records(tagged: try CKPR.tag(day: UInt32(today), keys: keys)) == [record])
        #expect(region.entryStorageBytes >= 76)
        let stay = MatchableStay(id: "s", locationId: venue, start: Int64(start) * 600, end: Int64(start) * 600 + 1800)
        let result = WarningMatcher.match(stays: [stay], region: region, now: now, crypto: crypto)
        #expect(result.matches.map(\.overlapMinutes) == [30])
        // Fifteen days on, the package is past the maximum age.
        var pruned = region
        pruned.prune(now: now + 15 * 86_400)
        #expect(pruned.ckprRecordCount == 0)
    }
}

/// Adding packages one by one to a built index (`merging`, what a kiosk does at each sync) gives the index built from
/// all of them at once; the stored bytes give the same index back, and bytes that are not a stored index give none.
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

    @Test(arguments: 0..<12) func packagesMergedOneByOneGiveTheIndexBuiltAtOnce(seed: UInt64) throws {
        let testCase = try cases.makeCase(seed: seed)
        let whole = cases.regionIndex(testCase, builtAt: testCase.now)
        var merged = RegionWarningIndex()
        for part in parts(testCase, 3) { merged = merged.merging(part, now: testCase.now) }
        #expect(merged.ckprRecordCount == whole.ckprRecordCount)
        #expect(merged.cwaWarningCount == whole.cwaWarningCount)
        #expect(merged.cwaReportCount == whole.cwaReportCount)
        #expect(
            WarningMatcher.match(stays: testCase.stays, region: merged, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: whole, now: testCase.now, crypto: crypto))
        // The same packages again add nothing.
        var again = merged
        for part in parts(testCase, 3) { again = again.merging(part, now: testCase.now) }
        #expect(again.ckprRecordCount == merged.ckprRecordCount && again.cwaWarningCount == merged.cwaWarningCount)
        #expect(again.cwaReportCount == merged.cwaReportCount)
    }

    @Test(arguments: 0..<6) func theStoredBytesGiveTheIndexBack(seed: UInt64) throws {
        let testCase = try cases.makeCase(seed: seed)
        let index = cases.regionIndex(testCase, builtAt: testCase.now)
        let stored = index.stored
        let builder = try #require(stored.withUnsafeBytes { RegionWarningIndex.Builder(stored: $0) })
        let restored = builder.build(now: testCase.now)
        #expect(restored.ckprRecordCount == index.ckprRecordCount)
        #expect(restored.cwaWarningCount == index.cwaWarningCount)
        #expect(restored.cwaReportCount == index.cwaReportCount)
        #expect(
            WarningMatcher.match(stays: testCase.stays, region: restored, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: index, now: testCase.now, crypto: crypto))
        // Cut short, lengthened, or of another version: not an index.
        for bytes in [Array(stored.dropLast()), stored + [0], [UInt8](stored.prefix(4)) + [2] + stored.dropFirst(5)] {
            #expect(bytes.withUnsafeBytes { RegionWarningIndex.Builder(stored: $0) } == nil)
        }
    }
}
