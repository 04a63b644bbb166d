internal import Foundation

/// Runs a helper process with a time limit, collecting its output. Helpers that overrun are killed with SIGKILL
/// (a process started from a test may ignore SIGTERM).
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
        /// The process was killed at the time limit.
        public var timedOut: Bool
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Double
    ) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outPath = directory.appendingPathComponent("out")
        let errPath = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        let out = try FileHandle(forWritingTo: outPath)
        let err = try FileHandle(forWritingTo: errPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        let output = (try? String(contentsOf: outPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errPath, encoding: .utf8)) ?? ""
        return Result(
            status: process.terminationStatus, standardOutput: output, standardError: errors, timedOut: timedOut)
    }

    /// The path of an executable of this package, built next to the test bundle by `swift build --build-tests`.
    public static func productPath(_ name: String, filePath: String = #filePath) throws -> String {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path]
        var bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<4 {  // inside an .xctest bundle on some layouts
            bundle.deleteLastPathComponent()
            candidates.append(bundle.path)
        }
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for directory in candidates {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw V4L2Shim.BuildError(description: "\(name) is not built: run `swift build --build-tests` first")
    }
}
