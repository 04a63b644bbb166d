import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// CWA trace warnings and protected reports: the package content is verified before it is read, and matching gives
/// the same overlap and risk as CKPR/1.
@Suite struct CWAWarningMatcherTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let otherVenue = [UInt8](repeating: 0x55, count: 32)
    let day: Int64 = 18_690  // 2021-03-04

    struct ReportCase: Decodable {
        struct Expected: Decodable { let startIntervalNumber, period, transmissionRiskLevel: UInt32 }
        let locationIdHex, checkInProtectedReportProtobufBase64: String
        let expDecryptedCheckInRecord: Expected
        let expIsValidWarning: Bool
    }

    struct File: Decodable { let protectedReportCases: [ReportCase] }

    func warning(_ locationId: [UInt8], start: Int64, period: UInt32, trl: UInt32 = 7) throws -> CWATraceWarning {
        CWATraceWarning(
            locationIdHash: try crypto.sha256(locationId), startIntervalNumber: UInt32(start / 600), period: period,
            transmissionRiskLevel: trl)
    }

    @Test func protectedReportVectorsMatchThroughTheMatcher() throws {
        let file = try Vectors.decode(File.self, from: "cwa/transcribed/checkin-cryptography.json")
        #expect(file.protectedReportCases.count == 4)
        for vector in file.protectedReportCases {
            let report = try CWAProtectedReport(
                serialized: [UInt8](Data(base64Encoded: vector.checkInProtectedReportProtobufBase64)!))
            let locationId = try #require(Hex.decode(vector.locationIdHex))
            let expected = vector.expDecryptedCheckInRecord
            let start = Int64(expected.startIntervalNumber) * 600
            // A stay covering the warned window and 20 minutes on either side; the report is filed by its hash.
            let stay = MatchableStay(
                id: "s", locationId: locationId, start: start - 1200, end: start + Int64(expected.period) * 600 + 1200)
            let set = CWAWarningSet(warnings: [], reports: [report])
            let result = WarningMatcher.match(stays: [stay], cwa: set, now: start + 86_400, crypto: crypto)
            if vector.expIsValidWarning {
                let match = try #require(result.matches.first)
                #expect(result.matches.count == 1)
                #expect(match.overlapMinutes == Int64(expected.period) * 10)
                #expect(UInt32(match.transmissionRiskLevel) == expected.transmissionRiskLevel)
                let value = PresenceTracingParameters.cwaProduction.transmissionRiskValue(
                    for: match.transmissionRiskLevel)
                #expect(match.normalizedTime == value * Double(match.overlapMinutes))
                // ≥ 10 normalized minutes is high risk (TRL 7: 42; TRL 8: 16).
                #expect(result.isHighRisk)
            } else {
                #expect(result.matches.isEmpty)
            }
            // The same report does not warn its own sender, nor anyone with the other vector's venue.
            let own = MatchableStay(
                id: "o", locationId: locationId, start: stay.start, end: stay.end, ownReports: [report.mac])
            #expect(WarningMatcher.match(stays: [own], cwa: set, now: start + 86_400, crypto: crypto).matches.isEmpty)
            let stranger = MatchableStay(id: "x", locationId: otherVenue, start: stay.start, end: stay.end)
            #expect(
                WarningMatcher.match(stays: [stranger], cwa: set, now: start + 86_400, crypto: crypto).matches.isEmpty)
        }
    }

    @Test func timeIntervalWarningGivesTheSameResultAsCKPR() throws {
        // 10:00–11:00 UTC, TRL 7, as a CWA health-authority warning and as a CKPR/1 record.
        let base = day * 86_400
        let cwa = CWAWarningSet(warnings: [try warning(venue, start: base + 10 * 3600, period: 6)], reports: [])
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        var index = WarningIndex()
        let record = try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
        index.add([record], keepingTags: [Array(record.prefix(CKPR.tagLength))])
        for (start, end) in [
            (10 * 3600 + 1800, 12 * 3600), (9 * 3600, 10 * 3600 + 300), (8 * 3600, 9 * 3600), (9 * 3600, 13 * 3600),
        ] {
            let stay = MatchableStay(id: "s", locationId: venue, start: base + Int64(start), end: base + Int64(end))
            let viaCWA = WarningMatcher.match(stays: [stay], cwa: cwa, now: base + 86_400, crypto: crypto)
            let viaCKPR = WarningMatcher.match(stays: [stay], index: index, now: base + 86_400, crypto: crypto)
            #expect(viaCWA == viaCKPR)
        }
        let half = MatchableStay(id: "s", locationId: venue, start: base + 10 * 3600 + 1800, end: base + 12 * 3600)
        let result = WarningMatcher.match(stays: [half], cwa: cwa, now: base + 86_400, crypto: crypto)
        #expect(result.matches.count == 1)
        #expect(ExposureMatchProbe(stayId: "s", day: day, minutes: 30, trl: 7, time: 42).match(in: result) != nil)
        #expect(result.riskLevelByDay == [day: 2])
        // Other venues, invalid warnings (period 0, TRL 0 or 9) and levels with no risk value (1, 2) do not warn.
        let invalid = CWAWarningSet(
            warnings: [
                try warning(otherVenue, start: base + 10 * 3600, period: 6),
                try warning(venue, start: base + 10 * 3600, period: 0),
                try warning(venue, start: base + 10 * 3600, period: 6, trl: 0),
                try warning(venue, start: base + 10 * 3600, period: 6, trl: 9),
                try warning(venue, start: base + 10 * 3600, period: 6, trl: 2),
            ], reports: [])
        #expect(WarningMatcher.match(stays: [half], cwa: invalid, now: base + 86_400, crypto: crypto).matches.isEmpty)
        // Too old: ignored.
        #expect(WarningMatcher.match(stays: [half], cwa: cwa, now: base + 20 * 86_400, crypto: crypto).matches.isEmpty)
    }

    @Test func aStayAcrossMidnightCountsPerDay() throws {
        let midnight = (day + 1) * 86_400
        // Warning 23:00–01:00, stay 23:30–00:40.
        let cwa = CWAWarningSet(warnings: [try warning(venue, start: midnight - 3600, period: 12, trl: 5)], reports: [])
        let stay = MatchableStay(id: "n", locationId: venue, start: midnight - 1800, end: midnight + 2400)
        let result = WarningMatcher.match(stays: [stay], cwa: cwa, now: midnight + 86_400, crypto: crypto)
        #expect(result.matches.map(\.day) == [day, day + 1])
        #expect(result.matches.map(\.overlapMinutes) == [30, 40])
    }

    @Test func tamperedReportDoesNotMatch() throws {
        let base = day * 86_400
        let record = CWAProtectedReport.Record(
            startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7)
        let report = try CWAProtectedReport.seal(
            record, locationId: venue, iv: try crypto.randomBytes(count: 16), crypto: crypto)
        var mac = report.mac
        mac[0] ^= 1
        let tampered = CWAProtectedReport(
            locationIdHash: report.locationIdHash, iv: report.iv,
            encryptedCheckInRecord: report.encryptedCheckInRecord, mac: mac)
        let stay = MatchableStay(id: "s", locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600)
        #expect(
            WarningMatcher.match(
                stays: [stay], cwa: CWAWarningSet(warnings: [], reports: [report]), now: base + 86_400, crypto: crypto
            )
            .matches.count == 1)
        #expect(
            WarningMatcher.match(
                stays: [stay], cwa: CWAWarningSet(warnings: [], reports: [tampered]), now: base + 86_400, crypto: crypto
            )
            .matches.isEmpty)
    }

    @Test func packageIsVerifiedBeforeItIsRead() throws {
        let base = day * 86_400
        let package = CWATraceWarningPackage(
            hour: UInt32(base / 3600), region: "DE",
            timeIntervalWarnings: [
                try warning(venue, start: base, period: 3), try warning(otherVenue, start: base, period: 3),
            ],
            checkInProtectedReports: [
                try CWAProtectedReport.seal(
                    .init(startIntervalNumber: 1, period: 2, transmissionRiskLevel: 3), locationId: venue,
                    iv: [UInt8](repeating: 1, count: 16), crypto: crypto)
            ])
        let export = package.export
        let signer = try ECDSAPrivateKey()
        let list = CWATraceWarningPackage.signatureList(signature: try signer.signature(for: export))
        #expect(
            try CWATraceWarningPackage.verified(export: export, signatureList: list, verifier: signer.publicKey())
                == package)
        #expect(throws: CWAPackageError.badSignature) {
            try CWATraceWarningPackage.verified(
                export: export, signatureList: list, verifier: ECDSAPrivateKey().publicKey())
        }
        #expect(throws: CWAPackageError.unsigned) {
            try CWATraceWarningPackage.verified(export: export, signatureList: [], verifier: signer.publicKey())
        }
        #expect(throws: CWAPackageError.unsigned) {
            try CWATraceWarningPackage.verified(
                export: export, signatureList: CWATraceWarningPackage.signatureList(signature: []),
                verifier: signer.publicKey())
        }
        #expect(throws: CWAPackageError.oversized) {
            try CWATraceWarningPackage.verified(
                export: export, signatureList: list, verifier: signer.publicKey(), maximumSize: 10)
        }
        // Signed, but an exposure key export or some other protobuf: refused after the signature, before use.
        let keyExport = Array("EK Export v1    ".utf8) + [0x08, 0x01]
        #expect(throws: CWAPackageError.wrongHeader) {
            try CWATraceWarningPackage.verified(
                export: keyExport,
                signatureList: CWATraceWarningPackage.signatureList(signature: signer.signature(for: keyExport)),
                verifier: signer.publicKey())
        }
        // field 10
        #expect(throws: CWAPackageError.wrongHeader) { try CWATraceWarningPackage(unverifiedExport: [0x50, 0x01]) }
        #expect(throws: CWAPackageError.malformed) {
            try CWATraceWarningPackage(unverifiedExport: Array(export.dropLast()))
        }
        // Only the kiosk's venues are kept.
        let kept = package.keeping(locationIdHashes: [try crypto.sha256(venue)])
        #expect(kept.timeIntervalWarnings.count == 1 && kept.checkInProtectedReports.count == 1)
    }
}

/// Builds the expected match of a result (its normalized time compared exactly).
struct ExposureMatchProbe {
    let stayId: String
    let day: Int64
    let minutes: Int64
    let trl: UInt8
    let time: Double

    func match(in result: ExposureResult) -> ExposureMatch? {
        result.matches.first {
            $0.stayId == stayId && $0.day == day && $0.overlapMinutes == minutes && $0.transmissionRiskLevel == trl
                && abs($0.normalizedTime - time) < 1e-9
        }
    }
}
