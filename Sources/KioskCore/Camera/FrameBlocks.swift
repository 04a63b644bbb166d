/// A camera frame summarised as a coarse grid of blocks: each block's mean grey level and its texture (the mean
/// absolute difference between horizontally neighbouring samples). What `ChangeDetector` compares, at a small fraction
/// of a frame's cost: the frame is read once, sampling every `sampleStep`-th pixel of every `sampleStep`-th row.
///
/// Sensor noise averages out over a block (a block of 32 × 32 pixels sampled every 2nd pixel holds 256 samples, so
/// noise of σ grey levels moves its mean by about σ / 16), while a code, a card or a hand changes both numbers of the
/// blocks it covers by tens of grey levels.
public struct FrameBlocks: Sendable, Equatable {
    /// The frame's size in pixels.
    public let width: Int
    public let height: Int
    /// The side of a block in pixels (the last column and row of blocks may be narrower).
    public let blockSize: Int
    /// The grid's size in blocks.
    public let columns: Int
    public let rows: Int
    /// Each block's mean grey level, row by row.
    public private(set) var means: [Float]
    /// Each block's texture: the mean absolute difference of horizontally neighbouring samples, row by row.
    public private(set) var textures: [Float]

    /// Summarises an 8-bit grey frame of `width` × `height` pixels stored row by row (`pixels` holds at least
    /// `width × height` bytes).
    public init(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, blockSize: Int = 32, sampleStep: Int = 2) {
        precondition(width > 0 && height > 0 && pixels.count >= width * height, "the frame is smaller than its size")
        precondition(blockSize >= 4 && sampleStep >= 1 && sampleStep < blockSize, "block or sample size out of range")
        self.width = width
        self.height = height
        self.blockSize = blockSize
        columns = (width + blockSize - 1) / blockSize
        rows = (height + blockSize - 1) / blockSize
        var sums = [Int](repeating: 0, count: columns * rows)
        var differences = [Int](repeating: 0, count: columns * rows)
        var counts = [Int](repeating: 0, count: columns * rows)
        var pairs = [Int](repeating: 0, count: columns * rows)
        let columns = columns
        sums.withUnsafeMutableBufferPointer { sums in
            differences.withUnsafeMutableBufferPointer { differences in
                counts.withUnsafeMutableBufferPointer { counts in
                    pairs.withUnsafeMutableBufferPointer { pairs in
                        var y = 0
                        while y < height {
                            let rowStart = y * width
                            let blockRow = (y / blockSize) * columns
                            var blockX = 0
                            while blockX < width {
                                let end = min(blockX + blockSize, width)
                                var x = blockX
                                var sum = 0
                                var difference = 0
                                var count = 0
                                var previous = Int(pixels[rowStart + x])
                                while x < end {
                                    let value = Int(pixels[rowStart + x])
                                    sum &+= value
                                    difference &+= abs(value - previous)
                                    previous = value
                                    count &+= 1
                                    x &+= sampleStep
                                }
                                let block = blockRow + blockX / blockSize
                                sums[block] &+= sum
                                differences[block] &+= difference
                                counts[block] &+= count
                                pairs[block] &+= count - 1
                                blockX = end
                            }
                            y &+= sampleStep
                        }
                    }
                }
            }
        }
        means = (0..<sums.count).map { counts[$0] > 0 ? Float(sums[$0]) / Float(counts[$0]) : 0 }
        textures = (0..<sums.count).map { pairs[$0] > 0 ? Float(differences[$0]) / Float(pairs[$0]) : 0 }
    }

    /// The pixels block `column`, `row` covers.
    public func region(column: Int, row: Int) -> FrameRegion {
        let x = column * blockSize
        let y = row * blockSize
        return FrameRegion(x: x, y: y, width: min(blockSize, width - x), height: min(blockSize, height - y))
    }

    /// Takes the blocks that `region` touches from `other` (a summary of a frame of the same size and grid).
    public mutating func replace(in region: FrameRegion, from other: FrameBlocks) {
        precondition(other.columns == columns && other.rows == rows, "summaries of different grids")
        let firstColumn = max(0, region.x / blockSize)
        let lastColumn = min(columns - 1, (region.x + region.width - 1) / blockSize)
        let firstRow = max(0, region.y / blockSize)
        let lastRow = min(rows - 1, (region.y + region.height - 1) / blockSize)
        guard firstColumn <= lastColumn, firstRow <= lastRow else { return }
        for row in firstRow...lastRow {
            for column in firstColumn...lastColumn {
                means[row * columns + column] = other.means[row * columns + column]
                textures[row * columns + column] = other.textures[row * columns + column]
            }
        }
    }
}

/// A rectangle of a frame, in pixels.
public struct FrameRegion: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var area: Int { width * height }

    /// The smallest rectangle holding both.
    public func union(_ other: FrameRegion) -> FrameRegion {
        let left = min(x, other.x)
        let top = min(y, other.y)
        let right = max(x + width, other.x + other.width)
        let bottom = max(y + height, other.y + other.height)
        return FrameRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Whether the two share at least one pixel.
    public func intersects(_ other: FrameRegion) -> Bool {
        x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
    }

    /// This rectangle grown by `margin` pixels on every side and cut to a frame of `width` × `height`.
    public func expanded(by margin: Int, within width: Int, _ height: Int) -> FrameRegion {
        let left = max(0, x - margin)
        let top = max(0, y - margin)
        let right = min(width, x + self.width + margin)
        let bottom = min(height, y + self.height + margin)
        return FrameRegion(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }
}
