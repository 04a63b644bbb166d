import KioskCore
import KioskOpenSSL
import Testing

/// `Tests/Vectors/native/ckpr-v1.json`: the kiosk's own report formats (CKPR/1 records, CKPB/1 batches, Base45).
@Suite struct CKPRVectorTests {
    struct File: Decodable {
        struct KeyCase: Decodable { let name, locationIdHex, kEncHex, kMacHex, kTagHex: String }
        struct TagCase: Decodable {
            let locationIdHex: String
            let day: UInt32
            let tagHex: String
        }
        struct RecordCase: Decodable {
            let locationIdHex: String
            let day: UInt32
            let ivHex, plaintextHex: String
            let startIntervalNumber: UInt32
            let period: UInt16
            let transmissionRiskLevel, reportType, infectiousness: UInt8
            let recordHex: String
        }
        struct Rejection: Decodable {
            let name, locationIdHex: String
            let day: UInt32
            let recordHex: String
        }
        struct Batch: Decodable {
            let realRecords, count: Int
            let batchHex, text: String
        }
        struct Base45Case: Decodable { let hex, text: String }
        let keyDerivation: [KeyCase]
        let tags: [TagCase]
        let records: [RecordCase]
        let rejections: [Rejection]
        let batch: Batch
        let base45: [Base45Case]
    }

    static let file: File = try! Vectors.decode(File.self, from: "native/ckpr-v1.json")
    let crypto = OpenSSLCrypto()

    @Test func keyDerivation() throws {
        for vector in Self.file.keyDerivation {
            let keys = try CKPR.deriveKeys(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
            let exported = keys.exportedForTesting
            #expect(Hex.encode(exported.encryption) == vector.kEncHex, "\(vector.name)")
            #expect(Hex.encode(exported.mac) == vector.kMacHex, "\(vector.name)")
            #expect(Hex.encode(exported.tag) == vector.kTagHex, "\(vector.name)")
        }
    }

    @Test func dayTags() throws {
        for vector in Self.file.tags {
            let keys = try CKPR.deriveKeys(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
            #expect(Hex.encode(try CKPR.tag(day: vector.day, keys: keys)) == vector.tagHex)
        }
    }

    @Test func sealReproducesEveryRecordAndOpenReturnsItsContent() throws {
        #expect(Self.file.records.count >= 4)
        for vector in Self.file.records {
            let keys = try CKPR.deriveKeys(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
            let report = PresenceReport(
                startIntervalNumber: vector.startIntervalNumber, period: vector.period,
                transmissionRiskLevel: vector.transmissionRiskLevel,
                reportType: ReportType(rawValue: vector.reportType)!,
                infectiousness: Infectiousness(rawValue: vector.infectiousness)!)
            #expect(Hex.encode(report.plaintext) == vector.plaintextHex)
            let record = try CKPR.seal(report, keys: keys, iv: Hex.decode(vector.ivHex)!)
            #expect(Hex.encode(record) == vector.recordHex)
            #expect(try CKPR.open(Hex.decode(vector.recordHex)!, day: vector.day, keys: keys) == report)
        }
    }

    @Test func everyRejectionCaseIsRejected() throws {
        #expect(Self.file.rejections.count == 9)
        for vector in Self.file.rejections {
            let keys = try CKPR.deriveKeys(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
            #expect(throws: ProtectedReportError.self, "\(vector.name)") {
                try CKPR.open(Hex.decode(vector.recordHex)!, day: vector.day, keys: keys)
            }
        }
    }

    @Test func authenticButOutOfRangeContentIsRejectedAsContent() throws {
        let vector = try #require(Self.file.rejections.first { $0.name == "authentic-but-period-0" })
        let keys = try CKPR.deriveKeys(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
        #expect(throws: ProtectedReportError.invalidContent("period")) {
            try CKPR.open(Hex.decode(vector.recordHex)!, day: vector.day, keys: keys)
        }
    }

    /// The vector's batch text is exactly Base45 of its bytes, and its four real records lie in it; but its dummies
    /// are 32 bytes long, not the 74 that the format requires, so `count` (8) does not match the length: a strict
    /// reader must reject it (see `Tests/Vectors/native/NOTES.md`).
    @Test func vectorBatchTextMatchesItsBytesAndIsRejectedForItsShortDummies() throws {
        let vector = Self.file.batch
        let bytes = try #require(Hex.decode(vector.batchHex))
        #expect(vector.text.hasPrefix(ReportBatch.textPrefix))
        #expect(Base45.decode(String(vector.text.dropFirst(ReportBatch.textPrefix.count))) == bytes)
        #expect(Array(bytes.prefix(8)) == Array("CKPB".utf8) + [1, 0, 0, UInt8(vector.count)])
        for record in Self.file.records {
            let recordBytes = try #require(Hex.decode(record.recordHex))
            #expect(bytes.firstRange(of: recordBytes) != nil)
        }
        #expect(bytes.count != 8 + vector.count * CKPR.recordLength)
        #expect(throws: ReportBatchError.truncated) { try ReportBatch(bytes: bytes) }
        #expect(throws: ReportBatchError.truncated) { try ReportBatch(text: vector.text) }
    }

    /// A well-formed batch built from the vector's real records round-trips through bytes and text, and exactly the
    /// real records open under their venue's keys.
    @Test func batchOfVectorRecordsRoundTripsAndOnlyRealRecordsOpen() throws {
        let real = Self.file.records.map { Hex.decode($0.recordHex)! }
        let batch = try ReportBatch.assemble(real, crypto: crypto)
        #expect(batch.records.count == ReportBatch.paddedCount(forReal: real.count))
        #expect(try ReportBatch(bytes: batch.bytes) == batch)
        #expect(try ReportBatch(text: "  " + batch.text + "\r\n") == batch)
        var opened = 0
        for record in batch.records {
            for candidate in Self.file.records {
                let keys = try CKPR.deriveKeys(locationId: Hex.decode(candidate.locationIdHex)!, crypto: crypto)
                if (try? CKPR.open(record, day: candidate.day, keys: keys)) != nil {
                    opened += 1
                    break
                }
            }
        }
        #expect(opened == real.count)
    }

    @Test func base45() throws {
        for vector in Self.file.base45 {
            #expect(Base45.encode(Hex.decode(vector.hex)!) == vector.text)
            #expect(Base45.decode(vector.text) == Hex.decode(vector.hex)!)
        }
    }

    @Test(arguments: ["GGW", "A", "ZZZZ", "abc", ":::"])
    func base45RejectsInvalidText(_ text: String) {
        #expect(Base45.decode(text) == nil)
    }

    @Test func assembledBatchIsPaddedAndHidesNothing() throws {
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x11, count: 32), crypto: crypto)
        let reports = (0..<9).map {
            PresenceReport(startIntervalNumber: 2_691_414 + UInt32($0) * 144, period: 6, transmissionRiskLevel: 7)
        }
        let sealed = try reports.map { try CKPR.seal($0, keys: keys) }
        let batch = try ReportBatch.assemble(sealed, crypto: crypto)
        #expect(batch.records.count == 48)
        #expect(Set(sealed).isSubset(of: Set(batch.records)))
        // The bucket sizes and the decoys' layout are checked in RealReportCountTests.
        // That the order is a uniform permutation is measured in ShuffleStatisticsTests.
    }

    @Test(arguments: [
        [UInt8](), Array("CKPB".utf8), Array("CKPX".utf8) + [1, 0, 0, 0], Array("CKPB".utf8) + [2, 0, 0, 0],
        Array("CKPB".utf8) + [1, 1, 0, 0], Array("CKPB".utf8) + [1, 0, 0, 1] + [UInt8](repeating: 0, count: 73),
    ])
    func malformedBatchesAreRejected(_ bytes: [UInt8]) {
        #expect(throws: ReportBatchError.self) { try ReportBatch(bytes: bytes) }
    }
}
