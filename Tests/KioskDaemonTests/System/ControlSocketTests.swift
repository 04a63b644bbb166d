import Foundation
import KioskCore
import KioskDaemon
import Testing

#if canImport(Glibc)
    import Glibc
    import KioskSimulation
#endif

@Suite struct ControlSocketTests {
    private func temporaryDirectory() throws -> String {
        let path = "/tmp/kcs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func answersEachRequestLineWithTheHandlersLine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let server = try ControlSocketServer(path: path) { request in "echo:" + request.uppercased() }
        server.start()
        defer { server.stop() }
        // The handler runs on the cooperative pool, which the whole test run shares: wait as long as a loaded
        // machine may need (a bound, not a measurement).
        #expect(try await ControlSocketServer.request("hello", to: path, timeout: .seconds(120)) == "echo:HELLO")
        #expect(
            try await ControlSocketServer.request("two words\nwith a newline", to: path, timeout: .seconds(120))
                == "echo:TWO WORDS WITH A NEWLINE")
        // Only the owner may talk to it.
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o077 == 0)
    }

    @Test func secondServerOnTheSameSocketIsRefusedAndStaleFilesAreReplaced() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let first = try ControlSocketServer(path: path) { _ in "first" }
        first.start()
        #expect(throws: ControlSocketError.alreadyInUse) { try ControlSocketServer(path: path) { _ in "second" } }
        first.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        // A socket file left by a killed process: nothing answers, so a new server takes its place.
        FileManager.default.createFile(atPath: path, contents: nil)
        let second = try ControlSocketServer(path: path) { _ in "second" }
        second.start()
        defer { second.stop() }
        // The same bound as above: the handler waits for the shared cooperative pool on a loaded machine.
        #expect(try await ControlSocketServer.request("x", to: path, timeout: .seconds(120)) == "second")
    }

    /// Answers may be far larger than requests (every package of a USB stick, listed): a 2 MiB answer arrives whole.
    @Test func anAnswerLargerThanAnyRequestArrivesWhole() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let long = String(repeating: "package 1: refused. ", count: 2 << 20 / 20)
        let server = try ControlSocketServer(path: path) { _ in long }
        server.start()
        defer { server.stop() }
        let answer = try await ControlSocketServer.request("load-warnings", to: path, timeout: .seconds(120))
        #expect(answer.count == long.count && answer.count > ControlSocketServer.maximumMessage)
    }

    @Test func clientsGetClearErrors() throws {
        #expect(throws: ControlSocketError.notRunning) {
            try ControlSocketServer.send("x", to: "/tmp/no-such-kiosk-\(UUID().uuidString).sock")
        }
        let long = "/tmp/" + String(repeating: "d", count: 120) + "/control.sock"
        #expect(throws: ControlSocketError.pathTooLong(long.utf8.count)) { try ControlSocketServer.send("x", to: long) }
        #expect(ControlSocketError.notRunning.description.contains("kiosk run --simulate"))
    }
}

@Suite struct SystemdNotifierTests {
    @Test func sendsReadinessWatchdogAndStatusAsDatagrams() throws {
        let path = "/tmp/knotify-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(path) }
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(receiver >= 0)
        defer { close(receiver) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000"])
        #expect(notifier.watchdogTimeout == .seconds(20))
        #expect(notifier.watchdogPingInterval == .seconds(10))
        #expect(notifier.ready(status: "Ready"))
        #expect(notifier.watchdog())
        #expect(notifier.stopping())
        func receive() -> String {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
            return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        }
        #expect(receive() == "READY=1\nSTATUS=Ready")
        #expect(receive() == "WATCHDOG=1")
        #expect(receive() == "STOPPING=1")
    }

    @Test func withoutSystemdNothingIsSent() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(notifier.socketPath == nil)
        #expect(notifier.watchdogTimeout == nil)
        #expect(!notifier.ready())
        // A watchdog meant for another process is not ours.
        let other = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"])
        #expect(other.watchdogTimeout == nil || getpid() == 1)
    }
}

@Suite struct SimulatedClockSourceTests {
    @Test func advancesAndKeepsItsOffsetAcrossRestarts() throws {
        let file = "/tmp/ksimclock-\(UUID().uuidString.prefix(8)).json"
        defer { unlink(file) }
        let clock = SimulatedClockSource(file: file)
        let before = clock.read()
        #expect(before.isSynchronized)
        #expect(abs(before.now.timeIntervalSinceNow) < 5)
        clock.advance(by: 15 * 86_400)
        clock.advance(by: -3_600)  // never backwards
        #expect(clock.offset == 15 * 86_400)
        clock.setSynchronized(false)
        let restarted = SimulatedClockSource(file: file)
        #expect(restarted.offset == 15 * 86_400)
        #expect(!restarted.read().isSynchronized)
        #expect(restarted.read().now.timeIntervalSinceNow > 15 * 86_400 - 5)
    }
}
