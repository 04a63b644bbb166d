import Foundation
import KioskCore
import KioskDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// A `kiosk run --simulate` process for end-to-end tests, driven through its control socket like `kiosk simulate`.
final class SimulatedKiosk: @unchecked Sendable {
    let stateDirectory: String
    let process = Process()
    let log: String

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "the kiosk executable is not built: run `swift build --build-tests` first" }
    }

    struct NotReady: Error, CustomStringConvertible {
        let log: String
        var description: String { "the simulated kiosk did not become ready:\n\(log)" }
    }

    /// The `kiosk` executable (or another of the package's, by name) next to the test bundle.
    static func executable(_ name: String = "kiosk") throws -> String {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for directory in candidates {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw NotBuilt()
    }

    /// A fresh short state directory (the control socket's path must stay under 108 bytes).
    static func makeStateDirectory() throws -> String {
        let path = "/tmp/ksim-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Starts the kiosk on `stateDirectory` and waits until it answers. `environment` is added to this process's
    /// (configuration keys as `KIOSK_…` variables).
    init(stateDirectory: String, extraArguments: [String] = [], environment: [String: String] = [:]) async throws {
        self.stateDirectory = stateDirectory
        // A log of this run's own: a kiosk restarted on the same directory must not share (and delete) it.
        log = stateDirectory + "-" + UUID().uuidString.prefix(8).lowercased() + ".log"
        FileManager.default.createFile(atPath: log, contents: nil)
        let output = FileHandle(forWritingAtPath: log)
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        // The screen page on a free port unless a test chooses (several kiosks run side by side).
        let web =
            extraArguments.contains("--web") || extraArguments.contains("--config") ? [] : ["--web", "127.0.0.1:0"]
        process.arguments =
            ["run", "--simulate", "--state-dir", stateDirectory, "--log-level", "info"] + web + extraArguments
        process.standardOutput = output
        process.standardError = output
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try process.run()
        for _ in 0..<200 {
            if let status = try? await send(ControlRequest(command: "status")), status.ok { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw NotReady(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    func send(_ request: ControlRequest) async throws -> ControlResponse {
        let line = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        let answer = try await ControlSocketServer.request(
            line, to: KioskDaemon.controlSocketPath(stateDirectory: stateDirectory), timeout: .seconds(60))
        return try JSONDecoder().decode(ControlResponse.self, from: Data(answer.utf8))
    }

    func status() async throws -> DaemonStatus {
        let response = try await send(ControlRequest(command: "status"))
        return try JSONDecoder.iso8601.decode(DaemonStatus.self, from: Data((response.data ?? "").utf8))
    }

    /// SIGTERM, then waits for the process; returns its exit status.
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: no chance to clean up.
    func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: log)
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension ControlResponse {
    /// The light patterns shown, in order.
    var patterns: [String] { steps.filter { $0.type == "lights" }.compactMap(\.kind) }
    /// Whether the screen said there is news for the card (a warning): in words only, the tap's light is its own.
    var toldNews: Bool { steps.contains { $0.type == "shown" && $0.title == StationTexts().newsForCard.title } }
    /// The screen titles shown, in order.
    var titles: [String] { steps.filter { $0.type == "shown" }.compactMap(\.title) }
    /// The tap's outcome, if a tap was recorded.
    var tapOutcome: String? { steps.first { $0.type == "tap" }?.kind }
}
