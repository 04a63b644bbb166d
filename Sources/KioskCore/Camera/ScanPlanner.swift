/// Decides, frame by frame, whether the camera's frame is scanned for QR codes and where: the camera pays for change,
/// not for frames.
///
/// - While a code is in view (the de-duplication remembers one), every frame is scanned whole, so a code held still
///   keeps being seen and counts once, exactly as when every frame was scanned.
/// - Otherwise only where the frame changed against what was last scanned (`ChangeDetector`), plus, for `settleTime`
///   after a change, where it changed lately (a card that stops moving is sharp a frame or two after it stopped).
/// - A frame with nothing new is not scanned at all; a whole scan every `fullScanInterval` is the safety net for
///   anything the change detector did not see.
///
/// Times are the frames' times on a monotonic clock (any origin), given by the caller: the core reads no clock.
public struct ScanPlanner: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// The longest time between two whole-frame scans.
        public var fullScanInterval: Duration
        /// How long a changed region is scanned again after it stopped changing.
        public var settleTime: Duration
        /// When the regions to scan cover more than this share of the frame, the whole frame is scanned instead.
        public var wholeFrameShare: Double
        public var detector: ChangeDetector.Configuration

        public init(
            fullScanInterval: Duration = .seconds(2), settleTime: Duration = .milliseconds(200),
            wholeFrameShare: Double = 0.5, detector: ChangeDetector.Configuration = .init()
        ) {
            precondition(fullScanInterval > .zero && settleTime >= .zero && wholeFrameShare > 0)
            self.fullScanInterval = fullScanInterval
            self.settleTime = settleTime
            self.wholeFrameShare = wholeFrameShare
            self.detector = detector
        }
    }

    /// Why a whole frame is scanned.
    public enum WholeFrameReason: Sendable, Equatable {
        /// A code is in view: it is followed on every frame.
        case codeInView
        /// The safety net's turn (or the first frame).
        case safetyNet
        /// Most of the scene changed.
        case sceneChanged
    }

    /// What to do with one frame.
    public enum Plan: Sendable, Equatable {
        /// Nothing changed: the frame is not scanned (it shows no code).
        case skip
        /// Scan these rectangles of the frame (each with a margin around what changed).
        case regions([FrameRegion])
        /// Scan the whole frame.
        case wholeFrame(WholeFrameReason)
    }

    public let configuration: Configuration
    private var detector: ChangeDetector
    private var lastWholeScan: Duration?
    /// Regions that changed lately, and until when they are scanned again.
    private var settling: [(region: FrameRegion, until: Duration)] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        detector = ChangeDetector(configuration: configuration.detector)
    }

    /// The plan for `frame`, taken at `now`. The caller scans as planned: the planner takes what it planned to scan
    /// as the new reference. `codeInView`: the de-duplication remembers a code (`CodeDeduplicator.remembered > 0`).
    public mutating func plan(for frame: FrameBlocks, codeInView: Bool, at now: Duration) -> Plan {
        let change = detector.compare(frame)
        settling.removeAll { $0.until <= now }
        let wholeReason: WholeFrameReason?
        if let last = lastWholeScan, now - last < configuration.fullScanInterval, now >= last {
            wholeReason = codeInView ? .codeInView : nil
        } else {
            wholeReason = .safetyNet
        }
        var regions: [FrameRegion] = []
        switch change {
        case .everything:
            return scanWhole(frame, reason: wholeReason ?? .sceneChanged, at: now)
        case .none:
            break
        case .regions(let changed):
            regions = changed
            for region in changed { settling.append((region, now + configuration.settleTime)) }
        }
        if let wholeReason { return scanWhole(frame, reason: wholeReason, at: now) }
        for (region, _) in settling where !regions.contains(where: { $0 == region }) { regions.append(region) }
        regions = Self.merged(regions)
        guard !regions.isEmpty else { return .skip }
        let share = Double(regions.reduce(0) { $0 + $1.area }) / Double(frame.width * frame.height)
        if share > configuration.wholeFrameShare { return scanWhole(frame, reason: .sceneChanged, at: now) }
        detector.looked(at: frame, in: regions)
        return .regions(regions)
    }

    /// Forgets the reference and the schedule (a new camera stream): the next frame is scanned whole.
    public mutating func reset() {
        detector.reset()
        lastWholeScan = nil
        settling.removeAll()
    }

    private mutating func scanWhole(_ frame: FrameBlocks, reason: WholeFrameReason, at now: Duration) -> Plan {
        detector.looked(at: frame, in: nil)
        lastWholeScan = now
        return .wholeFrame(reason)
    }

    /// Overlapping rectangles joined until none overlap (a code across two regions is scanned in one piece).
    static func merged(_ regions: [FrameRegion]) -> [FrameRegion] {
        var result = regions
        var joined = true
        while joined {
            joined = false
            outer: for i in result.indices {
                for j in result.indices where j > i && result[i].intersects(result[j]) {
                    result[i] = result[i].union(result[j])
                    result.remove(at: j)
                    joined = true
                    break outer
                }
            }
        }
        return result
    }
}
