public import KioskCore

/// The receipt a positive visitor takes to the test centre: a short summary without venue names or addresses, the
/// batch as QR codes (each a complete CKPB/1 text batch, sized to print sharply on 58 mm paper), and what to do.
public enum ReportReceipt {
    /// Records per QR code: a part of 8 records is about 900 Base45 characters, a version-18 code that prints at
    /// 3 dots per module within 384 dots.
    public static let recordsPerCode = 8

    /// ESC/POS bytes for `batch` as consented in `preview`.
    public static func escpos(batch: ReportBatch, preview: Preview, paper: PaperWidth) throws -> [UInt8] {
        var encoder = ESCPOSEncoder(paper: paper)
        encoder.initialize()
        encoder.text("Protected check-in reports", alignment: .center, emphasized: true)
        encoder.text(
            "Made \(TimeText.dateTime(unixSeconds: preview.createdAt)) UTC with your consent.", alignment: .center)
        encoder.feed(lines: 1)
        encoder.text(
            "\(preview.reportCount) report\(preview.reportCount == 1 ? "" : "s") and \(preview.dummyCount) decoys:")
        for (_, report) in preview.sealingPlan.sorted(by: {
            $0.report.startIntervalNumber < $1.report.startIntervalNumber
        }) {
            encoder.text(
                "\(TimeText.day(report.day)) \(TimeText.intervalWindow(report)) UTC, risk \(report.transmissionRiskLevel)/8"
            )
        }
        encoder.feed(lines: 1)
        let parts = ReportSealer.parts(of: batch, recordsPerPart: recordsPerCode)
        for (number, part) in parts.enumerated() {
            if parts.count > 1 { encoder.text("Code \(number + 1) of \(parts.count)", alignment: .center) }
            try encoder.qrCode(try QREncoder.compactMatrix(for: part.text))
            encoder.feed(lines: 1)
        }
        encoder.text("Give this receipt to the test centre or health authority so they can warn others who were there.")
        encoder.text("Venue names are not printed: only devices that were there can read the codes.")
        encoder.cut()
        return encoder.bytes
    }
}
