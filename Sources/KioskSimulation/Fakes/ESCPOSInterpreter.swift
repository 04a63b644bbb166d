public import KioskCore
public import KioskPrinter

/// Renders an ESC/POS byte stream (the subset `ESCPOSEncoder` emits) back into a grey image, so tests can look at a
/// receipt, read its text and decode its QR codes. Raster images are reproduced dot for dot. Text bytes are decoded
/// with the code page `ESC t n` selected (`PrinterCodePage`; before any, only ASCII is understood) and drawn in
/// black with the glyphs of `BitmapFont.receiptFontA`, one 12 × 24 dot cell a character as font A prints; emphasised
/// text has each dot doubled one dot to the right, as a printer's emphasis does. Any byte sequence outside the
/// subset is an error (an unknown command or code page, a byte the code page does not define), so an encoder bug
/// cannot slip through.
public struct ESCPOSInterpreter {
    /// One printed text line, decoded to Unicode with the code page the printer was told to use.
    public struct TextLine: Equatable, Sendable {
        public var text: String
        public var alignment: PrintAlignment
        public var emphasized: Bool

        public init(text: String, alignment: PrintAlignment, emphasized: Bool) {
            self.text = text
            self.alignment = alignment
            self.emphasized = emphasized
        }
    }

    /// The rendered receipt.
    public struct Rendering: Sendable {
        public let width: Int
        public private(set) var height = 0
        /// Row-major 8-bit grey: 0 black, 255 white.
        public private(set) var pixels: [UInt8] = []
        public internal(set) var lines: [TextLine] = []
        /// `GS v 0` commands seen (a tall image goes out as several bands).
        public internal(set) var rasterBands = 0
        public internal(set) var cuts = 0
        public internal(set) var initializations = 0
        /// The code page selected last (`ESC t n`), nil when none has been since the last `ESC @`.
        public internal(set) var codePage: PrinterCodePage?

        init(width: Int) { self.width = width }

        mutating func addRows(_ count: Int) -> Int {
            let top = height
            height += count
            pixels += [UInt8](repeating: 255, count: count * width)
            return top
        }

        mutating func set(_ x: Int, _ y: Int, _ grey: UInt8) {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            pixels[y * width + x] = grey
        }

        /// The image as binary PGM (P5), which `zbarimg` and netpbm read.
        public var pgm: [UInt8] {
            Array("P5\n\(width) \(height)\n255\n".utf8) + pixels
        }
    }

    public enum Failure: Error, Equatable, Sendable {
        /// A command the interpreter does not know, at this byte offset.
        case unknownCommand(offset: Int, bytes: [UInt8])
        /// The stream ended inside a command.
        case truncated(offset: Int)
        /// A raster image wider than the paper.
        case imageTooWide(offset: Int)
        /// A parameter outside what the subset allows.
        case badParameter(offset: Int)
        /// `ESC t n` with a code page the interpreter does not know.
        case unknownCodePage(offset: Int, table: UInt8)
        /// A text byte above 0x7F that the selected code page does not define, or sent before any `ESC t n` (the
        /// printer's own default table, which the subset does not use).
        case undefinedCharacter(offset: Int, byte: UInt8)
    }

    public static let cellWidth = 12
    public static let lineHeight = 24

    public static func render(_ bytes: [UInt8], paper: PaperWidth) throws(Failure) -> Rendering {
        var out = Rendering(width: paper.dots)
        var alignment = PrintAlignment.left
        var emphasized = false
        var pendingText: [Unicode.Scalar] = []
        var index = 0

        func need(_ count: Int) throws(Failure) {
            if index + count > bytes.count { throw .truncated(offset: index) }
        }
        func flushText() {
            var text = ""
            text.unicodeScalars.append(contentsOf: pendingText)
            out.lines.append(TextLine(text: text, alignment: alignment, emphasized: emphasized))
            let top = out.addRows(lineHeight)
            let width = pendingText.count * cellWidth
            let left =
                switch alignment {
                case .left: 0
                case .center: max((out.width - width) / 2, 0)
                case .right: max(out.width - width, 0)
                }
            for (column, scalar) in pendingText.enumerated() {
                draw(scalar, at: left + column * cellWidth, top, emphasized: emphasized, into: &out)
            }
            pendingText = []
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x20...0x7E, 0x80...0xFF:
                let scalar = byte < 0x80 ? Unicode.Scalar(byte) : out.codePage?.character(for: byte)
                guard let scalar else { throw .undefinedCharacter(offset: index, byte: byte) }
                pendingText.append(scalar)
                index += 1
            case 0x0A:
                flushText()
                index += 1
            case 0x1B:
                try need(2)
                switch bytes[index + 1] {
                case 0x40:
                    alignment = .left
                    emphasized = false
                    out.codePage = nil
                    out.initializations += 1
                    index += 2
                case 0x74:
                    try need(3)
                    guard let page = PrinterCodePage(escposTable: bytes[index + 2]) else {
                        throw .unknownCodePage(offset: index, table: bytes[index + 2])
                    }
                    out.codePage = page
                    index += 3
                case 0x61:
                    try need(3)
                    guard let value = PrintAlignment(rawValue: bytes[index + 2] % 48) else {
                        throw .badParameter(offset: index)
                    }
                    alignment = value
                    index += 3
                case 0x45:
                    try need(3)
                    emphasized = bytes[index + 2] & 1 == 1
                    index += 3
                case 0x64:
                    try need(3)
                    _ = out.addRows(Int(bytes[index + 2]) * lineHeight)
                    index += 3
                default:
                    throw .unknownCommand(offset: index, bytes: Array(bytes[index..<(index + 2)]))
                }
            case 0x1D:
                try need(2)
                switch bytes[index + 1] {
                case 0x76:
                    try need(8)
                    guard bytes[index + 2] == 0x30, bytes[index + 3] & 0x0F == 0 || bytes[index + 3] == 0x30 else {
                        throw .badParameter(offset: index)
                    }
                    let widthBytes = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8
                    let rows = Int(bytes[index + 6]) | Int(bytes[index + 7]) << 8
                    guard widthBytes * 8 <= out.width else { throw .imageTooWide(offset: index) }
                    try need(8 + widthBytes * rows)
                    let data = index + 8
                    let widthDots = widthBytes * 8
                    let left =
                        switch alignment {
                        case .left: 0
                        case .center: (out.width - widthDots) / 2
                        case .right: out.width - widthDots
                        }
                    let top = out.addRows(rows)
                    for y in 0..<rows {
                        for xByte in 0..<widthBytes {
                            let packed = bytes[data + y * widthBytes + xByte]
                            guard packed != 0 else { continue }
                            for bit in 0..<8 where packed & (0x80 >> UInt8(bit)) != 0 {
                                out.set(left + xByte * 8 + bit, top + y, 0)
                            }
                        }
                    }
                    out.rasterBands += 1
                    index = data + widthBytes * rows
                case 0x56:
                    try need(3)
                    let mode = bytes[index + 2]
                    if mode == 65 || mode == 66 {
                        try need(4)
                        index += 4
                    } else if mode <= 1 || mode == 48 || mode == 49 {
                        index += 3
                    } else {
                        throw .badParameter(offset: index)
                    }
                    if !pendingText.isEmpty { flushText() }
                    let top = out.addRows(2)
                    for x in stride(from: 0, to: out.width, by: 8) {
                        for dx in 0..<4 { out.set(x + dx, top, 160) }
                    }
                    out.cuts += 1
                default:
                    throw .unknownCommand(offset: index, bytes: Array(bytes[index..<(index + 2)]))
                }
            default:
                throw .unknownCommand(offset: index, bytes: [byte])
            }
        }
        if !pendingText.isEmpty { flushText() }
        return out
    }

    /// Draws `scalar`'s glyph in the cell whose top left dot is (`left`, `top`); a character without a glyph (none
    /// that either code page prints) is drawn as an empty box.
    static func draw(_ scalar: Unicode.Scalar, at left: Int, _ top: Int, emphasized: Bool, into out: inout Rendering) {
        let font = BitmapFont.receiptFontA
        let glyph =
            font.glyph(for: scalar)
            ?? BitmapFont.Glyph(
                rows: (0..<lineHeight).map { y in
                    y == 3 || y == 20 ? 0x7FE0_0000 : (4..<20).contains(y) ? 0x4020_0000 : 0
                })
        for y in 0..<lineHeight {
            for x in 0..<cellWidth where glyph.isInk(x: x, y: y) || (emphasized && glyph.isInk(x: x - 1, y: y)) {
                out.set(left + x, top + y, 0)
            }
        }
    }
}
