import Foundation
import KioskCore
import KioskDaemon
import KioskGPIO
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Benchmarks of the daemon, on simulated hardware with the real libnfc, libzbar and SQLite:
/// 1. card placed on the (emulated) reader → durable check-in → light command, over many taps, in process;
/// 2. start → ready and idle resident memory of the real `kiosk run --simulate` process;
/// 3. `lights [taps] [interval-ms] [--wait-for-lights]`: taps arriving back to back while the board's light patterns
///    play in real time (`LightsBenchmark`); `--wait-for-lights` makes the station wait for each pattern, as before
///    the lights played beside it;
/// 4. `warnings [records] [relevant] [kiosk]`: the peak memory a warnings sync adds to the real daemon process, with a
///    package of `records` records served over loopback HTTP (`WarningsBenchmark`).
@main
struct DaemonBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "lights" {
            let numbers = arguments.dropFirst(2).compactMap { Int($0) }
            let taps = numbers.first ?? 1000
            let interval = numbers.dropFirst().first ?? 300
            try await LightsBenchmark.run(
                taps: taps, interval: .milliseconds(interval),
                waitingForLights: arguments.contains("--wait-for-lights"))
            return
        }
        if arguments.count > 1, arguments[1] == "warnings" {
            let numbers = arguments.dropFirst(2).compactMap { Int($0) }
            let kiosk =
                arguments.dropFirst(2).first { Int($0) == nil }
                ?? URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().path + "/kiosk"
            try await WarningsBenchmark.run(
                kiosk: kiosk, records: numbers.first ?? 1_000_000, relevant: numbers.dropFirst().first ?? 1000)
            return
        }
        let taps = arguments.count > 1 ? Int(arguments[1]) ?? 1000 : 1000
        let kiosk =
            arguments.count > 2
            ? arguments[2] : URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().path + "/kiosk"
        try await tapLatency(taps: taps)
        guard FileManager.default.isExecutableFile(atPath: kiosk) else {
            print("No kiosk executable at \(kiosk): start → ready and idle memory not measured.")
            return
        }
        try await processStartAndMemory(kiosk: kiosk)
    }

    static func tapLatency(taps: Int) async throws {
        let directory = "/tmp/kbench-" + UUID().uuidString.prefix(8).lowercased()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = DaemonSettings(stateDirectory: directory, simulate: true, metricsListen: nil)
        settings.station.staffCode = "KIOSK-STAFF:BENCH"
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let hardware = try SimulatedHardware(settings: settings)
        let daemon = try KioskDaemon(settings: settings, devices: hardware.devices, logger: logger)
        let running = Task { try await daemon.run() }
        let (reader, lights, clock) = (hardware.reader, hardware.lights, hardware.clock)

        // Set up: staff mode, bind a venue, enrol cards.
        _ = await daemon.loop.handle(.codeScanned("KIOSK-STAFF:BENCH"))
        let fields = CWAVenueEncoder.Fields(
            description: "Bench hall", address: "Street 1", type: 3, defaultCheckInLengthInMinutes: 60)
        _ = await daemon.loop.handle(
            .codeScanned(
                CWAVenueEncoder.url(
                    payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 1, count: 16)))))
        let cards = 8
        for card in 1...cards {
            _ = await daemon.loop.handle(.staffCommand(.enrolCard))
            let read = daemon.loop.expect([.cardRead])
            reader.place(card: card)
            _ = await read.next(timeout: .seconds(20))
            read.cancel()
            let removed = daemon.loop.expect([.cardRemoved])
            reader.remove()
            _ = await removed.next(timeout: .seconds(5))
            removed.cancel()
        }
        _ = await daemon.loop.handle(.staffCommand(.leave))

        var latencies = [Duration]()
        var outcomes = [String: Int]()
        for index in 0..<taps {
            clock.advance(by: 600)  // ten minutes between taps: no debounce, at most 18 check-ins per card and day
            let card = index % cards + 1
            let read = daemon.loop.expect([.cardRead])
            let start = ContinuousClock.now
            reader.place(card: card)
            guard let handled = await read.next(timeout: .seconds(10)) else { fatalError("tap \(index) not read") }
            read.cancel()
            let pattern = handled.report.indicated.first
            if let pattern, let shown = await lights.lastShown[pattern] { latencies.append(shown - start) }
            for step in handled.report.steps {
                if case .tapRecorded(let outcome) = step {
                    outcomes["\(outcome)".prefix(while: { $0 != "(" }).description, default: 0] += 1
                }
            }
            let removed = daemon.loop.expect([.cardRemoved])
            reader.remove()
            _ = await removed.next(timeout: .seconds(5))
            removed.cancel()
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))].wholeNanoseconds) / 1e6
        }
        print(
            "Tap latency, card placed → durable check-in → light command (\(latencies.count) taps, real libnfc + emulator):"
        )
        print(
            String(
                format: "  p50 %.2f ms   p90 %.2f ms   p99 %.2f ms   max %.2f ms", percentile(0.5), percentile(0.9),
                percentile(0.99), percentile(1.0)))
        print(
            "  outcomes: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        running.cancel()
    }

    static func processStartAndMemory(kiosk: String) async throws {
        var startTimes = [Double]()
        var rss = [Int]()
        for _ in 0..<5 {
            let directory = "/tmp/kbench-" + UUID().uuidString.prefix(8).lowercased()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: kiosk)
            process.arguments = ["run", "--simulate", "--state-dir", directory, "--log-level", "error"]
            process.standardOutput = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            let socket = KioskDaemon.controlSocketPath(stateDirectory: directory)
            while true {
                if let answer = try? await ControlSocketServer.request(
                    #"{"command":"status"}"#, to: socket, timeout: .seconds(2)),
                    answer.contains(#""ok":true"#)
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            startTimes.append(Double((ContinuousClock.now - start).wholeNanoseconds) / 1e6)
            try await Task.sleep(for: .seconds(3))
            let status =
                (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
            {
                rss.append(kilobytes)
            }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        startTimes.sort()
        rss.sort()
        print("Start → ready (process start until the control socket answers), 5 runs:")
        print(String(format: "  median %.0f ms   max %.0f ms", startTimes[startTimes.count / 2], startTimes.last ?? 0))
        print("Idle resident memory 3 s after ready (VmRSS), 5 runs:")
        print(
            String(
                format: "  median %.1f MiB   max %.1f MiB", Double(rss[rss.count / 2]) / 1024,
                Double(rss.last ?? 0) / 1024))
    }
}
