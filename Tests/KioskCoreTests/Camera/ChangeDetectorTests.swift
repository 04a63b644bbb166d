import Testing

@testable import KioskCore

@Suite struct ChangeDetectorTests {
    /// A 640×480 scene: a horizontal gradient with a darker rectangle, optionally with noise of ± `noise` levels,
    /// brightness `gain` × value + `offset`, and a checkerboard patch (8-pixel squares) at `patch`.
    static func scene(
        noise: Int = 0, seed: UInt64 = 1, gain: Double = 1, offset: Double = 0, patch: FrameRegion? = nil
    ) -> [UInt8] {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: 640 * 480)
        for y in 0..<480 {
            for x in 0..<640 {
                var value = Double(90 + x / 8)
                if (100..<300).contains(x) && (200..<400).contains(y) { value = 60 }
                if let patch, (patch.x..<patch.x + patch.width).contains(x),
                    (patch.y..<patch.y + patch.height).contains(y)
                {
                    value = ((x - patch.x) / 8 + (y - patch.y) / 8).isMultiple(of: 2) ? 25 : 230
                }
                value = value * gain + offset
                if noise > 0 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    value += Double(Int(state >> 33) % (2 * noise + 1) - noise)
                }
                pixels[y * 640 + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return pixels
    }

    static func blocks(_ pixels: [UInt8], width: Int = 640, height: Int = 480) -> FrameBlocks {
        pixels.withUnsafeBufferPointer { FrameBlocks(pixels: $0, width: width, height: height) }
    }

    @Test func blockMeansAndTexturesOfKnownFrames() {
        let flat = Self.blocks([UInt8](repeating: 100, count: 64 * 40), width: 64, height: 40)
        #expect(flat.columns == 2 && flat.rows == 2)
        #expect(flat.means == [100, 100, 100, 100])
        #expect(flat.textures == [0, 0, 0, 0])
        #expect(flat.region(column: 1, row: 1) == FrameRegion(x: 32, y: 32, width: 32, height: 8))
        // Columns alternating 0 and 255 every 2 pixels: sampled every 2nd pixel, neighbours always differ by 255.
        let stripes = (0..<(64 * 40)).map { UInt8(($0 % 64) / 2 % 2 == 0 ? 0 : 255) }
        let striped = Self.blocks(stripes, width: 64, height: 40)
        #expect(striped.means.allSatisfy { abs($0 - 127.5) < 0.01 })
        #expect(striped.textures.allSatisfy { $0 == 255 })
    }

    @Test func noReferenceIsEverything() {
        #expect(ChangeDetector().compare(Self.blocks(Self.scene())) == .everything)
    }

    @Test func sensorNoiseIsNoChange() {
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(Self.scene(noise: 12, seed: 1)), in: nil)
        for seed in UInt64(2)...5 {
            #expect(detector.compare(Self.blocks(Self.scene(noise: 12, seed: seed))) == .none)
        }
    }

    @Test(arguments: [(1.12, 0.0), (0.9, 0.0), (1.0, 18.0), (1.08, -12.0)])
    func lightingDriftIsNoChange(gain: Double, offset: Double) {
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(Self.scene(noise: 4, seed: 1)), in: nil)
        let drifted = Self.scene(noise: 4, seed: 2, gain: gain, offset: offset)
        #expect(detector.compare(Self.blocks(drifted)) == .none)
    }

    @Test func aCodeAppearingIsFoundWhereItIs() {
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(Self.scene(noise: 4, seed: 1)), in: nil)
        // A patch on block boundaries: exactly its blocks change; the region is them plus one block of margin.
        let patch = FrameRegion(x: 320, y: 160, width: 64, height: 64)
        let change = detector.compare(Self.blocks(Self.scene(noise: 4, seed: 2, gain: 1.05, patch: patch)))
        #expect(change == .regions([FrameRegion(x: 288, y: 128, width: 128, height: 128)]))
    }

    @Test func twoCodesApartAreTwoRegions() {
        var detector = ChangeDetector(configuration: .init(margin: 0))
        detector.looked(at: Self.blocks(Self.scene()), in: nil)
        var frame = Self.scene(patch: FrameRegion(x: 32, y: 32, width: 64, height: 64))
        let other = Self.scene(patch: FrameRegion(x: 480, y: 320, width: 96, height: 64))
        for y in 320..<384 { for x in 480..<576 { frame[y * 640 + x] = other[y * 640 + x] } }
        guard case .regions(let regions) = detector.compare(Self.blocks(frame)) else {
            Issue.record("no regions")
            return
        }
        #expect(
            Set(regions) == [
                FrameRegion(x: 32, y: 32, width: 64, height: 64), FrameRegion(x: 480, y: 320, width: 96, height: 64),
            ])
    }

    @Test func lookingUpdatesOnlyTheScannedRegions() {
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(Self.scene()), in: nil)
        let patch = FrameRegion(x: 320, y: 160, width: 64, height: 64)
        let withPatch = Self.blocks(Self.scene(patch: patch))
        guard case .regions(let regions) = detector.compare(withPatch) else {
            Issue.record("no change")
            return
        }
        detector.looked(at: withPatch, in: regions)
        #expect(detector.compare(withPatch) == .none)
        // The patch going away is a change again.
        #expect(detector.compare(Self.blocks(Self.scene())) != .none)
    }

    @Test func aWholeNewSceneIsEverything() {
        var detector = ChangeDetector()
        detector.looked(at: Self.blocks(Self.scene()), in: nil)
        let covered = Self.scene(patch: FrameRegion(x: 0, y: 0, width: 640, height: 480))
        #expect(detector.compare(Self.blocks(covered)) == .everything)
        var inverted = Self.scene()
        for index in inverted.indices { inverted[index] = 255 - inverted[index] }
        #expect(detector.compare(Self.blocks(inverted)) == .everything)
    }
}

@Suite struct ScanPlannerTests {
    static let still = ChangeDetectorTests.blocks(ChangeDetectorTests.scene(noise: 4, seed: 1))
    static let noisy = ChangeDetectorTests.blocks(ChangeDetectorTests.scene(noise: 4, seed: 2))
    static let withCode = ChangeDetectorTests.blocks(
        ChangeDetectorTests.scene(noise: 4, seed: 3, patch: FrameRegion(x: 320, y: 160, width: 64, height: 64)))
    static let codeRegion = FrameRegion(x: 288, y: 128, width: 128, height: 128)

    @Test func firstFrameWholeThenOnlyWhatChangesAndASafetyNet() {
        var planner = ScanPlanner(configuration: .init(fullScanInterval: .seconds(2), settleTime: .milliseconds(100)))
        #expect(planner.plan(for: Self.still, codeInView: false, at: .zero) == .wholeFrame(.safetyNet))
        #expect(planner.plan(for: Self.noisy, codeInView: false, at: .milliseconds(33)) == .skip)
        #expect(
            planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(66)) == .regions([Self.codeRegion]))
        // Still settling: the region is scanned again although it did not change.
        #expect(
            planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(99)) == .regions([Self.codeRegion]))
        #expect(planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(200)) == .skip)
        #expect(planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(1999)) == .skip)
        #expect(planner.plan(for: Self.withCode, codeInView: false, at: .seconds(2)) == .wholeFrame(.safetyNet))
        #expect(planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(2033)) == .skip)
    }

    @Test func aCodeInViewIsFollowedOnEveryFrame() {
        var planner = ScanPlanner()
        _ = planner.plan(for: Self.still, codeInView: false, at: .zero)
        for frame in 1...10 {
            #expect(
                planner.plan(for: Self.withCode, codeInView: true, at: .milliseconds(33 * frame))
                    == .wholeFrame(.codeInView))
        }
        #expect(planner.plan(for: Self.withCode, codeInView: false, at: .milliseconds(400)) == .skip)
    }

    @Test func aLargeChangeIsAWholeScanAndTimeGoingBackIsASafetyScan() {
        var planner = ScanPlanner()
        _ = planner.plan(for: Self.still, codeInView: false, at: .seconds(10))
        let big = ChangeDetectorTests.blocks(
            ChangeDetectorTests.scene(noise: 4, seed: 3, patch: FrameRegion(x: 0, y: 0, width: 400, height: 300)))
        #expect(planner.plan(for: big, codeInView: false, at: .milliseconds(10_033)) == .wholeFrame(.sceneChanged))
        #expect(planner.plan(for: big, codeInView: false, at: .zero) == .wholeFrame(.safetyNet))
        planner.reset()
        #expect(planner.plan(for: big, codeInView: false, at: .milliseconds(33)) == .wholeFrame(.safetyNet))
    }

    @Test func overlappingRegionsAreJoined() {
        let a = FrameRegion(x: 0, y: 0, width: 100, height: 100)
        let b = FrameRegion(x: 50, y: 50, width: 100, height: 100)
        let c = FrameRegion(x: 400, y: 400, width: 10, height: 10)
        #expect(ScanPlanner.merged([a, c, b]) == [FrameRegion(x: 0, y: 0, width: 150, height: 150), c])
    }
}
