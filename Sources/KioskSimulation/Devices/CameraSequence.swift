internal import Foundation
public import KioskCamera
public import KioskCore
internal import KioskPrinter

/// A deterministic stand-in for a recorded 1280×720 greyscale camera sequence at 30 frames a second: an entrance seen
/// by the kiosk's camera, rendered frame by frame from a seed (nothing large is stored). Every sequence has sensor
/// noise (about ±3.5 grey levels, Gaussian-like) and a slow drift of brightness and exposure; some add a person
/// walking by, a printed code held up (still with a trembling hand, or moving and turning), or a phone screen showing
/// a code (lower contrast, a bright screen, a moiré pattern). QR codes are libqrencode's (`QREncoder`).
///
/// Used by `kiosk-bench-camera`, the camera tests and `FrameFeedCamera.play(_:)`.
public struct CameraSequence: Sendable {
    /// What the camera sees.
    public enum Kind: String, Sendable, CaseIterable {
        /// Nobody there: noise and lighting drift only.
        case emptyScene = "empty scene"
        /// A person (a dark shape) walks through the picture.
        case passerby = "person walking by"
        /// A printed card with a code comes up, is held still (a trembling hand) and goes away.
        case codeHeldStill = "code held still"
        /// A printed card with a code moves across the picture, turning slowly.
        case codeMoving = "code moving"
        /// A phone showing a code on its screen comes up, is held and goes away.
        case phoneScreen = "phone screen"
    }

    /// One frame and what is in it.
    public struct Frame: Sendable {
        public var image: GreyImage
        /// The codes whose modules are all inside the picture in this frame (fully visible).
        public var fullyVisible: [String]
        /// The rectangle around the code's modules, cut to the picture (nil: no code in the picture).
        public var codeRegion: FrameRegion?
    }

    public let kind: Kind
    public let seed: UInt64
    public let width = 1280
    public let height = 720
    public let frameCount: Int
    /// The time between frames (30 frames a second).
    public static let frameInterval = Duration.microseconds(33_333)
    /// The codes the sequence shows (none for the empty scene and the person).
    public let codes: [String]

    private let background: [UInt8]
    private let noise: [Int8]
    private let matrix: QRMatrix?
    private let drift: (gainPhase: Double, offsetPhase: Double)

    /// Builds the sequence `kind` from `seed` (the same seed gives the same frames, on any machine).
    public init(_ kind: Kind, seed: UInt64 = 1) {
        self.kind = kind
        self.seed = seed
        var random = SplitMix64(seed: seed ^ UInt64(kind.hashSeed))
        frameCount = kind == .emptyScene ? 150 : 120
        drift = (random.unit() * 2 * .pi, random.unit() * 2 * .pi)
        background = Self.renderBackground(width: 1280, height: 720, random: &random)
        noise = (0..<(1 << 16) + 1280).map { _ in
            // The sum of four uniform values: close to a Gaussian, σ ≈ 3.5 grey levels.
            Int8((0..<4).reduce(0) { sum, _ in sum + Int(random.next() % 7) - 3 })
        }
        switch kind {
        case .emptyScene, .passerby:
            codes = []
            matrix = nil
        case .codeHeldStill, .codeMoving, .phoneScreen:
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let payload = String((0..<96).map { _ in alphabet[Int(random.next() % 64)] })
            let text = "https://e.coronawarn.app?v=1#CAESJQgBEg" + payload
            codes = [text]
            matrix = try? QREncoder.matrix(for: text, correction: .medium)
        }
    }

    /// The frame at `index` (0 ..< `frameCount`).
    public func frame(_ index: Int) -> Frame {
        precondition(index >= 0 && index < frameCount, "no such frame")
        let t = Double(index) / 30
        var pixels = background
        var visible: [String] = []
        var region: FrameRegion?
        switch kind {
        case .emptyScene:
            break
        case .passerby:
            drawPerson(into: &pixels, x: -260 + (Double(index) - 10) * 20)
        case .codeHeldStill, .codeMoving, .phoneScreen:
            if let matrix, let pose = pose(at: index) {
                let corners = draw(matrix, pose: pose, index: index, into: &pixels)
                if corners.allSatisfy({ $0.x >= 0 && $0.y >= 0 && $0.x < Double(width) && $0.y < Double(height) }) {
                    visible = codes
                }
                let left = max(0, Int(corners.map(\.x).min()!.rounded(.down)))
                let top = max(0, Int(corners.map(\.y).min()!.rounded(.down)))
                let right = min(width, Int(corners.map(\.x).max()!.rounded(.up)))
                let bottom = min(height, Int(corners.map(\.y).max()!.rounded(.up)))
                if left < right, top < bottom {
                    region = FrameRegion(x: left, y: top, width: right - left, height: bottom - top)
                }
            }
        }
        applyLightAndNoise(to: &pixels, index: index, t: t)
        return Frame(
            image: GreyImage(width: width, height: height, pixels: pixels), fullyVisible: visible, codeRegion: region)
    }

    // MARK: The scene

    /// Where the card or phone is: its centre, its rotation (radians) and the size of a module in pixels.
    struct Pose {
        var x: Double
        var y: Double
        var angle: Double
        var module: Double
    }

    /// The pose at the middle of frame `index`'s exposure, or nil when out of the picture.
    private func pose(at index: Int) -> Pose? { pose(atTime: Double(index)) }

    /// The pose at a (fractional) frame index.
    private func pose(atTime f: Double) -> Pose? {
        let tremble = (sin(f * 0.9 + Double(seed % 7)) * 0.35, cos(f * 1.3) * 0.35)
        switch kind {
        case .codeHeldStill:
            // Up from below in 12 frames, held (trembling) until frame 95, down and out by frame 108.
            let rest = 380.0
            let y: Double
            if f < 15 {
                return nil
            } else if f < 27 {
                y = 1050 - (1050 - rest) * (f - 15) / 12
            } else if f < 95 {
                y = rest
            } else if f < 108 {
                y = rest + (1050 - rest) * (f - 95) / 13
            } else {
                return nil
            }
            return Pose(x: 560 + tremble.0, y: y + tremble.1, angle: 0.06 + tremble.0 * 0.004, module: 5)
        case .codeMoving:
            // In from the left (frames 5–20), then waved slowly to the right (4 pixels a frame, bobbing, turning
            // ±10°), and out to the right from frame 100.
            let x: Double
            if f < 5 {
                return nil
            } else if f < 20 {
                x = -250 + 750 * (f - 5) / 15
            } else if f < 100 {
                x = 500 + 4 * (f - 20)
            } else if f < 115 {
                x = 820 + 700 * (f - 100) / 15
            } else {
                return nil
            }
            return Pose(x: x, y: 360 + 30 * sin(f / 8), angle: 0.17 * sin(f / 12), module: 5)
        case .phoneScreen:
            // In from the right in 10 frames, held (trembling) until frame 90, out to the right by frame 100.
            let rest = 820.0
            let x: Double
            if f < 20 {
                return nil
            } else if f < 30 {
                x = 1500 - (1500 - rest) * (f - 20) / 10
            } else if f < 90 {
                x = rest
            } else if f < 100 {
                x = rest + (1500 - rest) * (f - 90) / 10
            } else {
                return nil
            }
            return Pose(x: x + tremble.0, y: 340 + tremble.1, angle: -0.1 + tremble.1 * 0.004, module: 5)
        case .emptyScene, .passerby:
            return nil
        }
    }

    /// Draws the card (or phone) with `matrix` at the pose of frame `index`, with motion blur (four samples per
    /// pixel, spread over half a frame interval), and returns the corners of the code (its modules).
    private func draw(_ matrix: QRMatrix, pose: Pose, index: Int, into pixels: inout [UInt8]) -> [(
        x: Double, y: Double
    )] {
        let phone = kind == .phoneScreen
        let codeSpan = Double(matrix.size + 8)  // modules, with the quiet zone
        // Half-sizes in modules: a card is the code with a white border; a phone is a taller dark body with a screen.
        let halfWidth = phone ? codeSpan / 2 + 4 : codeSpan / 2 + 2
        let halfHeight = phone ? codeSpan : codeSpan / 2 + 2
        let samples: [(dx: Double, dy: Double, pose: Pose)] = [
            (-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25),
        ]
        .enumerated().map { k, offset in
            let time = Double(index) + (Double(k) - 1.5) / 6
            return (offset.0, offset.1, self.pose(atTime: time) ?? pose)
        }
        let reach = (halfWidth * halfWidth + halfHeight * halfHeight).squareRoot() * pose.module + 20
        let left = max(0, Int(pose.x - reach))
        let right = min(width - 1, Int(pose.x + reach))
        let top = max(0, Int(pose.y - reach))
        let bottom = min(height - 1, Int(pose.y + reach))
        if left <= right, top <= bottom {
            // Per sample: the transform from pixels to modules from the centre (u = a·x + b·y + c, v = d·x + e·y + f).
            // Written with plain loops and no generic calls: the tests render these frames in debug builds.
            var transform = [Double]()
            for sample in samples {
                let (cosine, sine) = (
                    cos(sample.pose.angle) / sample.pose.module, sin(sample.pose.angle) / sample.pose.module
                )
                let (ox, oy) = (sample.dx - sample.pose.x, sample.dy - sample.pose.y)
                transform += [cosine, sine, cosine * ox + sine * oy, -sine, cosine, -sine * ox + cosine * oy]
            }
            let size = matrix.size
            let modules = (0..<(size * size)).map { matrix[$0 % size, $0 / size] }
            let width = width
            let codeHalf = Double(size) / 2
            pixels.withUnsafeMutableBufferPointer { pixels in
                transform.withUnsafeBufferPointer { t in
                    modules.withUnsafeBufferPointer { modules in
                        var y = top
                        while y <= bottom {
                            var x = left
                            let fy = Double(y)
                            while x <= right {
                                let fx = Double(x)
                                let original = Int(pixels[y * width + x])
                                var total = 0
                                var covered = false
                                var k = 0
                                while k < 24 {
                                    let u = t[k] * fx + t[k + 1] * fy + t[k + 2]
                                    let v = t[k + 3] * fx + t[k + 4] * fy + t[k + 5]
                                    k += 6
                                    if u >= halfWidth || u <= -halfWidth || v >= halfHeight || v <= -halfHeight {
                                        total += original
                                        continue
                                    }
                                    covered = true
                                    let column = Int((u + codeHalf + 1000).rounded(.towardZero)) - 1000
                                    let row = Int((v + codeHalf + 1000).rounded(.towardZero)) - 1000
                                    let dark =
                                        column >= 0 && row >= 0 && column < size && row < size
                                        && modules[row * size + column]
                                    if phone {
                                        total += phoneShade(u: u, v: v, dark: dark, halfWidth: halfWidth, size: size)
                                    } else {
                                        total += dark ? 28 : 228
                                    }
                                }
                                if covered { pixels[y * width + x] = UInt8(total / 4) }
                                x += 1
                            }
                            y += 1
                        }
                    }
                }
            }
        }
        let half = Double(matrix.size) / 2 * pose.module
        let (c, s) = (cos(pose.angle), sin(pose.angle))
        return [(-half, -half), (half, -half), (-half, half), (half, half)].map { corner in
            (pose.x + c * corner.0 - s * corner.1, pose.y + s * corner.0 + c * corner.1)
        }
    }

    /// The grey level of a phone at (`u`, `v`) modules from its centre: a dark body around a bright screen; the
    /// screen shows a moiré pattern and a lower-contrast code.
    private func phoneShade(u: Double, v: Double, dark: Bool, halfWidth: Double, size: Int) -> Int {
        let edgeU = halfWidth - 2
        let edgeV = Double(size + 8) - 3
        if u >= edgeU || u <= -edgeU || v >= edgeV || v <= -edgeV { return 30 }
        let moire = Int(7 * sin(u * 2.7 + v * 1.1) + 4 * sin(u * 0.7 - v * 2.3))
        return dark ? 85 + moire : 246 + moire / 2
    }

    /// A dark figure (body and head) centred at `x`.
    private func drawPerson(into pixels: inout [UInt8], x: Double) {
        let left = max(0, Int(x - 150))
        let right = min(width - 1, Int(x + 150))
        guard left <= right else { return }
        let width = width
        let height = height
        pixels.withUnsafeMutableBufferPointer { pixels in
            var y = 0
            while y < height {
                let dy = Double(y)
                let stripes = 48 + Int(8 * sin(dy / 9))
                let bodyY = (dy - 470) / 330
                var px = left
                while px <= right {
                    let dx = Double(px) - x
                    let inHead = dx * dx + (dy - 90) * (dy - 90) < 65 * 65
                    let body = dx / 140
                    if inHead {
                        pixels[y * width + px] = 70
                    } else if body * body + bodyY * bodyY < 1 && dy > 150 {
                        pixels[y * width + px] = UInt8(stripes)
                    }
                    px += 1
                }
                y += 1
            }
        }
    }

    /// Brightness drift (gain ±6 % over about 6.5 s, offset ±5 levels over about 9 s) and sensor noise.
    private func applyLightAndNoise(to pixels: inout [UInt8], index: Int, t: Double) {
        let gain = Int((256 * (1 + 0.06 * sin(2 * .pi * t / 6.5 + drift.gainPhase))).rounded())
        let offset = Int((5 * sin(2 * .pi * t / 9 + drift.offsetPhase)).rounded())
        var rows = SplitMix64(seed: seed &* 0x9E37_79B9 &+ UInt64(index) &+ UInt64(kind.hashSeed) << 32)
        let width = width
        let height = height
        // The light as a table from grey level to grey level; plain loops and no generic calls (debug builds).
        let light = (0..<256).map { ($0 * gain + 128) >> 8 + offset }
        pixels.withUnsafeMutableBufferPointer { pixels in
            noise.withUnsafeBufferPointer { noise in
                light.withUnsafeBufferPointer { light in
                    var y = 0
                    var at = 0
                    while y < height {
                        var source = Int(rows.next() & 0xFFFF)
                        let end = at + width
                        while at < end {
                            var value = light[Int(pixels[at])] + Int(noise[source])
                            if value < 0 { value = 0 } else if value > 255 { value = 255 }
                            pixels[at] = UInt8(value)
                            at += 1
                            source += 1
                        }
                        y += 1
                    }
                }
            }
        }
    }

    /// The entrance: a wall with a light gradient, a door, a poster with lines of text, the floor.
    private static func renderBackground(width: Int, height: Int, random: inout SplitMix64) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var value = 150 + 25 * y / height + 10 * x / width
                if y > height * 3 / 4 { value = 105 + 20 * (y - height * 3 / 4) / (height / 4) }
                pixels[y * width + x] = UInt8(value)
            }
        }
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ value: UInt8) {
            for y in max(0, y0)..<min(height, y1) {
                for x in max(0, x0)..<min(width, x1) { pixels[y * width + x] = value }
            }
        }
        fill(880, 80, 1120, 540, 88)  // door frame
        fill(894, 94, 1106, 540, 128)  // door
        fill(1080, 300, 1094, 330, 200)  // handle
        fill(160, 130, 400, 450, 214)  // poster
        var line = 160
        while line < 420 {
            var x = 180
            while x < 380 {
                let word = 10 + Int(random.next() % 40)
                fill(x, line, min(380, x + word), line + 8, 60)
                x += word + 8
            }
            line += 18
        }
        fill(1180, 260, 1210, 300, 225)  // light switch
        return pixels
    }
}

extension CameraSequence.Kind {
    /// Mixes the kind into the seed, so that each kind has its own frames for one seed.
    fileprivate var hashSeed: UInt32 {
        switch self {
        case .emptyScene: 0x11
        case .passerby: 0x23
        case .codeHeldStill: 0x35
        case .codeMoving: 0x47
        case .phoneScreen: 0x59
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): small, fast, and the same on every machine — for simulated scenes and
/// for tests that play a seed again the same way.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0 ..< 1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
