import Foundation
import KioskCore
import KioskOpenSSL
import Testing

@testable import KioskExchange

#if canImport(Glibc)
    import Glibc
#endif

/// The region's records kept in `region-warnings.bin`: packages merged into the file (early, once enough wait) give
/// the index built from all of them at once; a restart reads the index back from the file; a file cut short fails
/// the lookups that need it; a file of version 1 is converted once; records an early merge could not write fail the
/// commit; what is past the retention at a restart is dropped from the file.
@Suite struct RegionWarningsFileTests {
    let crypto = OpenSSLCrypto()
    let day: Int64 = 20_400
    var now: Int64 { day * 86_400 + 14 * 3600 }
    let venues = (0..<3).map { [UInt8](repeating: UInt8(0x21 + $0), count: 32) }

    /// A CKPR/1 package's records (random ones, and one about each venue, 10:00–11:00 on `day`), as a client hands
    /// them over.
    func ckprPackage(_ seed: UInt8, day: Int64) throws -> ContiguousArray<UInt8> {
        var bytes = ContiguousArray<UInt8>()
        for (index, venue) in venues.enumerated() {
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            bytes += try CKPR.seal(
                PresenceReport(
                    startIntervalNumber: UInt32(day * 144 + 60), period: 6, transmissionRiskLevel: UInt8(5 + index)),
                keys: keys, iv: [UInt8](repeating: seed, count: 16))
        }
        bytes += try crypto.randomBytes(count: 20 * CKPR.recordLength)
        return bytes
    }

    /// A CWA hour warning about the first venue (10:30–11:00 on `day`), and random warnings.
    func cwaPackage(hour: Int64) throws -> CWATraceWarningPackage {
        var warnings = [
            CWATraceWarning(
                locationIdHash: try crypto.sha256(venues[0]), startIntervalNumber: UInt32(day * 144 + 63),
                period: 3, transmissionRiskLevel: 6)
        ]
        for _ in 0..<10 {
            warnings.append(
                CWATraceWarning(
                    locationIdHash: try crypto.randomBytes(count: 32), startIntervalNumber: UInt32(day * 144),
                    period: 6, transmissionRiskLevel: 4))
        }
        return CWATraceWarningPackage(hour: UInt32(hour), region: "DE", timeIntervalWarnings: warnings)
    }

    var stays: [MatchableStay] {
        venues.enumerated().map { index, venue in
            MatchableStay(
                id: "\(index)", locationId: venue, start: day * 86_400 + 10 * 3600, end: day * 86_400 + 11 * 3600)
        }
    }

    func match(_ region: RegionWarningIndex, at time: Int64? = nil) throws -> ExposureResult {
        try WarningMatcher.match(stays: stays, region: region, now: time ?? now, crypto: crypto)
    }

    func storedVersion(in directory: TemporaryDirectory) throws -> UInt8 {
        try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + RegionWarnings.fileName))[4]
    }

    /// A kiosk's region in `directory` holding a CKPR/1 package (and a CWA hour), committed.
    func committed(in directory: TemporaryDirectory, cwa: Bool = false) throws -> RegionWarnings {
        let now = self.now
        let region = RegionWarnings(stateDirectory: directory.path, now: { now })
        region.add(ckprRecords: try ckprPackage(1, day: day), publishedAt: now - 3600)
        if cwa { region.add(cwa: try cwaPackage(hour: now / 3600 - 1)) }
        try region.commit()
        return region
    }

    @Test func packagesMergedThroughTheFileComeBackAfterARestart() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let now = self.now
        let region = RegionWarnings(stateDirectory: directory.path, now: { now }, pendingLimit: 40)
        #expect(region.startedEmpty)
        var all = RegionWarningIndex.Builder()
        let first = try ckprPackage(1, day: day)
        region.add(ckprRecords: first, publishedAt: now - 3600)
        all.add(ckprRecordBytes: first, publishedAt: now - 3600)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/" + RegionWarnings.fileName))
        // A second package: 46 records wait, more than the limit: merged into the file before the commit.
        let second = try ckprPackage(2, day: day)
        region.add(ckprRecords: second, publishedAt: now - 1800)
        all.add(ckprRecordBytes: second, publishedAt: now - 1800)
        #expect(try storedVersion(in: directory) == 2)
        #expect(region.index.ckprRecordCount == 46)
        let hour = try cwaPackage(hour: now / 3600 - 1)
        region.add(cwa: hour)
        all.add(
            cwaWarnings: hour.timeIntervalWarnings, reports: hour.checkInProtectedReports,
            publishedAt: Int64(hour.hour) * 3600)
        try region.commit()

        let whole = all.build(now: now, parameters: RegionWarnings.retention)
        let merged = region.index
        #expect(merged.ckprRecordCount == whole.ckprRecordCount && merged.cwaWarningCount == whole.cwaWarningCount)
        let expected = try match(whole)
        #expect(try match(merged) == expected)
        #expect(Set(expected.matches.map(\.stayId)) == ["0", "1", "2"])
        #expect(expected.matches.count == 7, "two CKPR/1 records about each venue, a CWA warning about the first")
        // A record about the first venue published again, later: no second match.
        region.add(ckprRecords: ContiguousArray(first.prefix(CKPR.recordLength)), publishedAt: now)
        try region.commit()
        #expect(try match(region.index) == expected)

        // Restarted: the keys read back from the file, the same answers.
        let restarted = RegionWarnings(stateDirectory: directory.path, now: { now }, pendingLimit: 40)
        #expect(!restarted.startedEmpty)
        #expect(restarted.index.ckprRecordCount == merged.ckprRecordCount)
        #expect(restarted.index.keyStorageBytes >= (merged.ckprRecordCount + merged.cwaWarningCount) * 8)
        #expect(try match(restarted.index) == expected)
    }

    @Test func aFileCutShortFailsTheLookupsThatNeedIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let now = self.now
        let index = try committed(in: directory).index
        #expect(!(try match(index)).matches.isEmpty)

        // Cut short under the open descriptor: the lookups that need a record throw, none answers "nothing".
        let path = directory.path + "/" + RegionWarnings.fileName
        #expect(truncate(path, 5) == 0)
        #expect(throws: RegionWarningReadError.cutShort) { try match(index) }
        // Read back at a restart, it is no index.
        #expect(RegionWarnings(stateDirectory: directory.path, now: { now }).startedEmpty)
    }

    @Test func aFileOfVersion1IsConvertedOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let now = self.now
        // Version 1: every part counted before it, the CKPR/1 entries in the order they were added.
        let records = try ckprPackage(3, day: day)
        let hour = try cwaPackage(hour: now / 3600 - 1)
        var bytes = Array("KRWI".utf8) + [1]
        func append(_ value: Int, bytes count: Int) {
            for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        append(records.count / CKPR.recordLength, bytes: 4)
        for start in stride(from: 0, to: records.count, by: CKPR.recordLength) {
            bytes += records[start..<(start + CKPR.recordLength)]
            append(Int(day), bytes: 2)
        }
        append(hour.timeIntervalWarnings.count, bytes: 4)
        for warning in hour.timeIntervalWarnings {
            bytes += warning.locationIdHash.prefix(16)
            append(Int(warning.startIntervalNumber), bytes: 4)
            append(Int(warning.period), bytes: 4)
            append(Int(warning.transmissionRiskLevel), bytes: 1)
        }
        append(0, bytes: 4)
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path + "/" + RegionWarnings.fileName))

        var all = RegionWarningIndex.Builder()
        all.add(ckprRecordBytes: records, publishedAt: day * 86_400)
        all.add(cwaWarnings: hour.timeIntervalWarnings, reports: [], publishedAt: Int64(hour.hour) * 3600)
        let expected = try match(all.build(now: now, parameters: RegionWarnings.retention))
        #expect(!expected.matches.isEmpty)

        let converted = RegionWarnings(stateDirectory: directory.path, now: { now })
        #expect(!converted.startedEmpty)
        #expect(try storedVersion(in: directory) == 2)
        #expect(try match(converted.index) == expected)
        let restarted = RegionWarnings(stateDirectory: directory.path, now: { now })
        #expect(try match(restarted.index) == expected)
    }

    @Test func recordsAnEarlyMergeCouldNotWriteFailTheCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let now = self.now
        let region = RegionWarnings(stateDirectory: directory.path + "/state", now: { now }, pendingLimit: 10)
        // No state directory yet: the early merge cannot write.
        region.add(ckprRecords: try ckprPackage(1, day: day), publishedAt: now - 3600)
        try FileManager.default.createDirectory(atPath: directory.path + "/state", withIntermediateDirectories: true)
        #expect(throws: WarningsSyncError.storage) { try region.commit() }
        #expect(region.index.ckprRecordCount == 0)
        // The next package merges as any.
        region.add(ckprRecords: try ckprPackage(2, day: day), publishedAt: now - 3600)
        try region.commit()
        #expect(region.index.ckprRecordCount == 23)
    }

    @Test func aRestartDropsWhatIsPastTheRetentionFromTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let region = try committed(in: directory, cwa: true)
        #expect(region.index.ckprRecordCount == 23 && region.index.cwaWarningCount == 11)
        let size =
            try FileManager.default.attributesOfItem(
                atPath: directory.path + "/" + RegionWarnings.fileName)[.size] as? Int

        // Fifteen days on (the retention is 14), everything is past it: gone from memory and from the file.
        let later = now + 15 * 86_400
        let restarted = RegionWarnings(stateDirectory: directory.path, now: { later })
        #expect(!restarted.startedEmpty)
        #expect(restarted.index.ckprRecordCount == 0 && restarted.index.cwaWarningCount == 0)
        let pruned =
            try FileManager.default.attributesOfItem(
                atPath: directory.path + "/" + RegionWarnings.fileName)[.size] as? Int
        #expect(try #require(pruned) < (try #require(size)))
        #expect(try match(restarted.index, at: later).matches.isEmpty)
    }
}
