/// Decides where a camera frame differs from the reference (what the scanner last looked at), block by block
/// (`FrameBlocks`), so that libzbar is run only where something in front of the camera changed.
///
/// Robust to what an empty entrance does all day:
/// - **sensor noise** averages out over a block (a few hundred samples each);
/// - **slow lighting drift and auto exposure** change every block alike: before comparing, the frame's brightness is
///   fitted to the reference's as `gain × reference + offset` (least squares over all blocks, then again over the
///   blocks that fit), and only what that fit leaves unexplained counts.
///
/// A block changed when its mean moved by more than `meanThreshold` or its texture by more than `textureThreshold`
/// plus a quarter of its reference texture. Changed blocks that touch (after growing each by `margin` blocks) form
/// one region; regions come back in pixels.
public struct ChangeDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Grey levels a block's mean must move by, after the brightness fit.
        public var meanThreshold: Float
        /// Grey levels a block's texture must move by (plus a quarter of its reference texture).
        public var textureThreshold: Float
        /// Blocks added around each changed block, so that a region holds a code's quiet zone.
        public var margin: Int
        /// At most this many regions; more are merged into the rectangle around them.
        public var maximumRegions: Int

        public init(meanThreshold: Float = 10, textureThreshold: Float = 6, margin: Int = 1, maximumRegions: Int = 4) {
            precondition(meanThreshold > 0 && textureThreshold > 0 && margin >= 0 && maximumRegions >= 1)
            self.meanThreshold = meanThreshold
            self.textureThreshold = textureThreshold
            self.margin = margin
            self.maximumRegions = maximumRegions
        }
    }

    /// What differs between a frame and the reference.
    public enum Change: Sendable, Equatable {
        /// Nothing beyond noise and lighting.
        case none
        /// These rectangles changed (in pixels, each at least one block, grown by the margin, inside the frame).
        case regions([FrameRegion])
        /// There is no reference to compare with (the first frame, a new size), or the whole scene changed (the
        /// lights went out, the camera was moved): most blocks do not fit the brightness of the reference.
        case everything
    }

    public let configuration: Configuration
    /// What the frame is compared with: block by block, what the scanner last looked at.
    public private(set) var reference: FrameBlocks?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Where `frame` differs from the reference. Does not change the reference (see `looked(at:in:)`).
    public func compare(_ frame: FrameBlocks) -> Change {
        guard let reference, reference.columns == frame.columns, reference.rows == frame.rows,
            reference.width == frame.width, reference.height == frame.height
        else { return .everything }
        let count = frame.means.count
        // Brightness fit: least squares over every block, then over the blocks within 3 thresholds of the first fit.
        var fit = Self.fit(reference.means, frame.means, using: nil)
        var inliers = [Bool](repeating: true, count: count)
        var inlierCount = 0
        for block in 0..<count {
            let residual = frame.means[block] - (fit.gain * reference.means[block] + fit.offset)
            inliers[block] = abs(residual) <= 3 * configuration.meanThreshold
            if inliers[block] { inlierCount += 1 }
        }
        guard inlierCount * 2 >= count else { return .everything }
        fit = Self.fit(reference.means, frame.means, using: inliers)
        var changed = [Bool](repeating: false, count: count)
        var changedCount = 0
        for block in 0..<count {
            let meanResidual = abs(frame.means[block] - (fit.gain * reference.means[block] + fit.offset))
            let expectedTexture = fit.gain * reference.textures[block]
            let textureResidual = abs(frame.textures[block] - expectedTexture)
            if meanResidual > configuration.meanThreshold
                || textureResidual > configuration.textureThreshold + 0.25 * expectedTexture
            {
                changed[block] = true
                changedCount += 1
            }
        }
        guard changedCount > 0 else { return .none }
        guard changedCount * 2 < count else { return .everything }
        return .regions(regions(of: changed, in: frame))
    }

    /// Records that the scanner looked at `frame` inside `regions` (nil: the whole frame): those blocks become the
    /// reference. A frame of another size replaces the reference.
    public mutating func looked(at frame: FrameBlocks, in regions: [FrameRegion]?) {
        guard var updated = reference, updated.columns == frame.columns, updated.rows == frame.rows,
            updated.width == frame.width, updated.height == frame.height, let regions
        else {
            reference = frame
            return
        }
        for region in regions { updated.replace(in: region, from: frame) }
        reference = updated
    }

    /// Forgets the reference: the next frame is `.everything`.
    public mutating func reset() { reference = nil }

    /// `gain × reference + offset ≈ frame`, by least squares over the chosen blocks. A flat reference (too little
    /// spread of means to tell gain from offset) is fitted by an offset alone; the gain is kept within 0.5…2.
    static func fit(_ reference: [Float], _ frame: [Float], using chosen: [Bool]?) -> (gain: Float, offset: Float) {
        var n: Float = 0
        var sumX: Float = 0
        var sumY: Float = 0
        for block in reference.indices where chosen?[block] ?? true {
            n += 1
            sumX += reference[block]
            sumY += frame[block]
        }
        guard n > 0 else { return (1, 0) }
        let meanX = sumX / n
        let meanY = sumY / n
        var covariance: Float = 0
        var variance: Float = 0
        for block in reference.indices where chosen?[block] ?? true {
            let dx = reference[block] - meanX
            covariance += dx * (frame[block] - meanY)
            variance += dx * dx
        }
        guard variance / n >= 25 else { return (1, meanY - meanX) }
        let gain = min(2, max(0.5, covariance / variance))
        return (gain, meanY - gain * meanX)
    }

    /// The changed blocks grouped into rectangles: each grown by the margin, touching ones joined (flood fill over
    /// the grown mask), at most `maximumRegions` (else one rectangle around all).
    private func regions(of changed: [Bool], in frame: FrameBlocks) -> [FrameRegion] {
        let columns = frame.columns
        let rows = frame.rows
        let margin = configuration.margin
        var grown = [Bool](repeating: false, count: changed.count)
        for row in 0..<rows {
            for column in 0..<columns where changed[row * columns + column] {
                for r in max(0, row - margin)...min(rows - 1, row + margin) {
                    for c in max(0, column - margin)...min(columns - 1, column + margin) {
                        grown[r * columns + c] = true
                    }
                }
            }
        }
        var seen = [Bool](repeating: false, count: changed.count)
        var found: [FrameRegion] = []
        for start in grown.indices where grown[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var region = frame.region(column: start % columns, row: start / columns)
            while let block = stack.popLast() {
                let column = block % columns
                let row = block / columns
                region = region.union(frame.region(column: column, row: row))
                for (dc, dr) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let c = column + dc
                    let r = row + dr
                    guard c >= 0, r >= 0, c < columns, r < rows else { continue }
                    let next = r * columns + c
                    if grown[next] && !seen[next] {
                        seen[next] = true
                        stack.append(next)
                    }
                }
            }
            found.append(region)
        }
        if found.count > configuration.maximumRegions, let first = found.first {
            return [found.dropFirst().reduce(first) { $0.union($1) }]
        }
        return found
    }
}
