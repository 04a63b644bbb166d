import Foundation
import KioskCore
import KioskDaemon
import KioskOpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// The warnings sync through the daemon's own path: the real `kiosk run --simulate` process, configured with a
/// CKPW/1 authority served over loopback HTTP (Python's `http.server`, a separate process) that publishes one signed
/// package of `records` records (`relevant` of them about the kiosk's venue, the rest random). Its peak resident
/// memory is reset (`/proc/PID/clear_refs`, 5) just before `sync` is asked over the control socket; the peak
/// (`VmHWM`) after the sync, less the resident memory (`VmRSS`) before it, is what the sync added at its worst.
enum WarningsBenchmark {
    static func run(kiosk: String, records: Int, relevant: Int) async throws {
        let directory = "/tmp/kbench-warnings-" + UUID().uuidString.prefix(8).lowercased()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let www = directory + "/www/warnings"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        let crypto = OpenSSLCrypto()
        let key = try ECDSAPrivateKey()

        // The kiosk's venue, bound at start from its code (`venue.code`).
        let fields = CWAVenueEncoder.Fields(
            description: "Bench hall", address: "Street 1", type: 3, defaultCheckInLengthInMinutes: 60)
        let code = CWAVenueEncoder.url(
            payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 7, count: 16)))
        let locationId = try requireValue(VenueCodeParser.parse(code, crypto: crypto).locationId)

        // The package: header, then the records in CSPRNG order, `relevant` of them under today's tag.
        print("preparing a package of \(records) records …")
        let today = Int64(Date().timeIntervalSince1970) / 86_400
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        var package = try WarningPackage(createdAt: UInt64(today * 86_400), records: []).bytes
        package.replaceSubrange(6..<10, with: withUnsafeBytes(of: UInt32(records).bigEndian, Array.init))
        package.reserveCapacity(18 + records * CKPR.recordLength)
        package += try crypto.randomBytes(count: records * CKPR.recordLength)
        for index in 0..<relevant {
            let report = PresenceReport(
                startIntervalNumber: UInt32(today * 144 + Int64(index % 100)), period: 3, transmissionRiskLevel: 7)
            let place = 18 + (index * (records / relevant)) * CKPR.recordLength
            package.replaceSubrange(place..<(place + CKPR.recordLength), with: try CKPR.seal(report, keys: keys))
        }
        try Data(package).write(to: URL(fileURLWithPath: www + "/p1.bin"))
        try Data(try key.signature(for: package)).write(to: URL(fileURLWithPath: www + "/p1.bin.sig"))
        let packageSize = package.count
        package = []
        let index = Array(#"{"packages":[{"sequence":1,"file":"p1.bin","signature":"p1.bin.sig"}]}"#.utf8)
        try Data(index).write(to: URL(fileURLWithPath: www + "/index.json"))
        try Data(try key.signature(for: index)).write(to: URL(fileURLWithPath: www + "/index.json.sig"))

        // The authority on loopback, started only once the daemon is idle (its first sync at start finds nothing).
        let port = try freePort()
        let config: [String: Any] = [
            "venue": ["code": code],
            "warnings": [
                "baseURL": "http://127.0.0.1:\(port)/warnings", "publicKey": try key.publicKey().pemRepresentation,
                "syncIntervalMinutes": 1440,
            ],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: directory + "/config.json"))
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: kiosk)
        daemon.arguments = [
            "run", "--simulate", "--config", directory + "/config.json", "--state-dir", directory + "/state",
            "--log-level", "error", "--metrics", "off", "--web", "off",
        ]
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        let socket = KioskDaemon.controlSocketPath(stateDirectory: directory + "/state")
        let ready = ContinuousClock.now
        while (try? await ControlSocketServer.request(#"{"command":"status"}"#, to: socket, timeout: .seconds(2)))?
            .contains(#""ok":true"#) != true
        {
            guard ContinuousClock.now - ready < .seconds(60) else { throw BenchmarkFailure("the kiosk did not start") }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .seconds(3))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-m", "http.server", "--bind", "127.0.0.1", "--directory", directory + "/www", "\(port)"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try await Task.sleep(for: .seconds(1))

        let pid = daemon.processIdentifier
        let before = try memory(pid)
        // Reset the peak to what is resident now: VmHWM then holds the sync's own peak.
        try "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
        let started = ContinuousClock.now
        let answer = try await ControlSocketServer.request(#"{"command":"sync"}"#, to: socket, timeout: .seconds(600))
        let elapsed = ContinuousClock.now - started
        let after = try memory(pid)
        print("package: \(records) records (\(packageSize / 1_048_576) MiB), \(relevant) about the kiosk's venue")
        print("daemon's answer: \(answer.trimmingCharacters(in: .whitespacesAndNewlines))")
        print(
            String(
                format: "sync through the daemon: %.2f s; VmRSS before %.1f MiB, VmHWM during the sync %.1f MiB "
                    + "→ peak raise %.1f MiB; VmRSS after %.1f MiB",
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                Double(before.rss) / 1024, Double(after.hwm) / 1024, Double(after.hwm - before.rss) / 1024,
                Double(after.rss) / 1024))
    }

    /// `VmRSS` and `VmHWM` of process `pid`, in KiB.
    static func memory(_ pid: Int32) throws -> (rss: Int, hwm: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func value(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (value("VmRSS"), value("VmHWM"))
    }

    /// A TCP port on loopback nobody listens on now.
    static func freePort() throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0 else { throw BenchmarkFailure("no free port") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func requireValue<T>(_ value: T?) throws -> T {
        guard let value else { throw BenchmarkFailure("the venue code gives no location ID") }
        return value
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
