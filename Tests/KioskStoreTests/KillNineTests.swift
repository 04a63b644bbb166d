import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// A real process taps cards in a burst and prints "ACK" after each durable commit; the test SIGKILLs it at random
/// moments, many times over the same state directory, and checks after each kill that the database is sound and
/// every acknowledged tap is there.
@Suite struct KillNineTests {
    /// The helper executable, built next to the test bundle by `swift build --build-tests`.
    static func helperPath() throws -> String {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for directory in candidates {
            let path = directory + "/kiosk-store-stress"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw HelperMissing()
    }

    struct HelperMissing: Error, CustomStringConvertible {
        var description: String { "kiosk-store-stress is not built: run `swift build --build-tests` first" }
    }

    struct Run {
        var cards: [CardSecret] = []
        var checkedIn: [String] = []
        var checkedOut: [String] = []
        var exitedByItself = false
    }

    /// Starts the helper and kills it with SIGKILL `delay` after it acknowledged its first tap (or, with
    /// `afterFirstAck` false, `delay` after its start, which may hit start-up), then parses what it acknowledged.
    static func runAndKill(helper: String, directory: String, delay: TimeInterval, afterFirstAck: Bool) throws -> Run {
        let output = directory + "/../" + URL(fileURLWithPath: directory).lastPathComponent + ".out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = [directory, "1000000", "8"]
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        if afterFirstAck {
            // Poll the output for the first ACK, with a deadline (a loaded machine starts processes slowly).
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline,
                !((try? String(contentsOfFile: output, encoding: .utf8))?.contains("ACK") ?? false)
            {
                usleep(2_000)
            }
        }
        Thread.sleep(forTimeInterval: delay)
        var run = Run()
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        } else {
            run.exitedByItself = true
        }
        // Every helper gets a deadline: SIGKILL cannot be ignored, so this only guards against a stuck kernel.
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        try handle.close()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parts = line.split(separator: " ")
            // A line cut by the kill has no newline; split keeps it, so accept only complete shapes.
            if parts.count == 2, parts[0] == "CARD" {
                run.cards.append(try CardSecret(printedText: String(parts[1])))
            } else if parts.count == 3, parts[0] == "ACK", parts[2].count == 32 {
                if parts[1] == "in" {
                    run.checkedIn.append(String(parts[2]))
                } else {
                    run.checkedOut.append(String(parts[2]))
                }
            }
        }
        return run
    }

    @Test func everyAcknowledgedTapSurvivesSIGKILL() throws {
        let helper = try Self.helperPath()
        let directory = TemporaryDirectory("kill9")
        defer { directory.remove() }
        let crypto = OpenSSLCrypto()
        var generator = SystemRandomNumberGenerator()
        var killedMidBurst = 0
        var acknowledged = 0
        let runs = 30
        for run in 0..<runs {
            // Most runs die during the burst; every fifth at a random moment from start-up on.
            let early = run % 5 == 0
            let delay = Double.random(in: early ? 0.0...0.4 : 0.0...0.3, using: &generator)
            let result = try Self.runAndKill(
                helper: helper, directory: directory.path, delay: delay, afterFirstAck: !early)
            #expect(!result.exitedByItself, "run \(run): the helper stopped before the kill")
            if !result.checkedIn.isEmpty { killedMidBurst += 1 }
            acknowledged += result.checkedIn.count + result.checkedOut.count

            let store = try SQLiteCheckInStore(directory: directory.path)
            #expect(try store.integrityCheck(), "run \(run): integrity_check failed")
            let desk = CheckInDesk(store: store, crypto: crypto)
            var found = [String: StaySummary]()
            for card in result.cards {
                for stay in try desk.stays(of: card, clock: ClockReading(now: Date(), isSynchronized: true)) {
                    found[stay.id.hex] = stay
                }
            }
            for id in result.checkedIn { #expect(found[id] != nil, "run \(run): acknowledged check-in lost") }
            for id in result.checkedOut { #expect(found[id]?.end != nil, "run \(run): acknowledged checkout lost") }
            try store.close()
        }
        // The kills must have hit the burst, not the start-up, in most runs.
        #expect(killedMidBurst >= runs / 2, "only \(killedMidBurst) of \(runs) kills happened during the burst")
        #expect(acknowledged >= runs * 4 / 5, "only \(acknowledged) taps acknowledged in \(runs) runs")
    }
}
