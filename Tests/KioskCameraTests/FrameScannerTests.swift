import KioskCamera
import KioskCore
import KioskSimulation
import Testing

/// The camera's per-frame work (`FrameScanner`: change detection, libzbar where the frame changed, de-duplication)
/// against libzbar on every whole frame, on the rendered 1280×720 sequences the benchmark measures.
@Suite struct FrameScannerTests {
    struct Run {
        var rawFound = Set<String>()
        var found = Set<String>()
        var events: [String] = []
        var skipped = 0
        var regions = 0
        var whole = 0
    }

    /// Every frame of `sequence` through a `FrameScanner`, and through libzbar whole until it found every code the
    /// sequence shows (from then on raw libzbar cannot find anything more).
    static func run(_ sequence: CameraSequence) throws -> Run {
        let raw = try ZBarImageScanner()
        let scanner = try FrameScanner()
        var run = Run()
        for index in 0..<sequence.frameCount {
            let image = sequence.frame(index).image
            if run.rawFound.count < sequence.codes.count {
                run.rawFound.formUnion(try raw.scan(image).map(\.text))
            }
            let outcome = try scanner.frame(image, at: CameraSequence.frameInterval * index)
            run.found.formUnion(outcome.seen)
            run.events += outcome.newCodes
            switch outcome.plan {
            case .skip: run.skipped += 1
            case .regions: run.regions += 1
            case .wholeFrame: run.whole += 1
            }
        }
        return run
    }

    @Test(arguments: [CameraSequence.Kind.codeHeldStill, .codeMoving, .phoneScreen])
    func everyCodeRawLibzbarFindsIsFoundAndCountsOnce(kind: CameraSequence.Kind) throws {
        let sequence = CameraSequence(kind, seed: 1)
        let run = try Self.run(sequence)
        #expect(run.rawFound == Set(sequence.codes), "libzbar reads the rendered code")
        #expect(run.rawFound.isSubset(of: run.found))
        #expect(run.events == sequence.codes, "one event while the code is in view")
    }

    @Test func anEmptyEntranceIsAlmostNeverScanned() throws {
        let sequence = CameraSequence(.emptyScene, seed: 1)
        let run = try Self.run(sequence)
        #expect(run.found.isEmpty && run.events.isEmpty)
        #expect(run.regions == 0)
        // 150 frames (5 s): the first frame and the 2-second safety net.
        #expect(run.whole == 3)
        #expect(run.skipped == sequence.frameCount - 3)
    }

    @Test func aPersonWalkingByIsScannedWhereTheyAre() throws {
        let sequence = CameraSequence(.passerby, seed: 1)
        let run = try Self.run(sequence)
        #expect(run.found.isEmpty)
        // In view from about frame 3 to frame 95 of 120: scanned where they are, not scanned once gone.
        #expect(run.regions > 60)
        #expect(run.skipped > 10)
    }

    @Test func everyFrameWholeWithoutAPlanner() throws {
        let sequence = CameraSequence(.codeHeldStill, seed: 2)
        let scanner = try FrameScanner(planner: nil)
        for index in [0, 1, 50] {
            let outcome = try scanner.frame(sequence.frame(index).image, at: CameraSequence.frameInterval * index)
            #expect(outcome.plan == .wholeFrame(.safetyNet))
            #expect(outcome.seen == (index == 50 ? sequence.codes : []))
        }
    }

    /// The rendered 1280×720 sequences: the empty entrance (noise, drift over 5 s, against its first frame) never
    /// changes; a code held up changes the blocks around it and little else.
    @Test func renderedEntranceIsStillAndACodeIsFound() throws {
        let empty = CameraSequence(.emptyScene, seed: 3)
        let first = empty.frame(0).image
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(first.pixels, width: 1280, height: 720), in: nil)
        for index in stride(from: 10, to: empty.frameCount, by: 20) {
            let frame = empty.frame(index).image
            #expect(detector.compare(Self.blocks(frame.pixels, width: 1280, height: 720)) == .none, "frame \(index)")
        }
        let held = CameraSequence(.codeHeldStill, seed: 3)
        detector.looked(at: Self.blocks(held.frame(0).image.pixels, width: 1280, height: 720), in: nil)
        let frame = held.frame(60)
        let code = try #require(frame.codeRegion)
        guard case .regions(let regions) = detector.compare(Self.blocks(frame.image.pixels, width: 1280, height: 720))
        else {
            Issue.record("no change when a code came up")
            return
        }
        let around = regions.reduce(regions[0]) { $0.union($1) }
        #expect(around.union(code) == around, "the changed region holds the code")
        #expect(around.area < code.area * 3, "and not much more")
    }

    static func blocks(_ pixels: [UInt8], width: Int, height: Int) -> FrameBlocks {
        pixels.withUnsafeBufferPointer { FrameBlocks(pixels: $0, width: width, height: height) }
    }
}
