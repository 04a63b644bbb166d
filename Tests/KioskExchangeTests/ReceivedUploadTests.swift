import KioskCore
import KioskExchange
import Testing

/// The authority's reading of an upload (`ReceivedUpload`, what `POST /v1/reports` calls and the `upload` fuzz target
/// drives): each content type the uploader writes reads back, and a submission with a report of the wrong shape is
/// refused whole.
@Suite struct ReceivedUploadTests {
    let batch: ReportBatch
    let report = CWAProtectedReport(
        locationIdHash: [UInt8](repeating: 1, count: 32), iv: [UInt8](repeating: 2, count: 16),
        encryptedCheckInRecord: [UInt8](repeating: 3, count: 16), mac: [UInt8](repeating: 4, count: 32))

    init() throws {
        batch = try ReportBatch(records: (0..<8).map { [UInt8](repeating: UInt8($0), count: CKPR.recordLength) })
    }

    /// `SubmissionPayload` bytes holding `reports`: field 8 (`checkInProtectedReports`), one length-delimited entry
    /// each (all shorter than 128 bytes, so one length byte).
    func payload(_ reports: [CWAProtectedReport]) -> [UInt8] {
        reports.flatMap { report -> [UInt8] in
            let bytes = report.serialized
            return [0x42, UInt8(bytes.count)] + bytes
        }
    }

    @Test func aBatchReadsBackAsBytesAndAsText() throws {
        let binary = try #require(ReceivedUpload(body: batch.bytes, contentType: ReportUploader.contentType))
        #expect(binary.batch == batch && binary.cwaReports == nil)
        let text = try #require(ReceivedUpload(body: Array(batch.text.utf8), contentType: "text/plain"))
        #expect(text.batch == batch)
        #expect(ReceivedUpload(body: Array(batch.bytes.dropLast()), contentType: ReportUploader.contentType) == nil)
    }

    @Test func aSubmissionCarriesTheBatchAndItsCWAReports() throws {
        let body = ReportUploader.submission(batch, cwa: payload([report, report]))
        let upload = try #require(ReceivedUpload(body: body, contentType: ReportUploader.submissionContentType))
        #expect(upload.batch == batch)
        #expect(upload.cwaReports == [report, report])
        // The same bytes under the batch's own type are no batch.
        #expect(ReceivedUpload(body: body, contentType: ReportUploader.contentType) == nil)
    }

    @Test func aSubmissionWithAReportOfTheWrongShapeIsRefusedWhole() {
        let short = CWAProtectedReport(
            locationIdHash: report.locationIdHash, iv: report.iv,
            encryptedCheckInRecord: [UInt8](repeating: 3, count: 15),
            mac: report.mac)
        let body = ReportUploader.submission(batch, cwa: payload([report, short]))
        #expect(ReceivedUpload(body: body, contentType: ReportUploader.submissionContentType) == nil)
    }
}
