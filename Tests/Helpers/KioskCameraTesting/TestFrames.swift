internal import Foundation
public import KioskCamera

/// Camera frames for tests: written as binary PGM (what the V4L2 shim serves), rotated and blurred like a card
/// held at an angle or slightly out of focus.
public enum TestFrames {
    /// A uniform frame (no code in view).
    public static func blank(width: Int = 640, height: Int = 480, grey: UInt8 = 200) -> GreyImage {
        GreyImage(width: width, height: height, pixels: [UInt8](repeating: grey, count: width * height))
    }

    /// Writes `image` as a binary PGM (P5, maxval 255).
    public static func writePGM(_ image: GreyImage, to path: String) throws {
        var data = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.pixels)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// `image` rotated by `degrees` about its centre (bilinear sampling); corners that come from outside the image are
    /// filled with `background`.
    public static func rotated(_ image: GreyImage, degrees: Double, background: UInt8 = 235) -> GreyImage {
        let angle = degrees * .pi / 180
        let cosine = cos(angle)
        let sine = sin(angle)
        let cx = Double(image.width - 1) / 2
        let cy = Double(image.height - 1) / 2
        var pixels = [UInt8](repeating: background, count: image.pixels.count)
        func sample(_ x: Int, _ y: Int) -> Double {
            guard x >= 0, y >= 0, x < image.width, y < image.height else { return Double(background) }
            return Double(image.pixels[y * image.width + x])
        }
        for y in 0..<image.height {
            for x in 0..<image.width {
                let dx = Double(x) - cx
                let dy = Double(y) - cy
                let sx = cosine * dx + sine * dy + cx
                let sy = -sine * dx + cosine * dy + cy
                let x0 = Int(sx.rounded(.down))
                let y0 = Int(sy.rounded(.down))
                let fx = sx - Double(x0)
                let fy = sy - Double(y0)
                let value =
                    sample(x0, y0) * (1 - fx) * (1 - fy) + sample(x0 + 1, y0) * fx * (1 - fy)
                    + sample(x0, y0 + 1) * (1 - fx) * fy + sample(x0 + 1, y0 + 1) * fx * fy
                pixels[y * image.width + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return GreyImage(width: image.width, height: image.height, pixels: pixels)
    }

    /// `image` blurred with a box filter of `radius` pixels (applied horizontally, then vertically).
    public static func blurred(_ image: GreyImage, radius: Int) -> GreyImage {
        func pass(_ source: [UInt8], horizontal: Bool) -> [UInt8] {
            var result = source
            for y in 0..<image.height {
                for x in 0..<image.width {
                    var sum = 0
                    var count = 0
                    for offset in -radius...radius {
                        let sx = horizontal ? x + offset : x
                        let sy = horizontal ? y : y + offset
                        guard sx >= 0, sy >= 0, sx < image.width, sy < image.height else { continue }
                        sum += Int(source[sy * image.width + sx])
                        count += 1
                    }
                    result[y * image.width + x] = UInt8(sum / count)
                }
            }
            return result
        }
        let pixels = pass(pass(image.pixels, horizontal: true), horizontal: false)
        return GreyImage(width: image.width, height: image.height, pixels: pixels)
    }

    /// `image` with deterministic pseudo-random noise of up to ± `amplitude` grey levels (sensor noise).
    public static func noisy(_ image: GreyImage, amplitude: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> GreyImage {
        var state = seed
        let pixels = image.pixels.map { pixel -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int(state >> 33) % (2 * amplitude + 1) - amplitude
            return UInt8(max(0, min(255, Int(pixel) + noise)))
        }
        return GreyImage(width: image.width, height: image.height, pixels: pixels)
    }
}
