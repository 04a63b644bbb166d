import CKioskZBarBaseline
import Foundation
import KioskCamera
import KioskCore
import KioskSimulation

/// Benchmark: the camera's cost and speed on 1280×720 sequences at 30 frames a second (`CameraSequence`: an empty
/// entrance with sensor noise and lighting drift, a person walking by, a code held still, a code moving, a phone
/// screen), the kiosk's pipeline (`FrameScanner`: change detection, libzbar where the frame changed, a whole-frame
/// scan every 2 s and on every frame while a code is in view) against raw libzbar on every whole frame, called from C
/// (`Tools/CKioskZBarBaseline`, QR only), on the same frames, alternating which runs first.
///
/// Per sequence: CPU time (this thread's, `CLOCK_THREAD_CPUTIME_ID`) per second of video for each; the latency from
/// a code's first fully visible frame to its decoding (video time: frames × 33.3 ms, plus the decoding frame's
/// processing); the codes each found. Frame rendering is not measured.
///
///     kiosk-bench-camera [--seeds N]
@main
struct CameraBenchmark {
    struct Tally {
        var cpu: Duration = .zero
        var found = Set<String>()
        var firstDecoded: [String: (frame: Int, cpu: Duration)] = [:]
    }

    struct Row {
        var kind: CameraSequence.Kind
        var seconds = 0.0
        var raw = Duration.zero
        var pipeline = Duration.zero
        var skipped = 0
        var regions = 0
        var whole = 0
        var frames = 0
        var rawLatencies: [Double] = []
        var latencies: [Double] = []
        /// Pipeline latency minus raw libzbar's, per code both decoded.
        var delays: [Double] = []
        var rawCodes = 0
        var codes = 0
        var missed = 0
    }

    static func threadCPU() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    static func main() throws {
        var seeds = 3
        var arguments = Array(CommandLine.arguments.dropFirst())
        while arguments.count >= 2 {
            let option = arguments.removeFirst()
            let value = arguments.removeFirst()
            if option == "--seeds", let count = Int(value), count > 0 { seeds = count }
        }
        guard let baseline = ckiosk_baseline_scanner_create() else { throw ZBarError.outOfMemory }
        defer { ckiosk_baseline_scanner_destroy(baseline) }
        var buffer = [CChar](repeating: 0, count: 8192)
        let frameMilliseconds = CameraSequence.frameInterval.fractionalMilliseconds

        print(
            "kiosk-bench-camera: \(seeds) seed(s) × \(CameraSequence.Kind.allCases.count) sequences, 1280×720 grey, 30 fps"
        )
        var rows: [Row] = CameraSequence.Kind.allCases.map { Row(kind: $0) }
        for seed in 1...UInt64(seeds) {
            for (kindIndex, kind) in CameraSequence.Kind.allCases.enumerated() {
                let sequence = CameraSequence(kind, seed: seed)
                let scanner = try FrameScanner()
                var raw = Tally()
                var pipeline = Tally()
                var firstVisible: [String: Int] = [:]
                for index in 0..<sequence.frameCount {
                    let frame = sequence.frame(index)
                    for code in frame.fullyVisible where firstVisible[code] == nil { firstVisible[code] = index }
                    try frame.image.pixels.withUnsafeBufferPointer { pixels in
                        for runPipeline in index.isMultiple(of: 2) ? [false, true] : [true, false] {
                            let start = threadCPU()
                            let codes: [String]
                            if runPipeline {
                                let outcome = try scanner.frame(
                                    pixels: pixels, width: sequence.width, height: sequence.height,
                                    at: CameraSequence.frameInterval * index)
                                codes = outcome.seen
                                switch outcome.plan {
                                case .skip: rows[kindIndex].skipped += 1
                                case .regions: rows[kindIndex].regions += 1
                                case .wholeFrame: rows[kindIndex].whole += 1
                                }
                            } else {
                                let count = buffer.withUnsafeMutableBufferPointer { out in
                                    ckiosk_baseline_scan_codes(
                                        baseline, pixels.baseAddress, UInt32(sequence.width),
                                        UInt32(sequence.height), out.baseAddress, out.count)
                                }
                                codes = texts(in: buffer, count: count)
                            }
                            let spent = threadCPU() - start
                            if runPipeline {
                                pipeline.cpu += spent
                                record(codes, frame: index, cpu: spent, in: &pipeline)
                            } else {
                                raw.cpu += spent
                                record(codes, frame: index, cpu: spent, in: &raw)
                            }
                        }
                    }
                }
                func latency(_ tally: Tally, _ code: String) -> Double? {
                    guard let visible = firstVisible[code], let decoded = tally.firstDecoded[code] else { return nil }
                    return Double(decoded.frame - visible) * frameMilliseconds + decoded.cpu.fractionalMilliseconds
                }
                rows[kindIndex].frames += sequence.frameCount
                rows[kindIndex].seconds += Double(sequence.frameCount) * frameMilliseconds / 1000
                rows[kindIndex].raw += raw.cpu
                rows[kindIndex].pipeline += pipeline.cpu
                rows[kindIndex].rawCodes += raw.found.count
                rows[kindIndex].codes += pipeline.found.count
                rows[kindIndex].missed += raw.found.subtracting(pipeline.found).count
                for code in sequence.codes {
                    let rawLatency = latency(raw, code)
                    let pipelineLatency = latency(pipeline, code)
                    if let rawLatency { rows[kindIndex].rawLatencies.append(rawLatency) }
                    if let pipelineLatency { rows[kindIndex].latencies.append(pipelineLatency) }
                    if let rawLatency, let pipelineLatency {
                        rows[kindIndex].delays.append(pipelineLatency - rawLatency)
                    }
                }
            }
        }

        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        func list(_ values: [Double]) -> String {
            values.isEmpty ? "–" : values.map { f($0, 0) }.joined(separator: ", ")
        }
        print(
            "| sequence | video | raw libzbar CPU per s of video | pipeline CPU per s of video | pipeline / raw "
                + "| frames skipped / regions / whole | latency raw (ms) | latency pipeline (ms) | codes raw / pipeline / missed |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        var allLatencies: [Double] = []
        var allRawLatencies: [Double] = []
        var allDelays: [Double] = []
        var missed = 0
        for row in rows {
            let rawPerSecond = row.raw.fractionalMilliseconds / row.seconds
            let pipelinePerSecond = row.pipeline.fractionalMilliseconds / row.seconds
            print(
                "| \(row.kind.rawValue) | \(f(row.seconds)) s | \(f(rawPerSecond)) ms | \(f(pipelinePerSecond)) ms "
                    + "| \(f(pipelinePerSecond / rawPerSecond, 3))× | \(row.skipped) / \(row.regions) / \(row.whole) "
                    + "| \(list(row.rawLatencies)) | \(list(row.latencies)) | \(row.rawCodes) / \(row.codes) / \(row.missed) |"
            )
            allLatencies += row.latencies
            allRawLatencies += row.rawLatencies
            allDelays += row.delays
            missed += row.missed
        }
        let empty = rows.first { $0.kind == .emptyScene }!
        let emptyRatio = empty.pipeline.fractionalMilliseconds / empty.raw.fractionalMilliseconds
        func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
        print("empty scene: pipeline / raw CPU = \(f(emptyRatio, 3))× (goal ≤ 0.100×)")
        print(
            "latency from the first fully visible frame, median over \(allLatencies.count) codes: pipeline "
                + "\(f(median(allLatencies))) ms (goal ≤ 100 ms), raw libzbar \(f(median(allRawLatencies))) ms; "
                + "pipeline minus raw: median \(f(median(allDelays))) ms, worst \(f(allDelays.max() ?? .nan)) ms")
        print("codes raw libzbar found that the pipeline missed: \(missed) (goal 0)")
        if missed > 0 { exit(1) }
    }

    static func record(_ codes: [String], frame: Int, cpu: Duration, in tally: inout Tally) {
        for code in codes {
            tally.found.insert(code)
            if tally.firstDecoded[code] == nil { tally.firstDecoded[code] = (frame, cpu) }
        }
    }

    /// The first `count` NUL-separated texts `ckiosk_baseline_scan_codes` wrote.
    static func texts(in buffer: [CChar], count: Int) -> [String] {
        var result: [String] = []
        var start = 0
        while result.count < count, start < buffer.count {
            let end = buffer[start...].firstIndex(of: 0) ?? buffer.count
            result.append(String(decoding: buffer[start..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self))
            start = end + 1
        }
        return result
    }
}
