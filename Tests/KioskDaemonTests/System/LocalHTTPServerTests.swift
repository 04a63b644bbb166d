import Foundation
import KioskCore
import Logging
import Synchronization
import Testing

@testable import KioskDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// The local HTTP server over real loopback sockets.
@Suite struct LocalHTTPServerTests {
    /// Sends `request` as raw bytes and returns everything the server answered before closing. Runs on a thread of
    /// its own: a blocking read must not hold one of the few threads the server's async handler needs.
    static func exchange(_ request: [UInt8], port: Int, host: String = "127.0.0.1") async throws -> String {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<String, any Error>, Never>) in
            Thread { done.resume(returning: Result { try blockingExchange(request, port: port, host: host) }) }.start()
        }
        return try result.get()
    }

    static func blockingExchange(_ request: [UInt8], port: Int, host: String) throws -> String {
        let ipv6 = host.contains(":")
        let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        // Not an assertion: only keeps a server that never answers from holding the test forever (on a machine busy
        // with other work, an answer may take many seconds).
        var timeout = timeval(tv_sec: 600, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func exchange(_ request: String, port: Int, host: String = "127.0.0.1") async throws -> String {
        try await exchange(Array(request.utf8), port: port, host: host)
    }

    /// A deadline for a client's request that only a hang could miss: the tests that are not about the deadline must
    /// not fail because this test's own client thread was not scheduled for a few seconds on a busy machine.
    static let patientDeadline: Duration = .seconds(600)

    /// A server that echoes what it was handed, on a free port.
    static func echoServer(host: String = "127.0.0.1") throws -> LocalHTTPServer {
        let server = try LocalHTTPServer(host: host, port: 0, requestDeadline: patientDeadline) { request in
            let text =
                "\(request.method) \(request.path) host=\(request.header("Host") ?? "-") body=\(String(decoding: request.body, as: UTF8.self))"
            return LocalHTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain"), ("X-Test", "yes")], body: Array(text.utf8))
        }
        server.start()
        return server
    }

    @Test func answersARequestOnTheChosenPort() async throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.authority == "127.0.0.1:\(server.port)")
        let answer = try await Self.exchange("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains("\r\nX-Test: yes\r\n"))
        #expect(answer.contains("\r\nConnection: close\r\n"))
        #expect(answer.hasSuffix("\r\n\r\nGET /metrics host=127.0.0.1 body="))
        #expect(answer.contains("Content-Length: \("GET /metrics host=127.0.0.1 body=".utf8.count)\r\n"))
    }

    @Test func aBodyArrivingInPiecesIsReadToItsLength() async throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let answer = try await Self.exchange(
            "POST /press/confirm HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello, and more", port: server.port)
        #expect(answer.hasSuffix("POST /press/confirm host=a body=hello"))
    }

    @Test func headRequestsGetNoBody() async throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let answer = try await Self.exchange("HEAD / HTTP/1.1\r\n\r\n", port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
        #expect(answer.hasSuffix("\r\n\r\n"))
    }

    @Test func ipv6LoopbackWorks() async throws {
        let server = try Self.echoServer(host: "::1")
        defer { server.stop() }
        #expect(server.authority == "[::1]:\(server.port)")
        #expect(
            try await Self.exchange("GET / HTTP/1.1\r\n\r\n", port: server.port, host: "::1").hasPrefix("HTTP/1.1 200"))
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
        ("GET relative HTTP/1.1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nContent-Length: 999999\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
    ])
    func malformedRequestsAreRefusedWithoutReachingTheHandler(request: String, status: Int) async throws {
        let reached = Atomic<Int>(0)
        let server = try LocalHTTPServer(host: "127.0.0.1", port: 0, requestDeadline: Self.patientDeadline) { _ in
            reached.add(1, ordering: .relaxed)
            return .text(200, "handled")
        }
        server.start()
        defer { server.stop() }
        let answer = try await Self.exchange(request, port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(answer)")
        #expect(reached.load(ordering: .relaxed) == 0)
    }

    @Test func anOversizedHeadIsRefused() async throws {
        let server = try Self.echoServer()
        defer { server.stop() }
        let request =
            "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: LocalHTTPServer.maximumHead) + "\r\n\r\n"
        #expect(try await Self.exchange(request, port: server.port).hasPrefix("HTTP/1.1 431 "))
    }

    @Test func headerValuesCannotSplitTheResponse() async throws {
        let server = try LocalHTTPServer(host: "127.0.0.1", port: 0, requestDeadline: Self.patientDeadline) { _ in
            LocalHTTPResponse(status: 200, headers: [("X-Bad", "a\r\nSet-Cookie: x=1"), ("X-Good", "b")])
        }
        server.start()
        defer { server.stop() }
        let answer = try await Self.exchange("GET / HTTP/1.1\r\n\r\n", port: server.port)
        #expect(!answer.contains("Set-Cookie"))
        #expect(answer.contains("X-Good: b"))
    }

    @Test func stoppingReleasesThePort() async throws {
        let server = try Self.echoServer()
        let port = server.port
        server.stop()
        let again = try LocalHTTPServer(host: "127.0.0.1", port: port, requestDeadline: Self.patientDeadline) { _ in
            .text(200, "again")
        }
        again.start()
        defer { again.stop() }
        #expect(try await Self.exchange("GET / HTTP/1.1\r\n\r\n", port: port).hasSuffix("again"))
    }

    @Test func aHostThatIsNotAnAddressIsRefused() {
        #expect(throws: LocalHTTPServerError.notAnAddress("example.org")) {
            _ = try LocalHTTPServer(host: "example.org", port: 0) { _ in .text(200, "") }
        }
    }

    /// docs/daemon.md promises the screen page's security headers on every answer: the server's own refusals too.
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nContent-Length: 999999\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: LocalHTTPServer.maximumHead) + "\r\n\r\n", 431),
    ])
    func theScreensOwnRefusalsCarryItsSecurityHeaders(request: String, status: Int) async throws {
        var configuration = KioskConfiguration()
        configuration.web.listen = "127.0.0.1:0"
        let settings = DaemonSettings(configuration, secrets: ConfigurationSecrets(), stateDirectory: "/tmp/unused")
        let shown = StorageWait.view(.stateDirectory(path: "/x", reason: "test"), language: .en)
        let opened = ScreenEndpoint.open(
            settings: settings, logger: Logger(label: "test"), view: { shown }, press: nil,
            requestDeadline: Self.patientDeadline)
        let server = try #require(opened)
        defer { server.stop() }
        let answer = try await Self.exchange(request, port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(answer)")
        for header in [
            "Cache-Control: no-store", "X-Frame-Options: DENY", "X-Content-Type-Options: nosniff",
            "Referrer-Policy: no-referrer", "Content-Security-Policy: default-src 'none'",
        ] {
            #expect(answer.contains("\r\n" + header), "\(header) in \(status)")
        }
    }

    @Test func aBusyAnswerCarriesTheServersHeaders() async throws {
        let server = try LocalHTTPServer(
            host: "127.0.0.1", port: 0, headers: [("X-Frame-Options", "DENY")], requestDeadline: Self.patientDeadline
        ) { _ in .text(200, "served") }
        server.start()
        defer { server.stop() }
        // Idle connections fill every slot of this address (held until the test closes them: no deadline passes).
        let idle = try (0..<LocalHTTPServer.maximumConnectionsPerPeer).map { _ in
            try SocketListenerTests.connect(port: server.port)
        }
        defer { for descriptor in idle { close(descriptor) } }
        let busy = try await SocketListenerTests.onThread { () throws -> String? in
            // The server has taken the idle ones once a request on another address is answered after them.
            let probe = try SocketListenerTests.connect(port: server.port, from: "127.0.0.9")
            defer { close(probe) }
            SocketListenerTests.send("GET / HTTP/1.1\r\n\r\n", to: probe)
            _ = SocketListenerTests.readToEnd(probe)
            let descriptor = try SocketListenerTests.connect(port: server.port)
            defer { close(descriptor) }
            return SocketListenerTests.readToEnd(descriptor)
        }
        #expect(busy?.hasPrefix("HTTP/1.1 503") == true, "\(String(describing: busy))")
        #expect(busy?.contains("\r\nX-Frame-Options: DENY\r\n") == true)
    }
}
