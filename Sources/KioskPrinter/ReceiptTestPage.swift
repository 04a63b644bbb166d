public import KioskCore

/// The page `kiosk selftest` prints: the paper width, the code page with a line of the letters the kiosk's languages
/// need (wrong letters there mean the printer lacks the configured code page), a ruler of the printable width and a
/// QR code that a phone can read, so staff see at once whether text, images and the cutter work.
public enum ReceiptTestPage {
    /// The letters and signs the receipts of English, German, French and Italian use beyond ASCII.
    public static let sampleText = "ÄÖÜ äöü ß é è ê à â ç ë ï ô ù û ì ò « » € “ ” ‘ ’ – — …"

    public static func bytes(paper: PaperWidth, codePage: PrinterCodePage = .cp1252) throws -> [UInt8] {
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        encoder.text("Kiosk printer test", alignment: .center, emphasized: true)
        encoder.text("Paper \(paper == .mm58 ? "58" : "80") mm, \(paper.dots) dots, \(paper.columns) columns")
        encoder.text("Code page \(codePage.rawValue) (ESC t \(codePage.escposTable)):")
        encoder.text(sampleText)
        encoder.text(String(repeating: "-", count: paper.columns))
        var ruler = MonoBitmap(width: paper.dots, height: 16)
        for x in 0..<paper.dots where x % 8 < 4 {
            for y in 0..<(x % 64 < 4 ? 16 : 8) { ruler[x, y] = true }
        }
        try encoder.image(ruler, alignment: .left)
        encoder.feed(lines: 1)
        try encoder.qrCode(try QREncoder.matrix(for: "KIOSK PRINTER TEST"))
        encoder.feed(lines: 1)
        encoder.cut()
        return encoder.bytes
    }
}
