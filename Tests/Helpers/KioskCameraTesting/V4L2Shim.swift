internal import Foundation
internal import Synchronization

/// The V4L2 stand-in (`shim/kiosk-v4l2-shim.c`) that lets tests drive libzbar's real video path without a camera:
/// compiled on first use with the system C compiler and loaded into a child process with `LD_PRELOAD`.
public enum V4L2Shim {
    /// The device path the shim answers for by default.
    public static let device = "/dev/video-shim0"

    public struct BuildError: Error, CustomStringConvertible {
        public var description: String
    }

    private static let built = Mutex<String?>(nil)

    /// The path of the compiled shim library (built once per process, into a temporary directory).
    public static func library() throws -> String {
        try built.withLock { cached in
            if let cached { return cached }
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("shim/kiosk-v4l2-shim.c").path
            guard FileManager.default.fileExists(atPath: source) else {
                throw BuildError(description: "the shim's source is missing at \(source)")
            }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("kiosk-v4l2-shim-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = directory.appendingPathComponent("libkiosk-v4l2-shim.so").path
            var problems: [String] = []
            for compiler in ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"] + pathCompilers() {
                guard FileManager.default.isExecutableFile(atPath: compiler) else { continue }
                let result = try ChildProcess.run(
                    compiler, ["-shared", "-fPIC", "-O2", "-o", output, source, "-ldl", "-lpthread"],
                    timeout: 120)
                if result.status == 0, FileManager.default.fileExists(atPath: output) {
                    cached = output
                    return output
                }
                problems.append("\(compiler): \(result.standardError)")
            }
            throw BuildError(
                description: "no C compiler could build the V4L2 shim: \(problems.joined(separator: "; "))")
        }
    }

    private static func pathCompilers() -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/clang" }
    }

    /// The environment for a child process that should see the shim camera serving `frames` (PGM paths).
    public static func environment(
        frames: [String], fault: String? = nil, unplugAfter: Int? = nil,
        frameMicroseconds: Int = 2000, log: String? = nil
    ) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = try library()
        environment["KIOSK_V4L2_SHIM_DEVICE"] = device
        environment["KIOSK_V4L2_SHIM_FRAMES"] = frames.joined(separator: ":")
        environment["KIOSK_V4L2_SHIM_FRAME_US"] = "\(frameMicroseconds)"
        environment["KIOSK_V4L2_SHIM_FAULT"] = fault
        environment["KIOSK_V4L2_SHIM_UNPLUG_AFTER"] = unplugAfter.map { "\($0)" }
        environment["KIOSK_V4L2_SHIM_LOG"] = log
        return environment
    }
}
