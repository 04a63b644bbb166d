public import KioskCore

/// A 1-bit image for a thermal printer: `true` is a black dot. Rows are `width` dots wide, top to bottom.
public struct MonoBitmap: Sendable, Equatable {
    public let width: Int
    public let height: Int
    private var dots: [Bool]

    /// A white bitmap of the given size.
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "bitmap size must not be negative")
        self.width = width
        self.height = height
        dots = Array(repeating: false, count: width * height)
    }

    public subscript(x: Int, y: Int) -> Bool {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "dot outside the bitmap")
            return dots[y * width + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "dot outside the bitmap")
            dots[y * width + x] = newValue
        }
    }

    /// Bytes per packed row: 8 dots a byte, the last byte padded with white.
    public var bytesPerRow: Int { (width + 7) / 8 }

    /// Rows `rows` packed 8 dots a byte, most significant bit leftmost, 1 = black (the `GS v 0` raster layout).
    public func packedRows(_ rows: Range<Int>) -> [UInt8] {
        precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "rows outside the bitmap")
        var out = [UInt8](repeating: 0, count: rows.count * bytesPerRow)
        for (index, y) in rows.enumerated() {
            let base = index * bytesPerRow
            for x in 0..<width where dots[y * width + x] {
                out[base + x / 8] |= 0x80 >> UInt8(x % 8)
            }
        }
        return out
    }
}
