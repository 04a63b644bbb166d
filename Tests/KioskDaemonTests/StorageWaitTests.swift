import Foundation
import KioskDaemon
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A board whose storage cannot be used at start (here: the state directory's place is taken by a file, as when the
/// data partition is not mounted) keeps running, says so on its page, and starts by itself once the storage works:
/// it does not exit with the status systemd never restarts.
@Suite struct StorageWaitTests {
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func unusableStorageAtStartIsWaitedForAndShownThenTheKioskStarts() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let blocked = root + "/data"
        FileManager.default.createFile(atPath: blocked, contents: Data("not a folder".utf8))
        try FileManager.default.createDirectory(atPath: root + "/credentials", withIntermediateDirectories: true)
        try "storage-test-staff-code\n".write(
            toFile: root + "/credentials/staff-code", atomically: true, encoding: .utf8)
        let port = try Self.freePort()
        let config = root + "/kiosk.json"
        try """
        {"stateDirectory": "\(blocked)/state", "nfc": null, "camera": null, "receiptPrinter": null,
         "metrics": {"listen": null}, "web": {"listen": "127.0.0.1:\(port)"}}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable())
        process.arguments = ["run", "--config", config]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["CREDENTIALS_DIRECTORY": root + "/credentials"]) { $1 }
        let log = root + ".log"
        FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // The page says what is wrong; the kiosk keeps running.
        var page: LoopbackHTTP.Answer?
        for _ in 0..<200 where page == nil && process.isRunning {
            page = try? await LoopbackHTTP.get(port: port, "/screen.json")
            if page == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let said = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let shown = try #require(page, "no page; the kiosk said: \(said())")
        #expect(shown.body.contains("Out of service: storage"))
        #expect(shown.body.contains("tries again every few seconds"))
        #expect(process.isRunning)

        // The storage comes back: the kiosk starts and answers on its control socket.
        try FileManager.default.removeItem(atPath: blocked)
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: true)
        let socket = KioskDaemon.controlSocketPath(stateDirectory: blocked + "/state")
        var answered = false
        for _ in 0..<300 where !answered && process.isRunning {
            answered = (try? await ControlSocketServer.request(#"{"command":"status"}"#, to: socket)) != nil
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answered, "the kiosk did not start: \(said())")
        let output = said()
        #expect(output.contains("Storage unavailable: waiting for it"))
        #expect(output.contains("Storage available again: starting"))
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// A state directory others can write to, or a kiosk's file there replaced by a link, is refused at start (not
    /// waited for: waiting mends neither), and the message says how to fix it.
    @Test func aWorldWritableStateDirectoryOrAPlantedLinkIsRefusedWithTheFix() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = root + "/kiosk"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try #require(chmod(state, 0o777) == 0)
        let open = try #require(StorageWait.problem(stateDirectory: state))
        #expect(!StorageWait.isPassing(open))
        #expect(open.description.contains("chmod 700"))
        #expect(!FileManager.default.fileExists(atPath: state + "/checkins.sqlite"), "nothing written there")

        try #require(chmod(state, 0o700) == 0)
        try #require(symlink(root + "/elsewhere.sqlite", state + "/checkins.sqlite") == 0)
        let linked = try #require(StorageWait.problem(stateDirectory: state))
        #expect(!StorageWait.isPassing(linked))
        #expect(linked.description.contains("checkins.sqlite is a symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: root + "/elsewhere.sqlite"), "the link was not followed")

        try #require(unlink(state + "/checkins.sqlite") == 0)
        #expect(StorageWait.problem(stateDirectory: state) == nil)
    }
}
