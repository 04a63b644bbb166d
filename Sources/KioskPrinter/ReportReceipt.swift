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

    /// ESC/POS bytes for `batch`, made at `madeAt` (UNIX seconds; only its UTC date is printed), its text in
    /// `codePage`.
    public static func escpos(
        batch: ReportBatch, madeAt: Int64, paper: PaperWidth, codePage: PrinterCodePage = .cp1252
    ) throws -> [UInt8] {
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        encoder.text("Protected check-in reports", alignment: .center, emphasized: true)
        encoder.text("Made on \(TimeText.date(unixSeconds: madeAt)) with your consent.", alignment: .center)
        encoder.feed(lines: 1)
        let parts = ReportSealer.parts(of: batch, recordsPerPart: recordsPerCode)
        for (number, part) in parts.enumerated() {
            if parts.count > 1 { encoder.text("Code \(number + 1) of \(parts.count)", alignment: .center) }
            try encoder.qrCode(try QREncoder.compactMatrix(for: part.text))
            encoder.feed(lines: 1)
        }
        encoder.text("Give this receipt to the test centre or health authority so they can warn others who were there.")
        encoder.text("The codes say nothing readable: only devices that were at the same places can open them.")
        encoder.cut()
        return encoder.bytes
    }
}
