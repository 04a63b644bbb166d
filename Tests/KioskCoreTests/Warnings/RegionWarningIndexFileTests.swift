import KioskCore
import KioskOpenSSL
import Synchronization
import Testing

/// A region's index reads its records from its file only when a lookup's compact key (the tag's first 8 bytes) is
/// among its keys, tells apart by the whole tag the records sharing it, and fails closed — it throws, never answering
/// "nothing" — when the file cannot be read; a file of version 1 is read whole and gives the same answers.
@Suite struct RegionWarningIndexFileTests {
    let crypto = OpenSSLCrypto()
    let cases = RegionWarningIndexTests()

    /// A stored file in memory that counts its reads, and can be cut short or made to fail once an index is over it.
    final class TestFile: RegionWarningFileReading {
        struct State {
            var reads = 0
            var cutAt: Int?
            var failing = false
        }

        let bytes: ContiguousArray<UInt8>
        let state = Mutex(State())

        init(_ bytes: ContiguousArray<UInt8>) { self.bytes = bytes }

        var size: Int { bytes.count }
        var reads: Int { state.withLock { $0.reads } }

        func read(at offset: Int, count: Int) throws(RegionWarningReadError) -> [UInt8] {
            let now = state.withLock { state in
                state.reads += 1
                return state
            }
            if now.failing { throw .failed(errno: 5) }
            guard offset + count <= (now.cutAt ?? bytes.count) else { throw .cutShort }
            return Array(bytes[offset..<(offset + count)])
        }
    }

    /// The index over `file`, as a restart opens it.
    func opened(_ file: TestFile) throws -> RegionWarningIndex {
        guard case .index(let index) = try RegionWarningIndex.stored(in: file) else {
            throw RegionWarningReadError.malformed
        }
        return index
    }

    @Test func aRecordSharingTheCompactKeyIsToldApartByItsWholeTag() throws {
        let venue = [UInt8](repeating: 0x5A, count: 32)
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let day = UInt32(cases.today)
        let tag = try CKPR.tag(day: day, keys: keys)
        let start = day * 144 + 60
        let real = try CKPR.seal(
            PresenceReport(startIntervalNumber: start, period: 6, transmissionRiskLevel: 7), keys: keys,
            iv: [UInt8](repeating: 1, count: 16))
        // The same first 8 bytes, another tag; then a record under another compact key.
        let otherTag = Array(tag.prefix(8)) + tag.suffix(8).map { $0 ^ 0xFF }
        let sharing = otherTag + [UInt8](repeating: 2, count: CKPR.recordLength - CKPR.tagLength)
        let elsewhere =
            tag.map { $0 ^ 0x80 } + [UInt8](repeating: 3, count: CKPR.recordLength - CKPR.tagLength)
        var builder = RegionWarningIndex.Builder()
        builder.add(ckprRecords: [sharing, elsewhere, real], publishedAt: Int64(day) * 86_400 + 43_200)
        let now = Int64(day) * 86_400 + 50_000
        let file = TestFile(try RegionWarningIndexTests.rewritten(builder.build(now: now), now: now).bytes)
        let region = try opened(file)
        #expect(region.ckprRecordCount == 3)

        let opening = file.reads
        #expect(try region.records(tagged: tag) == [real])
        #expect(file.reads == opening + 1, "one read for the two entries sharing the compact key")
        #expect(try region.records(tagged: otherTag) == [sharing])
        let unknown = tag.map { $0 ^ 0x01 }
        #expect(try region.records(tagged: unknown).isEmpty)
        #expect(file.reads == opening + 2, "no read for a compact key not kept")

        let stay = MatchableStay(
            id: "s", locationId: venue, start: Int64(start) * 600, end: Int64(start) * 600 + 1800)
        let result = try WarningMatcher.match(stays: [stay], region: region, now: now, crypto: crypto)
        #expect(result.matches.map(\.overlapMinutes) == [30])
    }

    @Test(arguments: [false, true]) func aLookupThatCannotReadItsRecordsFailsClosed(cut: Bool) throws {
        let testCase = try cases.makeCase(seed: 3)
        let built = cases.regionIndex(testCase, builtAt: testCase.now)
        let file = TestFile(try RegionWarningIndexTests.rewritten(built, now: testCase.now).bytes)
        let region = try opened(file)
        #expect(
            !(try WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto))
                .matches.isEmpty)

        // The file cut short after its header, or failing (gone from under a descriptor, an I/O error): every
        // lookup that needs a record throws, and so does matching; none answers as if nothing were there.
        file.state.withLock { state in
            if cut { state.cutAt = 5 } else { state.failing = true }
        }
        let failure: RegionWarningReadError = cut ? .cutShort : .failed(errno: 5)
        #expect(throws: failure) {
            try WarningMatcher.match(stays: testCase.stays, region: region, now: testCase.now, crypto: crypto)
        }
        let tag = try #require(testCase.ckpr.first).record.prefix(CKPR.tagLength)
        #expect(throws: failure) { try region.records(tagged: Array(tag)) }
        // The file read again at a restart is no index.
        #expect(throws: (any Error).self) { try opened(file) }
    }

    /// The case's records as a file of version 1 wrote them (in the order they were added: that version kept them
    /// in any order, and matching gives a key's records in the order they were added).
    func version1(_ testCase: RegionWarningIndexTests.Case) -> [UInt8] {
        var bytes = Array("KRWI".utf8) + [1]
        func append(_ value: Int, bytes count: Int) {
            for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        append(testCase.ckpr.count, bytes: 4)
        for (record, publishedAt) in testCase.ckpr {
            bytes += record
            append(Int(publishedAt / 86_400), bytes: 2)
        }
        let valid = testCase.warnings.filter(\.warning.isValidWarning)
        append(valid.count, bytes: 4)
        for (warning, _) in valid {
            bytes += warning.locationIdHash.prefix(16)
            append(Int(warning.startIntervalNumber), bytes: 4)
            append(Int(warning.period), bytes: 4)
            append(Int(warning.transmissionRiskLevel), bytes: 1)
        }
        append(testCase.reports.count, bytes: 4)
        for (report, publishedAt) in testCase.reports {
            append(Int(publishedAt / 86_400), bytes: 4)
            append(report.serialized.count, bytes: 2)
            bytes += report.serialized
        }
        return bytes
    }

    @Test(arguments: 0..<4) func aFileOfVersion1GivesTheSameAnswers(seed: UInt64) throws {
        let testCase = try cases.makeCase(seed: seed)
        let bytes = ContiguousArray(version1(testCase))
        guard case .version1(let builder) = try RegionWarningIndex.stored(in: RegionWarningBytes(bytes)) else {
            Issue.record("not read as version 1")
            return
        }
        let converted = try RegionWarningIndexTests.rewritten(builder.build(now: testCase.now), now: testCase.now)
        let expected = cases.regionIndex(testCase, builtAt: testCase.now)
        #expect(converted.index.ckprRecordCount == expected.ckprRecordCount)
        #expect(converted.index.cwaWarningCount == expected.cwaWarningCount)
        #expect(converted.index.cwaReportCount == expected.cwaReportCount)
        #expect(
            try WarningMatcher.match(stays: testCase.stays, region: converted.index, now: testCase.now, crypto: crypto)
                == WarningMatcher.match(stays: testCase.stays, region: expected, now: testCase.now, crypto: crypto))
        // Cut short or lengthened: not a file of version 1.
        for damaged in [ContiguousArray(bytes.dropLast()), bytes + [0]] {
            #expect(throws: RegionWarningReadError.malformed) {
                try RegionWarningIndex.stored(in: RegionWarningBytes(damaged))
            }
        }
    }
}
