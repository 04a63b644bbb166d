import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// PR-4: nothing that leaves the kiosk — the CKPB/1 batch (paper, stick, upload) and CWA's `SubmissionPayload`
/// beside it (stick, upload) — tells how many of its reports are real, to anyone without the venues' codes.
@Suite struct RealReportCountTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_764_000_000

    /// What an observer without the venues' codes sees of one delivery: the record counts, and how the records
    /// group by their clear labels (CKPR/1 day tags; CWA venue hashes), as sorted group sizes.
    struct View: Hashable {
        let batchRecords: Int
        let tagGroups: [Int]
        let cwaReports: Int
        let hashGroups: [Int]
    }

    static func groups<Label: Hashable>(_ labels: [Label]) -> [Int] {
        Dictionary(labels.map { ($0, 1) }, uniquingKeysWith: +).values.sorted(by: >)
    }

    /// A visitor's stays: `count` stays over one to three venues and one to four days, each 20–90 minutes, none
    /// crossing midnight UTC (so each stay is one report).
    func stays(count: Int, random: inout SplitMix64) -> [ReportableStay] {
        let venues = (0..<Int(random.next() % 3 + 1)).map { [UInt8](repeating: UInt8(0x30 + $0), count: 32) }
        let days = Int64(random.next() % 4 + 1)
        let today = now / 86_400 * 86_400
        return (0..<count).map { index in
            let day = today - Int64(random.next() % UInt64(days)) * 86_400 - 86_400
            let start = day + 8 * 3600 + Int64(random.next() % 600) * 60
            return ReportableStay(
                id: "\(index)", venueName: "Venue", locationId: venues[Int(random.next() % UInt64(venues.count))],
                start: start, end: start + 1200 + Int64(random.next() % 4200))
        }
    }

    func view(of preview: Preview) throws -> (all: View, realOnly: View) {
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let cwa = try CWAProtectedReport.reports(
            inSubmissionPayload: try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto))
        // Which are real is known here only because the test holds the venues' codes.
        var realRecords = [[UInt8]]()
        var realCWA = [CWAProtectedReport]()
        for venue in Set(preview.sealingPlan.map(\.locationId)) {
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            realRecords += batch.records.filter { record in
                preview.sealingPlan.contains { plan in
                    plan.locationId == venue && (try? CKPR.open(record, day: plan.report.day, keys: keys)) != nil
                }
            }
            realCWA += cwa.filter { (try? $0.open(locationId: venue, crypto: crypto)) != nil }
        }
        #expect(realRecords.count == preview.reportCount)
        #expect(realCWA.count == preview.reportCount)
        let all = View(
            batchRecords: batch.records.count, tagGroups: Self.groups(batch.records.map { Array($0.prefix(16)) }),
            cwaReports: cwa.count, hashGroups: Self.groups(cwa.map(\.locationIdHash)))
        let realOnly = View(
            batchRecords: realRecords.count, tagGroups: Self.groups(realRecords.map { Array($0.prefix(16)) }),
            cwaReports: realCWA.count, hashGroups: Self.groups(realCWA.map(\.locationIdHash)))
        return (all, realOnly)
    }

    /// Trains the best distinguisher there is for a finite view — the most frequent count seen with each view — on
    /// one half of the trials and scores it on the other half.
    static func accuracy(_ trials: [(view: View, real: Int)]) -> Double {
        let half = trials.count / 2
        var seen = [View: [Int: Int]]()
        for trial in trials[..<half] { seen[trial.view, default: [:]][trial.real, default: 0] += 1 }
        var right = 0
        for trial in trials[half...] {
            let guess = seen[trial.view]?.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
            if guess == trial.real { right += 1 }
        }
        return Double(right) / Double(trials.count - half)
    }

    @Test func theCountOfRealReportsCannotBeToldFromTheBatchOrTheCWAPayload() throws {
        var random = SplitMix64(seed: 0x5052_2D34)
        var trials = [(view: View, real: Int)]()
        var realOnlyTrials = [(view: View, real: Int)]()
        for _ in 0..<40 {
            for real in 1...6 {
                let preview = try ConsentWalkthrough.consentedPreview(
                    stays: stays(count: real, random: &random), now: now, output: .export)
                #expect(preview.reportCount == real)
                let (all, realOnly) = try view(of: preview)
                trials.append((all, real))
                realOnlyTrials.append((realOnly, real))
            }
        }
        trials.shuffle(using: &random)
        realOnlyTrials.shuffle(using: &random)
        // Every delivery of 1 to 6 real reports looks the same: the same counts and the same groups.
        #expect(Set(trials.map(\.view)).count == 1, "\(Set(trials.map(\.view)))")
        // So the best distinguisher does no better than guessing (1 in 6, with the noise of 120 scored trials)…
        #expect(Self.accuracy(trials) < 1.0 / 6 + 0.1)
        // …while the same distinguisher, shown the real reports alone, tells the count most of the time (views it
        // never saw in training count as wrong).
        #expect(Self.accuracy(realOnlyTrials) > 0.5)
    }

    @Test func everyBucketHasOnePatternThatEveryWayOfFallingFits() {
        #expect(ReportBatch.classSizes(forReal: 1) == [7, 3, 2, 1, 1, 1, 1])
        #expect(ReportBatch.paddedCount(forReal: 0) == 16)
        #expect(ReportBatch.paddedCount(forReal: 7) == 16)
        #expect(ReportBatch.paddedCount(forReal: 8) == 48)
        #expect(ReportBatch.paddedCount(forReal: 23) == 80)
        // Each count in a bucket, spread over groups in every way (partitions of the count), fits the pattern.
        func partitions(_ n: Int, max: Int) -> [[Int]] {
            if n == 0 { return [[]] }
            return (1...min(n, max)).reversed().flatMap { first in
                partitions(n - first, max: first).map { [first] + $0 }
            }
        }
        for real in 1...15 {
            let sizes = ReportBatch.classSizes(forReal: real)
            #expect(sizes.reduce(0, +) % 8 == 0 && sizes.reduce(0, +) > real)
            for partition in partitions(real, max: real) {
                let labels = partition.enumerated().flatMap { label, size in Array(repeating: label, count: size) }
                let plan = ReportBatch.decoyPlan(realLabels: labels)
                #expect(plan.sharing.allSatisfy { $0.decoys >= 0 })
                let groups = (plan.sharing.map { $0.decoys + partition[$0.label] } + plan.fresh).sorted(by: >)
                #expect(groups == sizes, "\(partition)")
            }
        }
    }

    @Test func decoysThatShareAVenuesTagOrHashNeverWarn() throws {
        let venue = [UInt8](repeating: 0x44, count: 32)
        let start = (now / 86_400 - 1) * 86_400 + 10 * 3600
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [ReportableStay(id: "1", venueName: "V", locationId: venue, start: start, end: start + 3600)],
            now: now, output: .export)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let tag = try CKPR.tag(day: UInt32(start / 86_400), keys: keys)
        // The real report's tag is carried by 7 records: 1 real and 6 decoys.
        #expect(batch.records.filter { Array($0.prefix(16)) == tag }.count == 7)
        var index = WarningIndex()
        #expect(index.add(batch.records, keepingTags: [tag]) == 7)
        let stay = MatchableStay(id: "s", locationId: venue, start: start, end: start + 3600)
        #expect(WarningMatcher.match(stays: [stay], index: index, now: now, crypto: crypto).matches.count == 1)

        let cwa = try CWAProtectedReport.reports(
            inSubmissionPayload: try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto))
        #expect(cwa.filter { $0.locationIdHash == (try? crypto.sha256(venue)) }.count == 7)
        let set = CWAWarningSet(warnings: [], reports: cwa)
        #expect(WarningMatcher.match(stays: [stay], cwa: set, now: now, crypto: crypto).matches.count == 1)
    }
}
