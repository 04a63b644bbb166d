/// A fixed-cell bitmap font read from BDF (Adobe's Glyph Bitmap Distribution Format 2.1), for drawing the text of
/// simulated receipts.
///
/// `receiptFontA` is KioskReceipt 12x24 (`Fonts/KioskReceipt-12x24.bdf`, built into the module): the glyphs of
/// Terminus Font's `ter-u24n` (SIL Open Font License 1.1; the file carries its notice and the licence) for every
/// printable character of Windows-1252 and code page 858, in the 12 × 24 dot cell of an ESC/POS printer's font A.
public struct BitmapFont: Sendable {
    /// One glyph placed in the font's cell: `rows[y]` holds row `y` from the top, dot `x` in bit `31 - x`.
    public struct Glyph: Sendable, Equatable {
        public var rows: [UInt32]

        /// Whether the dot at (`x`, `y`) of the cell is ink.
        public func isInk(x: Int, y: Int) -> Bool {
            guard x >= 0, x < 32, y >= 0, y < rows.count else { return false }
            return rows[y] & (UInt32(1) << UInt32(31 - x)) != 0
        }
    }

    public let cellWidth: Int
    public let cellHeight: Int
    private let glyphs: [Unicode.Scalar: Glyph]

    /// Receipt text: KioskReceipt 12x24, from Terminus Font (see the type's documentation).
    public static let receiptFontA = BitmapFont(bdf: PackageResources.KioskReceipt_12x24_bdf)

    /// The glyph of `scalar`, if the font has one.
    public func glyph(for scalar: Unicode.Scalar) -> Glyph? { glyphs[scalar] }

    /// Every character the font has a glyph for.
    public var characters: Set<Unicode.Scalar> { Set(glyphs.keys) }

    /// Reads the BDF text in `bdf`. The cell is the font's bounding box (`FONTBOUNDINGBOX`, at most 32 dots wide);
    /// each glyph is placed in it by its own `BBX` (its size and its offset from the baseline). A glyph that is
    /// incomplete or has no Unicode code point (`ENCODING -1`) is skipped, so a damaged file yields fewer glyphs,
    /// never a crash: tests check that every character the printer can print has one.
    public init(bdf: [UInt8]) {
        var width = 0
        var height = 0
        var descent = 0
        var glyphs: [Unicode.Scalar: Glyph] = [:]
        var scalar: Unicode.Scalar?
        var box = (width: 0, height: 0, x: 0, y: 0)
        var bitmap: [UInt32]?
        for line in String(decoding: bdf, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            guard let keyword = fields.first else { continue }
            let numbers = fields.dropFirst().compactMap { Int($0) }
            if var rows = bitmap {
                if keyword == "ENDCHAR" {
                    if let scalar, rows.count == box.height {
                        glyphs[scalar] = Self.place(rows, box: box, cell: (width, height, descent))
                    }
                    bitmap = nil
                    scalar = nil
                } else {
                    let bits = UInt32(keyword, radix: 16) ?? 0
                    let digits = keyword.count * 4
                    rows.append(digits <= 32 ? bits << UInt32(32 - digits) : 0)
                    bitmap = rows
                }
                continue
            }
            switch keyword {
            case "FONTBOUNDINGBOX" where numbers.count == 4:
                width = min(numbers[0], 32)
                height = numbers[1]
                descent = -numbers[3]
            case "STARTCHAR":
                scalar = nil
                box = (width, height, 0, -descent)
            case "ENCODING":
                scalar = numbers.first.flatMap { $0 >= 0 ? Unicode.Scalar(UInt32($0)) : nil }
            case "BBX" where numbers.count == 4:
                box = (numbers[0], numbers[1], numbers[2], numbers[3])
            case "BITMAP":
                bitmap = []
            default:
                break
            }
        }
        cellWidth = width
        cellHeight = height
        self.glyphs = glyphs
    }

    /// `rows` (a glyph's box, `box.height` rows from the top) moved to their place in the cell: `box.x` dots from
    /// the left, the box's bottom `box.y` dots above the baseline, which is `descent` dots above the cell's bottom.
    private static func place(
        _ rows: [UInt32], box: (width: Int, height: Int, x: Int, y: Int), cell: (width: Int, height: Int, descent: Int)
    ) -> Glyph {
        var placed = [UInt32](repeating: 0, count: cell.height)
        let top = cell.height - cell.descent - box.y - box.height
        for (index, row) in rows.enumerated() where (0..<cell.height).contains(top + index) {
            let shifted = box.x >= 0 ? row >> UInt32(min(box.x, 31)) : row << UInt32(min(-box.x, 31))
            let cellMask = cell.width >= 32 ? UInt32.max : ~(UInt32.max >> UInt32(cell.width))
            placed[top + index] = shifted & cellMask
        }
        return Glyph(rows: placed)
    }
}
