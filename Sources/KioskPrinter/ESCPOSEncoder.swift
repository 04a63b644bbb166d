internal import Foundation
public import KioskCore

/// Horizontal alignment of text and images (`ESC a n`).
public enum PrintAlignment: UInt8, Sendable, Codable {
    case left = 0
    case center = 1
    case right = 2
}

/// Why a receipt could not be encoded.
public enum ESCPOSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An image is wider than the paper's printable width.
    case imageTooWide(width: Int, maximum: Int)
    /// A QR code does not fit the paper even at one dot per module.
    case qrCodeTooLarge

    public var description: String {
        switch self {
        case .imageTooWide(let width, let maximum): "an image of \(width) dots does not fit the paper (\(maximum) dots)"
        case .qrCodeTooLarge: "the QR code is too large for this paper"
        }
    }
}

/// Builds an ESC/POS byte stream for a thermal receipt printer (the common Epson subset that 58/80 mm printers
/// understand): initialise, text with alignment and emphasis, line feeds, raster images (`GS v 0`) and a cut.
///
/// Text goes out in a single-byte code page (`codePage`, Windows-1252 unless configured otherwise), selected with
/// `ESC t n` by `initialize()`: every letter of English, German, French and Italian prints as itself, and a
/// character the code page lacks prints as its plain form or `?` (`PrinterCodePage.encode(_:)`). Text never yields
/// a control byte, so no command can be smuggled into the stream through it. Lines longer than the paper wrap at
/// spaces, counted in printed characters.
public struct ESCPOSEncoder: Sendable {
    public let paper: PaperWidth
    /// The code page text is printed in.
    public let codePage: PrinterCodePage
    public private(set) var bytes: [UInt8] = []
    /// `ESC t n` has been sent in this stream.
    private var codePageSelected = false

    /// Raster images go out in bands of at most this many rows: small printers have small receive buffers.
    public static let maximumRowsPerBand = 256

    public init(paper: PaperWidth, codePage: PrinterCodePage = .cp1252) {
        self.paper = paper
        self.codePage = codePage
    }

    /// `ESC @`: resets the printer's modes (alignment, emphasis, size, code page) to their defaults; then `ESC t n`
    /// selects `codePage`.
    public mutating func initialize() {
        bytes += [0x1B, 0x40]
        selectCodePage()
    }

    /// `ESC t n`: the character code table for the text that follows.
    private mutating func selectCodePage() {
        bytes += [0x1B, 0x74, codePage.escposTable]
        codePageSelected = true
    }

    /// `ESC a n`.
    public mutating func align(_ alignment: PrintAlignment) {
        bytes += [0x1B, 0x61, alignment.rawValue]
    }

    /// `ESC E n`: emphasised (bold) text on or off.
    public mutating func emphasis(_ on: Bool) {
        bytes += [0x1B, 0x45, on ? 1 : 0]
    }

    /// Prints `text` as one or more lines with the given alignment and emphasis, wrapping at the paper's width, and
    /// restores left alignment and normal weight after it. A stream that has not been initialised selects the code
    /// page before the first text that needs it.
    public mutating func text(_ text: String, alignment: PrintAlignment = .left, emphasized: Bool = false) {
        let lines = Self.wrap(text, columns: paper.columns, codePage: codePage)
        if !codePageSelected, lines.contains(where: { $0.contains { $0 >= 0x80 } }) { selectCodePage() }
        align(alignment)
        if emphasized { emphasis(true) }
        for line in lines {
            bytes += line
            bytes.append(0x0A)
        }
        if emphasized { emphasis(false) }
        if alignment != .left { align(.left) }
    }

    /// `ESC d n`: feeds `lines` blank lines (at most 255 in one command).
    public mutating func feed(lines: Int) {
        var left = max(lines, 0)
        while left > 0 {
            let now = min(left, 255)
            bytes += [0x1B, 0x64, UInt8(now)]
            left -= now
        }
    }

    /// `GS v 0 0 xL xH yL yH d…`: prints `bitmap` at normal density, in bands of at most `maximumRowsPerBand` rows.
    public mutating func image(_ bitmap: MonoBitmap, alignment: PrintAlignment = .center) throws(ESCPOSError) {
        guard bitmap.width <= paper.dots else { throw .imageTooWide(width: bitmap.width, maximum: paper.dots) }
        guard bitmap.width > 0, bitmap.height > 0 else { return }
        align(alignment)
        let widthBytes = bitmap.bytesPerRow
        var row = 0
        while row < bitmap.height {
            let band = min(Self.maximumRowsPerBand, bitmap.height - row)
            bytes += [
                0x1D, 0x76, 0x30, 0x00,
                UInt8(widthBytes & 0xFF), UInt8(widthBytes >> 8),
                UInt8(band & 0xFF), UInt8(band >> 8),
            ]
            bytes += bitmap.packedRows(row..<(row + band))
            row += band
        }
        if alignment != .left { align(.left) }
    }

    /// A QR code from its module matrix, as large as fits the paper (at most 8 dots per module), with a quiet zone.
    public mutating func qrCode(_ matrix: QRMatrix, alignment: PrintAlignment = .center) throws(ESCPOSError) {
        guard let scale = matrix.dotsPerModule(fitting: paper.dots) else { throw .qrCodeTooLarge }
        try image(matrix.raster(dotsPerModule: scale), alignment: alignment)
    }

    /// `GS V 66 n`: feeds `feedLines` × the motion unit so the last line clears the cutter, then a partial cut.
    public mutating func cut(feedLines: UInt8 = 3) {
        bytes += [0x1D, 0x56, 0x42, feedLines]
    }

    /// Splits `text` at newlines and transcodes each line into `codePage` (one byte a printed character), then wraps
    /// it at spaces to `columns` printed characters: a space right after a full line breaks there, a word longer
    /// than a line is broken, a non-breaking space is never broken at.
    static func wrap(_ text: String, columns: Int, codePage: PrinterCodePage) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        let composed = text.precomposedStringWithCanonicalMapping
        for paragraph in composed.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            var rest = codePage.cells(for: paragraph)[...]
            while rest.count > columns {
                let window = rest.prefix(columns + 1)
                if let space = window.lastIndex(where: \.isBreak), space > rest.startIndex {
                    lines.append(rest[..<space].map(\.byte))
                    rest = rest[(space + 1)...]
                } else {
                    lines.append(rest.prefix(columns).map(\.byte))
                    rest = rest.dropFirst(columns)
                }
            }
            lines.append(rest.map(\.byte))
        }
        return lines
    }
}
