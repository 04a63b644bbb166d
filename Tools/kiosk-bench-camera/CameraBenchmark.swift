import CKioskZBarBaseline
import Foundation
import KioskCamera
import KioskCameraTesting
import KioskCore
import KioskSimulation

/// Benchmark: decode time per 640×480 grey frame through the kiosk's Swift pipeline (`ZBarImageScanner` plus the
/// camera's `CodeDeduplicator`, as `CameraScanner` runs it per frame) against libzbar called directly from C
/// (`zbar_image_create`, `zbar_image_set_format` Y800, `zbar_scan_image`), on the same frames in the same run,
/// interleaved (C, Swift, C, Swift, … with the order swapped every other round).
///
///     kiosk-bench-camera [--iterations N]
@main
struct CameraBenchmark {
    struct Series {
        var samples: [Double] = []  // milliseconds
        mutating func add(_ duration: Duration) { samples.append(duration.fractionalMilliseconds) }
        var mean: Double { samples.reduce(0, +) / Double(samples.count) }
        func percentile(_ p: Double) -> Double {
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
    }

    static func main() throws {
        var iterations = 300
        var arguments = Array(CommandLine.arguments.dropFirst())
        while arguments.count >= 2 {
            let option = arguments.removeFirst()
            let value = arguments.removeFirst()
            if option == "--iterations", let count = Int(value), count > 0 { iterations = count }
        }
        let clean = try QRFrame.render(
            text:
                "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ2VudHVyIE1ZGhNBbSBCYWhuaG9mIDEsIEJlcmxpbhp2CAESYIMBPzV9JXXpRwbS"
        )
        let frames: [(String, GreyImage)] = [
            ("clean code", clean),
            ("rotated 20° + blur", TestFrames.blurred(TestFrames.rotated(clean, degrees: 20), radius: 1)),
            ("noisy code (not found)", TestFrames.noisy(clean, amplitude: 40)),
            ("no code (noise)", TestFrames.noisy(TestFrames.blank(), amplitude: 60)),
        ]
        let scanner = try ZBarImageScanner()
        guard let baseline = ckiosk_baseline_scanner_create() else { throw ZBarError.outOfMemory }
        defer { ckiosk_baseline_scanner_destroy(baseline) }
        var deduplicator = CodeDeduplicator()
        let clock = ContinuousClock()

        print("kiosk-bench-camera: \(iterations) iterations × \(frames.count) frames, 640×480 grey")
        print(
            "| frame | C libzbar mean / p50 / p99 (ms) | Swift pipeline mean / p50 / p99 (ms) | ratio of means | ratio of p50 |"
        )
        print("|---|---|---|---|---|")
        var totalC = 0.0
        var totalSwift = 0.0
        for (name, frame) in frames {
            var c = Series()
            var swift = Series()
            var swiftLength = 0
            var cLength = 0
            for round in 0..<(iterations + 10) {
                let warmUp = round < 10
                for runSwift in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                    let start = clock.now
                    if runSwift {
                        let codes = (try? scanner.scan(frame)) ?? []
                        _ = deduplicator.frame(codes.map(\.text))
                        swiftLength = codes.reduce(0) { $0 + $1.bytes.count }
                        if !warmUp { swift.add(start.duration(to: clock.now)) }
                    } else {
                        cLength = frame.pixels.withUnsafeBufferPointer {
                            ckiosk_baseline_scan(baseline, $0.baseAddress, UInt32(frame.width), UInt32(frame.height))
                        }
                        if !warmUp { c.add(start.duration(to: clock.now)) }
                    }
                }
            }
            guard swiftLength == cLength else {
                print("MISMATCH on \(name): Swift found \(swiftLength) bytes, C \(cLength)")
                exit(1)
            }
            totalC += c.mean
            totalSwift += swift.mean
            func f(_ value: Double) -> String { String(format: "%.3f", value) }
            print(
                "| \(name) (\(cLength) bytes) | \(f(c.mean)) / \(f(c.percentile(0.5))) / \(f(c.percentile(0.99))) | "
                    + "\(f(swift.mean)) / \(f(swift.percentile(0.5))) / \(f(swift.percentile(0.99))) | "
                    + "\(String(format: "%.3f", swift.mean / c.mean))× | \(String(format: "%.3f", swift.percentile(0.5) / c.percentile(0.5)))× |"
            )
        }
        print("overall ratio of means (Swift / C): \(String(format: "%.3f", totalSwift / totalC))×")
    }
}
