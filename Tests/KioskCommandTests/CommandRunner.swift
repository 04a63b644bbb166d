import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `kiosk` binary (it lies next to the test bundle in the build directory) as a subprocess.
enum CommandRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "no kiosk binary at \(path): build it with `swift build --build-tests`" }
    }

    struct TimedOut: Error {}

    /// The `kiosk` executable (or another of the package's, by name) beside this test bundle.
    static func binary(_ name: String = "kiosk") throws -> String {
        let bundle =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// Runs `kiosk arguments…` with `input` on standard input; killed (SIGKILL) after `timeout` seconds.
    /// `environment`'s variables are set over this process's.
    static func run(
        _ arguments: [String], input: String = "", timeout: TimeInterval = 120, environment: [String: String] = [:]
    ) throws -> Result {
        try run(executable: "kiosk", arguments, input: input, timeout: timeout, environment: environment)
    }

    /// Runs `kiosk-authority arguments…`, the health authority's command.
    static func authority(_ arguments: [String], input: String = "", timeout: TimeInterval = 120) throws -> Result {
        try run(executable: "kiosk-authority", arguments, input: input, timeout: timeout)
    }

    static func run(
        executable: String, _ arguments: [String], input: String, timeout: TimeInterval,
        environment: [String: String] = [:]
    ) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inPath = scratch.appendingPathComponent("in").path
        let outPath = scratch.appendingPathComponent("out").path
        let errPath = scratch.appendingPathComponent("err").path
        _ = FileManager.default.createFile(atPath: inPath, contents: Data(input.utf8))
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary(executable))
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle(forReadingAtPath: inPath)
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TimedOut()
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        let out = (FileManager.default.contents(atPath: outPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let err = (FileManager.default.contents(atPath: errPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return Result(status: process.terminationStatus, stdout: out, stderr: err)
    }

    /// A long-running `kiosk` (e.g. `authority serve`): started, then `waitForOutput` until a line appears.
    final class Background {
        let process = Process()
        let outPath: String
        private let scratch: URL

        init(_ arguments: [String], executable: String = "kiosk") throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-bg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            outPath = scratch.appendingPathComponent("out").path
            _ = FileManager.default.createFile(atPath: outPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: try CommandRunner.binary(executable))
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle(forWritingAtPath: outPath)
            process.standardError = FileHandle(forWritingAtPath: outPath)
            try process.run()
        }

        var output: String {
            FileManager.default.contents(atPath: outPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }

        /// Waits until the output contains `marker`; returns the output.
        func waitForOutput(containing marker: String, timeout: TimeInterval = 120) throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let text = output
                if text.contains(marker) { return text }
                guard process.isRunning else { break }
                usleep(50_000)
            }
            throw TimedOut()
        }

        /// Stops the process with SIGKILL: a process started from the test runner may ignore SIGTERM.
        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: scratch)
        }
    }
}
