public import Foundation
public import KioskCore

/// The receipt a positive visitor takes to the test centre: the batch as QR codes (each a complete CKPB/1 text batch,
/// sized to print sharply on 58 mm paper), the calendar day it was made, and what to do with it — nothing else. The
/// reports' days, windows and risk levels and how many of the records are real were shown to the holder on screen
/// before they consented; printed, they would hand the test centre the very metadata the protected reports hide, and
/// a count of real reports would undo the decoys. So the receipt is built from the batch and a date alone.
public enum ReportReceipt {
    /// Records per QR code: a part of 8 records is about 900 Base45 characters, a version-18 code that prints at
    /// 3 dots per module within 384 dots.
    public static let recordsPerCode = 8

    /// ESC/POS bytes for `batch` and, when given, `crowdNotifierUpload` (SwissCovid's `UserUploadPayload`, printed as
    /// `CNUP1:` codes after the batch's, numbered on with them), made at `madeAt` (UNIX seconds; only its date in `zone`,
    /// the venue's, is printed, as `language` writes it), in `language`, its text in `codePage`.
    public static func escpos(
        batch: ReportBatch, crowdNotifierUpload: [UInt8]? = nil, madeAt: Int64, paper: PaperWidth,
        codePage: PrinterCodePage = .cp1252, language: Language = .fallback, zone: VenueZone = .board
    ) throws -> [UInt8] {
        let texts = Catalog.of(language)
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        encoder.text(texts[.receiptReportTitle], alignment: .center, emphasized: true)
        encoder.text(
            texts.text(
                .receiptReportMade,
                ["date": VisitorTime(language, zone: zone).dayWithYear(Date(timeIntervalSince1970: Double(madeAt)))]),
            alignment: .center)
        encoder.feed(lines: 1)
        let uploadCodes = try crowdNotifierUpload.map { try CrowdNotifierUploadPayload.codeTexts(of: $0) } ?? []
        let codes = ReportSealer.parts(of: batch, recordsPerPart: recordsPerCode).map(\.text) + uploadCodes
        for (number, code) in codes.enumerated() {
            if codes.count > 1 {
                encoder.text(
                    texts.text(.receiptReportPart, ["number": "\(number + 1)", "count": "\(codes.count)"]),
                    alignment: .center)
            }
            try encoder.qrCode(try QREncoder.compactMatrix(for: code))
            encoder.feed(lines: 1)
        }
        encoder.text(texts[.receiptReportHandOver])
        encoder.text(texts[.receiptReportOpaque])
        if !uploadCodes.isEmpty {
            encoder.text(texts.count(.receiptReportCrowdNotifier, uploadCodes.count))
        }
        encoder.cut()
        return encoder.bytes
    }
}
