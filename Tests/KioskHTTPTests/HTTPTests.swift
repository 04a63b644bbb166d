import Foundation
import KioskHTTP
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl against a small HTTP/1.1 server on loopback, written here on plain sockets so every byte it answers is
/// the test's own: statuses, headers, bodies too long, answers that never come.
@Suite struct HTTPTests {
    @Test func aGetReturnsStatusBodyAndHeadersAndSendsTheRequestHeaders() async throws {
        let server = try LoopbackServer { _ in
            .answer(
                status: "200 OK", headers: ["ETag: \"v7\"", "Content-Type: application/json"], body: Array("{}".utf8))
        }
        defer { server.stop() }
        let response = try await HTTP.send(
            HTTPRequest(url: server.url("/index.json"), headers: [(name: "If-None-Match", value: "\"v6\"")]),
            limit: 1024, timeout: .seconds(10))
        #expect(response.status == 200)
        #expect(response.body == Array("{}".utf8))
        #expect(response.header("etag") == "\"v7\"")
        #expect(response.header("Content-Type") == "application/json")
        let request = try #require(server.requests.first)
        #expect(request.head.hasPrefix("GET /index.json HTTP/1.1\r\n"))
        #expect(request.head.contains("\r\nIf-None-Match: \"v6\"\r\n"))
        // I-9: nothing names the kiosk, its board or its software: only the headers a download needs.
        #expect(Self.headerNames(request.head).isSubset(of: ["host", "accept", "if-none-match"]), "\(request.head)")
    }

    /// The header names of a request head, in lower case.
    static func headerNames(_ head: String) -> Set<String> {
        Set(
            head.components(separatedBy: "\r\n").dropFirst().compactMap { line in
                line.firstIndex(of: ":").map { line[..<$0].lowercased() }
            })
    }

    @Test func aPostSendsItsBodyAndHeadersWithoutWaitingForContinue() async throws {
        let server = try LoopbackServer { _ in .answer(status: "201 Created", headers: [], body: []) }
        defer { server.stop() }
        let body = (0..<5000).map { UInt8($0 % 251) }
        let response = try await HTTP.send(
            HTTPRequest(
                .post, url: server.url("/v1/reports"),
                headers: [
                    (name: "Content-Type", value: "application/x-ckpb"),
                    (name: "X-Verification-Code", value: "ABCDEFGHJK"),
                ],
                body: body),
            limit: 1024, timeout: .seconds(10))
        #expect(response.status == 201)
        let request = try #require(server.requests.first)
        #expect(request.head.hasPrefix("POST /v1/reports HTTP/1.1\r\n"))
        #expect(request.head.contains("\r\nX-Verification-Code: ABCDEFGHJK\r\n"))
        #expect(request.head.contains("\r\nContent-Length: 5000\r\n"))
        #expect(!request.head.lowercased().contains("expect:"))
        #expect(request.body == body)
        // I-9: an upload carries the batch and the code, nothing that names the kiosk, its board or its software.
        #expect(
            Self.headerNames(request.head).isSubset(of: [
                "host", "accept", "content-type", "content-length", "x-verification-code",
            ]), "\(request.head)")
    }

    @Test func anErrorStatusIsAnAnswerNotAFailure() async throws {
        let server = try LoopbackServer { _ in .answer(status: "409 Conflict", headers: [], body: Array("used".utf8)) }
        defer { server.stop() }
        let response = try await HTTP.send(HTTPRequest(url: server.url("/")), limit: 1024, timeout: .seconds(10))
        #expect(response.status == 409)
        #expect(response.body == Array("used".utf8))
    }

    @Test(arguments: [true, false])
    func aBodyLongerThanTheLimitIsRefusedWhetherAnnouncedOrNot(announced: Bool) async throws {
        let server = try LoopbackServer { _ in
            .answer(
                status: "200 OK", headers: [], body: [UInt8](repeating: 7, count: 200_000), announceLength: announced)
        }
        defer { server.stop() }
        await #expect(throws: HTTPFailure.oversized) {
            _ = try await HTTP.send(HTTPRequest(url: server.url("/big")), limit: 1000, timeout: .seconds(10))
        }
        // Exactly at the limit is fine.
        let exact = try LoopbackServer { _ in
            .answer(status: "200 OK", headers: [], body: [UInt8](repeating: 7, count: 1000), announceLength: announced)
        }
        defer { exact.stop() }
        let response = try await HTTP.send(HTTPRequest(url: exact.url("/exact")), limit: 1000, timeout: .seconds(10))
        #expect(response.body.count == 1000)
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)").path
    }

    @Test func aDownloadWritesTheBodyToAPrivateFileAsItArrives() async throws {
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 31 / 7) }
        let server = try LoopbackServer { _ in
            .answer(status: "200 OK", headers: ["ETag: \"p1\""], body: body, announceLength: false)
        }
        defer { server.stop() }
        let path = Self.temporaryPath()
        defer { unlink(path) }
        let response = try await HTTP.download(
            HTTPRequest(url: server.url("/p1.bin")), to: path, limit: 300_000, timeout: .seconds(10))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.header("ETag") == "\"p1\"")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == body)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        // Another status is an answer too: the caller decides about the file.
        let missing = try LoopbackServer { _ in .answer(status: "404 Not Found", headers: [], body: []) }
        defer { missing.stop() }
        #expect(
            try await HTTP.download(
                HTTPRequest(url: missing.url("/p2.bin")), to: path, limit: 1000, timeout: .seconds(10)
            ).status == 404)
    }

    @Test(arguments: [true, false])
    func aDownloadLongerThanTheBoundIsStoppedThereAndTheFileRemoved(endless: Bool) async throws {
        let server = try LoopbackServer { _ in
            endless
                ? .endless
                : .answer(status: "200 OK", headers: [], body: [UInt8](repeating: 1, count: 3 << 20))
        }
        defer { server.stop() }
        let path = Self.temporaryPath()
        let task = Task { () -> HTTPFailure? in
            do throws(HTTPFailure) {
                _ = try await HTTP.download(
                    HTTPRequest(url: server.url("/endless")), to: path, limit: 1 << 20, timeout: .seconds(120))
                return nil
            } catch {
                return error
            }
        }
        // Stopped by the bound, not by the two-minute timeout (the test's own limit is far below it).
        let outcome = try await withThrowingTaskGroup(of: HTTPFailure?.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                task.cancel()
                return .cancelled
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(outcome == .oversized)
        #expect(HTTPFailure.oversized.description == "the answer is larger than allowed")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // The timeout's own error proves it fired (a wait that never ended would run into the time limit); how long it
    // took on a loaded machine is not asserted.
    @Test(.timeLimit(.minutes(1))) func aServerThatNeverAnswersTimesOut() async throws {
        let server = try LoopbackServer { _ in .silence }
        defer { server.stop() }
        await #expect(throws: HTTPFailure.timedOut) {
            _ = try await HTTP.send(HTTPRequest(url: server.url("/")), limit: 1024, timeout: .milliseconds(400))
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheWaitingTaskStopsTheTransfer() async throws {
        let server = try LoopbackServer { _ in .silence }
        defer { server.stop() }
        let task = Task { () -> HTTPFailure? in
            do throws(HTTPFailure) {
                _ = try await HTTP.send(HTTPRequest(url: server.url("/")), limit: 1024, timeout: .seconds(120))
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        // libcurl hears of it at its next progress callback (at least once a second), long before the 120 s timeout:
        // the error says it was the cancellation, not the timeout.
        #expect(await task.value == .cancelled)
    }

    @Test func aRedirectIsFollowedAndOnlyTheFinalHeadersCount() async throws {
        let server = try LoopbackServer { request in
            request.head.hasPrefix("GET /old ")
                ? .answer(status: "302 Found", headers: ["Location: /new", "ETag: \"stale\""], body: [])
                : .answer(status: "200 OK", headers: ["X-Final: yes"], body: Array("here".utf8))
        }
        defer { server.stop() }
        let response = try await HTTP.send(HTTPRequest(url: server.url("/old")), limit: 1024, timeout: .seconds(10))
        #expect(response.status == 200)
        #expect(response.body == Array("here".utf8))
        #expect(response.header("X-Final") == "yes")
        #expect(response.header("ETag") == nil)
    }

    @Test func addressesThatAreNotHTTPOrGoNowhereFail() async throws {
        await #expect(throws: HTTPFailure.unsupportedAddress) {
            _ = try await HTTP.send(HTTPRequest(url: "file:///etc/passwd"), limit: 1024, timeout: .seconds(5))
        }
        // A port nothing listens on: the connection is refused at once.
        let server = try LoopbackServer { _ in .silence }
        let port = server.port
        server.stop()
        await #expect(throws: HTTPFailure.unreachable) {
            _ = try await HTTP.send(HTTPRequest(url: "http://127.0.0.1:\(port)/"), limit: 1024, timeout: .seconds(5))
        }
    }

    @Test func failuresCarryNoAddressOrContent() {
        for failure in [HTTPFailure.oversized, .timedOut, .cancelled, .unsupportedAddress, .unreachable] {
            #expect(!failure.description.contains("://"))
            #expect(!failure.description.contains("127.0.0.1"))
        }
    }
}

/// A one-thread HTTP/1.1 server on 127.0.0.1 that answers each request as `plan` says, one request per connection.
private final class LoopbackServer: @unchecked Sendable {
    struct Request: Sendable {
        var head: String
        var body: [UInt8]
    }

    enum Plan: Sendable {
        case answer(status: String, headers: [String], body: [UInt8], announceLength: Bool = true)
        /// Read the request, then say nothing until the server stops.
        case silence
        /// A 200 without a length whose body never ends: chunks of 7s until the client hangs up.
        case endless
    }

    let port: UInt16
    private let listener: Int32
    private let plan: @Sendable (Request) -> Plan
    private let recorded = Mutex<[Request]>([])
    private let stopping = Atomic<Bool>(false)

    var requests: [Request] { recorded.withLock { $0 } }

    init(plan: @escaping @Sendable (Request) -> Plan) throws {
        self.plan = plan
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in serve() }.start()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        var open: [Int32] = []
        defer {
            for connection in open { close(connection) }
            close(listener)
        }
        while !stopping.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { if errno == EINTR { continue } else { return } }
            open.append(connection)
            guard let request = Self.readRequest(connection) else { continue }
            recorded.withLock { $0.append(request) }
            switch plan(request) {
            case .silence:
                continue  // kept open, unanswered, until the server stops
            case .endless:
                Self.send(connection, Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8))
                let chunk = [UInt8](repeating: 7, count: 64 * 1024)
                while !stopping.load(ordering: .relaxed), Self.send(connection, chunk) {}
                close(connection)
                open.removeAll { $0 == connection }
            case .answer(let status, let headers, let body, let announce):
                var head = "HTTP/1.1 \(status)\r\nConnection: close\r\n"
                for header in headers { head += header + "\r\n" }
                if announce { head += "Content-Length: \(body.count)\r\n" }
                head += "\r\n"
                Self.send(connection, Array(head.utf8) + body)
                close(connection)
                open.removeAll { $0 == connection }
            }
        }
    }

    private static func readRequest(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        func headEnd() -> Int? {
            guard bytes.count >= 4 else { return nil }
            return (0...(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
        }
        while headEnd() == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
        }
        let end = headEnd()! + 4
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        let length =
            head.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while bytes.count < end + length {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
        }
        return Request(head: head, body: Array(bytes[end..<(end + length)]))
    }

    /// Sends all of `bytes`; false when the peer is gone.
    @discardableResult
    private static func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
