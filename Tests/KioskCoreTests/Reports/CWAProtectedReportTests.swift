import Foundation
import KioskCore
import KioskOpenSSL
import KioskProto
import KioskSimulation
import SwiftProtobuf
import Testing

/// `Tests/Vectors/cwa/transcribed/checkin-cryptography.json`: CWA's check-in protected reports.
@Suite struct CWAProtectedReportTests {
    struct File: Decodable {
        struct KeyCase: Decodable {
            let locationIdBase64, expEncryptionKeyBase64, expMacKeyBase64, expLocationIdHashBase64: String
        }
        struct MacCase: Decodable { let macKeyBase64, ivBase64, encryptedCheckInRecordBase64, expMacBase64: String }
        struct EncryptCase: Decodable {
            let locationIdBase64, ivBase64: String
            let startIntervalNumber, period, transmissionRiskLevel: UInt32
            let expCheckInRecordHex, expEncryptedCheckInRecordBase64, expMacBase64, expLocationIdHashBase64: String
        }
        struct TamperCase: Decodable { let locationIdBase64, ivBase64, encryptedCheckInRecordBase64, macBase64: String }
        struct ReportCase: Decodable {
            struct Expected: Decodable { let startIntervalNumber, period, transmissionRiskLevel: UInt32 }
            let locationIdHex, checkInProtectedReportProtobufBase64: String
            let expDecryptedCheckInRecord: Expected
            let expIsValidWarning: Bool
        }
        let keyDerivation: [KeyCase]
        let macCases: [MacCase]
        let encryptDecryptCases: [EncryptCase]
        let tamperCases: [TamperCase]
        let protectedReportCases: [ReportCase]
    }

    static let file: File = try! Vectors.decode(File.self, from: "cwa/transcribed/checkin-cryptography.json")
    let crypto = OpenSSLCrypto()

    func b64(_ text: String) -> [UInt8] { [UInt8](Data(base64Encoded: text)!) }

    @Test func keyDerivation() throws {
        for vector in Self.file.keyDerivation {
            let keys = try CWAProtectedReport.keys(locationId: b64(vector.locationIdBase64), crypto: crypto)
            #expect(keys.encryption == b64(vector.expEncryptionKeyBase64))
            #expect(keys.mac == b64(vector.expMacKeyBase64))
            #expect(try crypto.sha256(b64(vector.locationIdBase64)) == b64(vector.expLocationIdHashBase64))
        }
    }

    @Test func mac() throws {
        for vector in Self.file.macCases {
            #expect(
                try crypto.hmacSHA256(
                    key: b64(vector.macKeyBase64), data: b64(vector.ivBase64) + b64(vector.encryptedCheckInRecordBase64)
                )
                    == b64(vector.expMacBase64))
        }
    }

    @Test func sealAndOpenReproduceEveryCase() throws {
        #expect(Self.file.encryptDecryptCases.count == 4)
        for vector in Self.file.encryptDecryptCases {
            let record = CWAProtectedReport.Record(
                startIntervalNumber: vector.startIntervalNumber, period: vector.period,
                transmissionRiskLevel: vector.transmissionRiskLevel)
            #expect(Hex.encode(record.serialized) == vector.expCheckInRecordHex)
            let locationId = b64(vector.locationIdBase64)
            let report = try CWAProtectedReport.seal(
                record, locationId: locationId, iv: b64(vector.ivBase64), crypto: crypto)
            #expect(report.encryptedCheckInRecord == b64(vector.expEncryptedCheckInRecordBase64))
            #expect(report.mac == b64(vector.expMacBase64))
            #expect(report.locationIdHash == b64(vector.expLocationIdHashBase64))
            #expect(try report.open(locationId: locationId, crypto: crypto) == record)
        }
    }

    @Test func tamperedReportIsRejectedByItsMAC() throws {
        for vector in Self.file.tamperCases {
            let report = CWAProtectedReport(
                locationIdHash: [], iv: b64(vector.ivBase64),
                encryptedCheckInRecord: b64(vector.encryptedCheckInRecordBase64), mac: b64(vector.macBase64))
            #expect(throws: ProtectedReportError.authenticationFailed) {
                try report.open(locationId: b64(vector.locationIdBase64), crypto: crypto)
            }
        }
    }

    @Test func protectedReportProtobufsDecryptAndValidateAsCWA() throws {
        #expect(Self.file.protectedReportCases.count == 4)
        for vector in Self.file.protectedReportCases {
            let report = try CWAProtectedReport(serialized: b64(vector.checkInProtectedReportProtobufBase64))
            #expect(report.serialized == b64(vector.checkInProtectedReportProtobufBase64))
            let record = try report.open(locationId: Hex.decode(vector.locationIdHex)!, crypto: crypto)
            #expect(record.startIntervalNumber == vector.expDecryptedCheckInRecord.startIntervalNumber)
            #expect(record.period == vector.expDecryptedCheckInRecord.period)
            #expect(record.transmissionRiskLevel == vector.expDecryptedCheckInRecord.transmissionRiskLevel)
            #expect(record.isValidWarning == vector.expIsValidWarning)
        }
    }

    @Test func submissionPayloadCarriesTheConsentedReportsAmongFakes() throws {
        let now: Int64 = 1_615_000_000
        let venue = [UInt8](repeating: 0xAB, count: 32)
        var flow = ConsentFlow(now: now)
        flow.handle(
            .cardPresented(stays: [
                ReportableStay(id: "1", venueName: "V", locationId: venue, start: now - 7200, end: now - 3600)
            ]))
        flow.handle(.toggle("1"))
        flow.handle(.confirmSelection)
        flow.handle(.details(symptoms: .noInformation, output: .export))
        flow.handle(.acknowledgeDisclosure)
        flow.handle(.answer(true))
        guard case .consented(let preview) = flow.state else {
            Issue.record("no consent")
            return
        }
        let payload = try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto)
        let reports = try CWAProtectedReport.reports(inSubmissionPayload: payload)
        #expect(reports.count == ReportBatch.paddedCount(forReal: 1))
        // The venue's hash is carried by the real report and by fakes (RealReportCountTests): only the real one opens.
        let hash = try crypto.sha256(venue)
        let mine = reports.filter { $0.locationIdHash == hash }
        #expect(mine.count == ReportBatch.classSizes(forReal: 1)[0])
        let opened = mine.compactMap { try? $0.open(locationId: venue, crypto: crypto) }
        #expect(opened.count == preview.reportCount)
        let record = try #require(opened.first)
        #expect(record.startIntervalNumber == preview.sealingPlan[0].report.startIntervalNumber)
        #expect(record.isValidWarning)
        // Fakes have the same sizes as real reports.
        #expect(
            Set(reports.map { [$0.locationIdHash.count, $0.iv.count, $0.encryptedCheckInRecord.count, $0.mac.count] })
                .count == 1)
    }
}

/// UI-9: the preview names everything a stick or an upload carries — the CWA file beside the batch and the test type
/// it is marked with — and that is what the payload says.
@Suite struct PreviewNamesWhatLeavesTests {
    @Test func theCWACopyAndItsTestTypeAreNamedForStickAndUploadAndTrue() throws {
        let now: Int64 = 1_615_000_000
        let stay = ReportableStay(
            id: "1", venueName: "V", locationId: [UInt8](repeating: 0xAB, count: 32), start: now - 7200,
            end: now - 3600)
        for output in [ReportOutput.export, .upload(verificationCode: "ABCDE-FGHJK"), .print] {
            let preview = try ConsentWalkthrough.consentedPreview(stays: [stay], now: now, output: output)
            let text = preview.lines.joined(separator: " ")
            let named = text.contains("Corona-Warn-App format") && text.contains("PCR test")
            #expect(named == (output != .print), "\(output): \(text)")
            #expect(text.contains("made-up records are mixed in, so no one can tell how many are yours"))
        }
        let preview = try ConsentWalkthrough.consentedPreview(stays: [stay], now: now, output: .export)
        let payload = try SAP_Internal_SubmissionPayload(
            serializedBytes: try CWAProtectedReport.submissionPayload(for: preview, crypto: OpenSSLCrypto()))
        #expect(payload.submissionType == .pcrTest)
    }
}
