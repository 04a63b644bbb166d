import Foundation
import Synchronization
import Testing

@testable import KioskDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// The accept loop shared by the control socket and the local pages: bounded connections, one deadline per request,
/// and accept failures that neither end the loop nor flood the log.
@Suite struct SocketListenerTests {
    /// A TCP connection to 127.0.0.1:`port` from the local address `from` (any 127.x.y.z reaches loopback).
    static func connect(port: Int, from: String = "127.0.0.1") throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        // Not an assertion: only keeps a server that never answers from holding the test forever.
        var timeout = timeval(tv_sec: 600, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, from, &local.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0, "bind \(from): \(String(cString: strerror(errno)))")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        return descriptor
    }

    static func send(_ text: String, to descriptor: Int32) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the server closes (nil after an error, or when 600 s passed: a hang).
    static func readToEnd(_ descriptor: Int32) -> String? {
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return String(decoding: answer, as: UTF8.self) }
            if count < 0 { return nil }
            answer += buffer[0..<count]
        }
    }

    /// Runs `body` on a thread of its own: its blocking reads and sleeps must not hold a thread of the cooperative
    /// pool, which the servers' handlers need.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<T, any Error>, Never>) in
            Thread { done.resume(returning: Result { try body() }) }.start()
        }
        return try result.get()
    }

    @Test func slowClientsLoseTheirSlotAtTheDeadlineAndOneClientCannotTakeThemAll() async throws {
        let seen = try await Self.onThread { try Self.slowClients() }
        // A fifth connection of the slow clients' user is turned away at once, from any loopback address (another
        // user's are served: ScreenSlotTests).
        #expect(seen.fifth?.hasPrefix("HTTP/1.1 503") == true, "\(String(describing: seen.fifth))")
        // (It had sent its request: the refusal may arrive as a reset instead of the 503.)
        #expect(seen.other?.hasSuffix("served\n") != true, "\(String(describing: seen.other))")
        // The trickling clients are closed once their deadline passes, though they keep sending (nil: still open
        // after 600 s).
        #expect(seen.slow == Array(repeating: "", count: LocalHTTPServer.maximumConnectionsPerPeer))
        // Their slots are free again.
        #expect(seen.again?.hasSuffix("served\n") == true, "\(String(describing: seen.again))")
    }

    struct SlowClientsSeen: Sendable {
        var fifth: String?
        var other: String?
        var slow: [String?] = []
        var again: String?
    }

    static func slowClients() throws -> SlowClientsSeen {
        var seen = SlowClientsSeen()
        // The slow clients must still hold their slots when the fifth and the other connect: a deadline this test's
        // own steps, scheduled late on a busy machine, do not outlast. They are then dropped when it passes.
        let server = try LocalHTTPServer(host: "0.0.0.0", port: 0, requestDeadline: .seconds(20)) { _ in
            .text(200, "served\n")
        }
        server.start()
        defer { server.stop() }
        // Four clients from one address send a byte every 300 ms, never finishing their request.
        let slow = try (0..<LocalHTTPServer.maximumConnectionsPerPeer).map { _ in try Self.connect(port: server.port) }
        defer { for descriptor in slow { close(descriptor) } }
        let trickling = Atomic<Bool>(true)
        let trickle = Thread {
            while trickling.load(ordering: .relaxed) {
                for descriptor in slow { Self.send("G", to: descriptor) }
                usleep(300_000)
            }
        }
        trickle.start()
        defer { trickling.store(false, ordering: .relaxed) }
        // The server has taken the four (an event, not an amount of time; the bound is for a hang only).
        let hangGuard = ContinuousClock.now + .seconds(600)
        while server.connectionsServed < LocalHTTPServer.maximumConnectionsPerPeer, ContinuousClock.now < hangGuard {
            usleep(10_000)
        }
        let fifth = try Self.connect(port: server.port)
        defer { close(fifth) }
        seen.fifth = Self.readToEnd(fifth)
        let other = try Self.connect(port: server.port, from: "127.0.0.2")
        defer { close(other) }
        Self.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n", to: other)
        seen.other = Self.readToEnd(other)
        seen.slow = slow.map { Self.readToEnd($0) }
        let again = try Self.connect(port: server.port)
        defer { close(again) }
        Self.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n", to: again)
        seen.again = Self.readToEnd(again)
        return seen
    }

    @Test func acceptFailuresAreSaidOnceAndTheLoopAcceptsAgain() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("listener-\(UUID().uuidString)").path
        let address = try #require(UnixSocketAddress(path))
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(address.withSocketAddress { bind(listening, $0, $1) } == 0)
        #expect(listen(listening, 4) == 0)
        defer { unlink(path) }
        // The file table is full for the first six accepts.
        let failures = Atomic<Int>(6)
        let said = Mutex<[String]>([])
        let listener = SocketListener(
            listener: listening, name: "test", limits: .init(connections: 2, perPeer: nil),
            accept: { descriptor in
                if failures.subtract(1, ordering: .relaxed).newValue >= 0 {
                    errno = EMFILE
                    return (-1, nil)
                }
                return SocketListener.systemAccept(descriptor)
            },
            trouble: { message in said.withLock { $0.append(message) } },
            refuse: { _ in },
            serve: { connection in _ = Array("ok".utf8).withUnsafeBytes { write(connection, $0.baseAddress, 2) } })
        listener.start()
        defer { listener.stop() }
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var timeout = timeval(tv_sec: 600, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(address.withSocketAddress { Glibc.connect(client, $0, $1) } == 0)
        let answer = try await Self.onThread { Self.readToEnd(client) }
        #expect(answer == "ok")
        #expect(
            said.withLock { $0 } == [
                "test: accept failed (Too many open files); trying again", "test: accepting again",
            ])
        #expect(listener.isAccepting)
    }

    @Test func aLoopWhoseAcceptKeepsFailingSaysItIsNotAccepting() async throws {
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let said = Mutex<[String]>([])
        // Accept fails only once the test has looked at the healthy loop: however late this test runs, the first
        // look comes before any failure.
        let failing = DispatchSemaphore(value: 0)
        let opened = Atomic<Bool>(false)
        let listener = SocketListener(
            listener: listening, name: "test", limits: .init(connections: 2, perPeer: nil),
            accept: { _ in
                if !opened.load(ordering: .sequentiallyConsistent) {
                    failing.wait()
                    opened.store(true, ordering: .sequentiallyConsistent)
                }
                errno = ENFILE
                return (-1, nil)
            },
            unhealthyAfter: .milliseconds(200), trouble: { message in said.withLock { $0.append(message) } },
            refuse: { _ in }, serve: { _ in })
        listener.start()
        #expect(listener.isAccepting)
        failing.signal()
        // It says it is not accepting once failures have lasted 200 ms (the bound is for a hang only).
        let hangGuard = ContinuousClock.now + .seconds(600)
        while listener.isAccepting, ContinuousClock.now < hangGuard { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!listener.isAccepting)
        try await Self.onThread { listener.stop() }
        // Said once, however often it failed meanwhile.
        #expect(said.withLock { $0.count } == 1)
    }

    @Test func controlConnectionsBeyondTheBoundAreToldSoAndClosed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("control-\(UUID().uuidString)").path
        // Idle connections hold their slots until they close, however slowly this machine runs the test.
        let server = try ControlSocketServer(path: path, requestDeadline: .seconds(600)) { _ in
            #"{"ok":true,"lines":[],"steps":[]}"#
        }
        server.start()
        defer { server.stop() }
        let address = try #require(UnixSocketAddress(path))
        var idle = [Int32]()
        defer { for descriptor in idle { close(descriptor) } }
        for _ in 0..<ControlSocketServer.maximumConnections {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            #expect(address.withSocketAddress { Glibc.connect(descriptor, $0, $1) } == 0)
            idle.append(descriptor)
        }
        // The server has taken them all (an event; the bound is for a hang only).
        let hangGuard = ContinuousClock.now + .seconds(600)
        while server.connectionsServed < ControlSocketServer.maximumConnections, ContinuousClock.now < hangGuard {
            try await Task.sleep(for: .milliseconds(10))
        }
        let answer = try await ControlSocketServer.request("{}", to: path, timeout: .seconds(600))
        #expect(answer.contains("too many control connections"))
        for descriptor in idle { close(descriptor) }
        idle = []
        // The slots come free as the server sees the connections end.
        while server.connectionsServed > 0, ContinuousClock.now < hangGuard {
            try await Task.sleep(for: .milliseconds(10))
        }
        let later = try await ControlSocketServer.request("{}", to: path, timeout: .seconds(600))
        #expect(later.contains(#""ok":true"#), "\(later)")
    }
}
