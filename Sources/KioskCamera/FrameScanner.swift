public import KioskCore

/// The camera's per-frame work, shared by the real camera (`CameraScanner`) and the simulated one: summarise the
/// frame (`FrameBlocks`), ask the `ScanPlanner` whether and where to look, run libzbar on those rectangles only (each
/// copied out as a sub-image) or on the whole frame, and pass what it found through the `CodeDeduplicator`.
///
/// With `planner` nil every frame is scanned whole (the behaviour before change detection, kept for comparisons).
/// Used from one thread.
public final class FrameScanner {
    /// What one frame gave.
    public struct Outcome: Sendable, Equatable {
        /// Codes that came into view with this frame (new events), in libzbar's order.
        public var newCodes: [String]
        /// Every code libzbar read in the scanned part of the frame.
        public var seen: [String]
        /// What was scanned.
        public var plan: ScanPlanner.Plan
    }

    private let scanner: ZBarImageScanner
    private var planner: ScanPlanner?
    private var deduplicator: CodeDeduplicator
    private var crop: [UInt8] = []
    /// Frames handled so far.
    public private(set) var frames = 0

    /// - Parameters:
    ///   - framesToForget: consecutive frames without a code after which it counts as gone (`CodeDeduplicator`).
    ///   - planner: when to scan and where; nil scans every frame whole.
    public init(framesToForget: Int = 8, planner: ScanPlanner.Configuration? = ScanPlanner.Configuration())
        throws(ZBarError)
    {
        scanner = try ZBarImageScanner()
        self.planner = planner.map { ScanPlanner(configuration: $0) }
        deduplicator = CodeDeduplicator(framesToForget: framesToForget)
    }

    /// Handles `image`, taken at `time` on a monotonic clock (any origin; frames in order).
    public func frame(_ image: GreyImage, at time: Duration) throws(ZBarError) -> Outcome {
        guard image.pixels.count == image.width * image.height else { throw .invalidImage }
        return try image.pixels.withUnsafeBufferPointer { pixels throws(ZBarError) -> Outcome in
            try frame(pixels: pixels, width: image.width, height: image.height, at: time)
        }
    }

    /// Handles an 8-bit grey frame someone else owns (a camera buffer, `width × height` bytes row by row), taken at
    /// `time` on a monotonic clock (any origin; frames in order).
    public func frame(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, at time: Duration)
        throws(ZBarError) -> Outcome
    {
        guard width > 0, height > 0, pixels.count >= width * height else { throw .invalidImage }
        let plan: ScanPlanner.Plan
        if planner != nil {
            let blocks = FrameBlocks(pixels: pixels, width: width, height: height)
            plan = planner!.plan(for: blocks, codeInView: deduplicator.remembered > 0, at: time)
        } else {
            plan = .wholeFrame(.safetyNet)
        }
        var seen: [String] = []
        switch plan {
        case .skip:
            break
        case .wholeFrame:
            seen = try scanner.scan(pixels: pixels, width: width, height: height).map(\.text)
        case .regions(let regions):
            for region in regions { seen += try scan(region, of: pixels, width: width) }
        }
        frames += 1
        return Outcome(newCodes: deduplicator.frame(seen), seen: seen, plan: plan)
    }

    /// Counts a frame known to show no code (nothing in view of a simulated camera) without looking at it.
    public func emptyFrame() {
        frames += 1
        _ = deduplicator.frame([])
    }

    /// Starts over (a new camera stream): the next frame is scanned whole; codes in view are still remembered.
    public func restart() { planner?.reset() }

    /// How many codes are remembered as in view.
    public var codesInView: Int { deduplicator.remembered }

    /// libzbar on `region` of the frame, copied out as an image of its own.
    private func scan(_ region: FrameRegion, of pixels: UnsafeBufferPointer<UInt8>, width: Int) throws(ZBarError)
        -> [String]
    {
        guard region.width > 0, region.height > 0 else { return [] }
        let count = region.width * region.height
        if crop.count < count { crop = [UInt8](repeating: 0, count: count) }
        crop.withUnsafeMutableBufferPointer { crop in
            for row in 0..<region.height {
                let source = UnsafeBufferPointer(
                    rebasing: pixels[((region.y + row) * width + region.x)...].prefix(region.width))
                _ = UnsafeMutableBufferPointer(rebasing: crop[(row * region.width)...].prefix(region.width))
                    .initialize(fromContentsOf: source)
            }
        }
        return try crop.withUnsafeBufferPointer { crop throws(ZBarError) -> [String] in
            try scanner.scan(
                pixels: UnsafeBufferPointer(rebasing: crop.prefix(count)), width: region.width,
                height: region.height
            ).map(\.text)
        }
    }
}
