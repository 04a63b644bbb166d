import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// The streaming readers (`WarningPackageReader`, `CWATraceWarningPackageReader`) give exactly what the whole-buffer
/// parsers give, kept records and refusals alike, however the bytes are cut into pieces.
@Suite struct StreamingPackageReaderTests {
    let crypto = OpenSSLCrypto()
    /// Piece sizes: byte by byte, around a record's length, a typical read.
    static let pieceSizes = [1, 7, 73, 74, 75, 1000, 64 * 1024]

    /// The CKPR/1 records of the committed vectors (`Tests/Vectors/native/ckpr-v1.json`) and their days.
    struct CKPRFile: Decodable {
        struct RecordCase: Decodable {
            let locationIdHex: String
            let day: UInt32
            let recordHex: String
        }
        let records: [RecordCase]
    }

    static func feed<Reader>(
        _ bytes: [UInt8], in pieces: Int, to reader: inout Reader,
        _ consume: (inout Reader, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + pieces)
                try consume(&reader, UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                offset = end
            }
        }
    }

    /// The whole-buffer parse, filtered as the kiosk keeps records, or its error.
    func wholeCKPW(_ bytes: [UInt8], tags: Set<[UInt8]>) -> Result<[[UInt8]], WarningPackageError> {
        do {
            let package = try WarningPackage(unverifiedBytes: bytes)
            var seen = Set<[UInt8]>()
            return .success(package.records.filter { tags.contains(Array($0.prefix(16))) && seen.insert($0).inserted })
        } catch {
            return .failure(error)
        }
    }

    func streamedCKPW(_ bytes: [UInt8], tags: Set<[UInt8]>, pieces: Int) -> Result<[[UInt8]], WarningPackageError> {
        var reader = WarningPackageReader(keepingTags: tags)
        do {
            try Self.feed(bytes, in: pieces, to: &reader) { reader, piece in try reader.consume(piece) }
            let result = try reader.finish()
            return .success(result.kept)
        } catch let error as WarningPackageError {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .failure(.malformed)
        }
    }

    @Test func ckpwStreamedEqualsWholeOnTheVectorRecords() throws {
        let file = try Vectors.decode(CKPRFile.self, from: "native/ckpr-v1.json")
        let vectorRecords = file.records.compactMap { Hex.decode($0.recordHex) }
        try #require(vectorRecords.count >= 2)
        let noise = try (0..<300).map { _ in try crypto.randomBytes(count: CKPR.recordLength) }
        // The vectors among noise, one of them twice (kept once).
        var records = noise
        for (index, record) in vectorRecords.enumerated() { records.insert(record, at: (index * 97) % records.count) }
        records.append(vectorRecords[0])
        let bytes = try WarningPackage(createdAt: 1_700_000_000, records: records).bytes
        let tags = Set(vectorRecords.map { Array($0.prefix(16)) } + [Array(noise[5].prefix(16))])
        let whole = wholeCKPW(bytes, tags: tags)
        #expect(try whole.get().count == Set(vectorRecords).count + 1)
        for pieces in Self.pieceSizes {
            #expect(streamedCKPW(bytes, tags: tags, pieces: pieces) == whole, "pieces of \(pieces)")
        }
        var reader = WarningPackageReader(keepingTags: tags)
        try Self.feed(bytes, in: 4096, to: &reader) { reader, piece in try reader.consume(piece) }
        let result = try reader.finish()
        #expect(result.createdAt == 1_700_000_000)
        #expect(result.recordCount == records.count)
        // No tags: nothing kept, the package still read to its end.
        #expect(streamedCKPW(bytes, tags: [], pieces: 4096) == .success([]))
    }

    @Test func ckpwStreamedRefusesWhatWholeRefuses() throws {
        let records = try (0..<3).map { _ in try crypto.randomBytes(count: CKPR.recordLength) }
        let good = try WarningPackage(createdAt: 42, records: records).bytes
        let tags = Set(records.map { Array($0.prefix(16)) })
        var cases: [[UInt8]] = []
        // Every truncation, the empty file included.
        for length in 0..<good.count { cases.append(Array(good.prefix(length))) }
        cases.append(good + [0])  // a byte too many
        cases.append(good + records[0])  // a record more than announced
        var badMagic = good
        badMagic[0] = UInt8(ascii: "X")
        var badVersion = good
        badVersion[4] = 2
        var badReserved = good
        badReserved[5] = 1
        var fewer = good
        fewer[9] = 2  // announces 2 of 3
        cases += [badMagic, badVersion, badReserved, fewer, Array("CK".utf8), Array("XY".utf8)]
        for bytes in cases {
            let whole = wholeCKPW(bytes, tags: tags)
            for pieces in [1, 5, 74, 4096] {
                #expect(streamedCKPW(bytes, tags: tags, pieces: pieces) == whole, "\(bytes.count) bytes by \(pieces)")
            }
        }
    }

    // MARK: - CWA

    struct ReportFile: Decodable {
        struct ReportCase: Decodable { let checkInProtectedReportProtobufBase64: String }
        let protectedReportCases: [ReportCase]
    }

    func wholeCWA(_ export: [UInt8], hashes: Set<[UInt8]>) -> Result<CWATraceWarningPackage, CWAPackageError> {
        do {
            return .success(try CWATraceWarningPackage(unverifiedExport: export).keeping(locationIdHashes: hashes))
        } catch {
            return .failure(error)
        }
    }

    func streamedCWA(_ export: [UInt8], hashes: Set<[UInt8]>, pieces: Int) -> Result<
        CWATraceWarningPackage, CWAPackageError
    > {
        var reader = CWATraceWarningPackageReader(keepingLocationIdHashes: hashes)
        do {
            try Self.feed(export, in: pieces, to: &reader) { reader, piece in try reader.consume(piece) }
            return .success(try reader.finish())
        } catch let error as CWAPackageError {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .failure(.malformed)
        }
    }

    /// A package of the CWA protected-report vectors (`Tests/Vectors/cwa/transcribed/checkin-cryptography.json`)
    /// among random records and health-authority warnings.
    func cwaPackage() throws -> (CWATraceWarningPackage, Set<[UInt8]>) {
        let file = try Vectors.decode(ReportFile.self, from: "cwa/transcribed/checkin-cryptography.json")
        let vectors = try file.protectedReportCases.map {
            try CWAProtectedReport(serialized: [UInt8](Data(base64Encoded: $0.checkInProtectedReportProtobufBase64)!))
        }
        var reports = try (0..<50).map { _ in
            CWAProtectedReport(
                locationIdHash: try crypto.randomBytes(count: 32), iv: try crypto.randomBytes(count: 16),
                encryptedCheckInRecord: try crypto.randomBytes(count: 16), mac: try crypto.randomBytes(count: 32))
        }
        for (index, vector) in vectors.enumerated() { reports.insert(vector, at: index * 11) }
        var warnings = [CWATraceWarning]()
        for index in 0..<40 {
            let hash: [UInt8] = index % 10 == 0 ? vectors[0].locationIdHash : try crypto.randomBytes(count: 32)
            let level = UInt32(index % 8 + 1)
            warnings.append(
                CWATraceWarning(
                    locationIdHash: hash, startIntervalNumber: UInt32(2_700_000 + index), period: 6,
                    transmissionRiskLevel: level))
        }
        let package = CWATraceWarningPackage(
            hour: 450_000, region: "DE", timeIntervalWarnings: warnings, checkInProtectedReports: reports)
        return (package, Set(vectors.map(\.locationIdHash)))
    }

    @Test func cwaStreamedEqualsWholeOnTheVectorReports() throws {
        let (package, hashes) = try cwaPackage()
        let export = package.export
        let whole = wholeCWA(export, hashes: hashes)
        let kept = try whole.get()
        #expect(kept.checkInProtectedReports.count >= 4 && kept.timeIntervalWarnings.count == 4)
        #expect(kept.hour == 450_000 && kept.region == "DE")
        for pieces in Self.pieceSizes {
            #expect(streamedCWA(export, hashes: hashes, pieces: pieces) == whole, "pieces of \(pieces)")
        }
        #expect(
            streamedCWA(export, hashes: [], pieces: 4096)
                == .success(CWATraceWarningPackage(hour: 450_000, region: "DE")))
    }

    @Test func cwaStreamedRefusesWhatWholeRefuses() throws {
        let (package, hashes) = try cwaPackage()
        let small = CWATraceWarningPackage(
            hour: 7, region: "DE", timeIntervalWarnings: Array(package.timeIntervalWarnings.prefix(2)),
            checkInProtectedReports: Array(package.checkInProtectedReports.prefix(2)))
        let export = small.export
        var cases: [[UInt8]] = []
        for length in 0..<export.count { cases.append(Array(export.prefix(length))) }
        cases.append(Array("EK Export v1    ".utf8) + [0x08, 0x01])  // an exposure key export
        cases.append(export + [0x2A, 0x01, 0x00])  // an unknown field (5)
        cases.append(export + [0x08])  // a field cut short
        cases.append(export + [0x0A, 0x01, 0x00])  // field 1 as bytes
        cases.append(export + [0x12, 0x02, 0xC3, 0x28])  // a region that is not UTF-8
        cases.append(export + [0x1A, 0x03, 0xFF, 0xFF, 0xFF])  // a warning that is not protobuf
        cases.append(export + [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01])  // a varint of eleven bytes
        for bytes in cases {
            let whole = wholeCWA(bytes, hashes: hashes)
            for pieces in [1, 3, 4096] {
                #expect(
                    streamedCWA(bytes, hashes: hashes, pieces: pieces) == whole, "\(bytes.count) bytes by \(pieces)")
            }
        }
    }
}
