internal import Foundation
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// One request as `LocalHTTPServer` hands it on.
public struct LocalHTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request target as sent: a path, maybe with a query.
    public var target: String
    /// Header fields by lower-cased name (a repeated field keeps its last value).
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The target without its query.
    public var path: Substring { target.prefix { $0 != "?" } }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The answer to a `LocalHTTPRequest`. `Content-Length` and `Connection: close` are added by the server.
public struct LocalHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer (`text/plain; charset=utf-8`).
    public static func text(_ status: Int, _ text: String) -> LocalHTTPResponse {
        LocalHTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }
}

/// Why the local HTTP server cannot listen.
public enum LocalHTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host is not an IP address (or `localhost`).
    case notAnAddress(String)
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .notAnAddress(let host): "\(host) is not an IP address"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// A small HTTP/1.1 server for the kiosk's own pages (metrics, the local screen): one request per connection, a
/// bounded head and body, a thread per connection, a bound on connections overall and per peer address, and one
/// deadline for the whole request (a client that sends a byte now and then is dropped when it passes, whatever the
/// pace). The daemon's endpoints answer a few requests a second on loopback; this serves them without an event-loop
/// framework in the daemon's memory. The accept loop is `SocketListener`'s.
///
/// Not a general web server: no keep-alive, no chunked bodies (refused), no TLS.
public final class LocalHTTPServer: Sendable {
    public typealias Handler = @Sendable (LocalHTTPRequest) async -> LocalHTTPResponse
    /// The largest request head (request line and header fields).
    public static let maximumHead = 8 * 1024
    /// The largest request body.
    public static let maximumBody = 16 * 1024
    /// Connections served at once; more are answered 503.
    public static let maximumConnections = 8
    /// Connections served at once for one peer (an address; on loopback, the user owning the connecting socket): one
    /// client alone cannot take every slot.
    public static let maximumConnectionsPerPeer = 4
    /// Connections a peer is served even when every slot is taken (`SocketListener`): the kiosk's own browser keeps
    /// its page whatever other users' clients hold.
    public static let reservedConnectionsPerPeer = 2
    /// The time a client has to send its whole request, from the moment it is accepted.
    public static let requestDeadline: Duration = .seconds(5)

    /// The address listened on, as given.
    public let host: String
    /// The port listened on (the one the system chose when asked for port 0).
    public let port: Int
    private let listener: SocketListener

    /// Binds and listens on `host:port` (IPv4, IPv6 or `localhost`; port 0: any free port). `headers` go on every
    /// answer, the server's own (400, 413, 431, 501, 503) as much as the handler's. `trouble` hears when accepting
    /// fails and when it works again (for the log); `requestDeadline` is for tests.
    public init(
        host: String, port: Int, headers: [(name: String, value: String)] = [],
        requestDeadline: Duration = LocalHTTPServer.requestDeadline,
        trouble: @escaping @Sendable (String) -> Void = { _ in }, handler: @escaping Handler
    ) throws(LocalHTTPServerError) {
        self.host = host
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        let numeric = host == "localhost" ? "127.0.0.1" : host
        if numeric.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, numeric, &address.sin6_addr) == 1 else { throw .notAnAddress(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in6>.size), AF_INET6)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, numeric, &address.sin_addr) == 1 else { throw .notAnAddress(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            (length, family) = (socklen_t(MemoryLayout<sockaddr_in>.size), AF_INET)
        }
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "bind", errno: code)
        }
        guard listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "listen", errno: code)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        let networkPort = withUnsafeBytes(of: &actual) { bytes in
            family == AF_INET6 ? bytes.load(as: sockaddr_in6.self).sin6_port : bytes.load(as: sockaddr_in.self).sin_port
        }
        self.port = Int(UInt16(bigEndian: networkPort))
        listener = SocketListener(
            listener: descriptor, name: "http",
            limits: .init(
                connections: Self.maximumConnections, perPeer: Self.maximumConnectionsPerPeer,
                reserved: Self.reservedConnectionsPerPeer),
            trouble: trouble,
            refuse: {
                Self.respond(LocalHTTPResponse.text(503, "Busy, try again.\n"), to: $0, head: false, headers: headers)
            },
            serve: { Self.serve($0, deadline: .now + requestDeadline, headers: headers, handler: handler) })
    }

    /// `host:port` as a URL authority (`127.0.0.1:9464`, `[::1]:8080`).
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Starts accepting connections on a thread of its own.
    public func start() { listener.start() }

    /// Stops accepting and waits for the accepting thread (connections being served finish on their own).
    public func stop() { listener.stop() }

    /// False while accepting has kept failing (`SocketListener.isAccepting`).
    public var isAccepting: Bool { listener.isAccepting }

    /// Connections being served now (for tests: a slot is taken once this counts it).
    var connectionsServed: Int { listener.served }

    private static func serve(
        _ connection: Int32, deadline: ContinuousClock.Instant, headers: [(name: String, value: String)],
        handler: @escaping Handler
    ) {
        SocketIO.setTimeout(connection, seconds: 5)
        let request: LocalHTTPRequest
        switch Self.readRequest(connection, deadline: deadline) {
        case .success(let read): request = read
        case .failure(let refusal):
            guard let response = refusal.response else { return }
            Self.respond(response, to: connection, head: false, headers: headers)
            // Closing with unread bytes would reset the connection and could lose the answer: read to the end first.
            shutdown(connection, Int32(SHUT_WR))
            var drained = 0
            while drained < 1 << 20, let chunk = SocketIO.readSome(connection), !chunk.isEmpty {
                drained += chunk.count
            }
            return
        }
        let answer = Mutex<LocalHTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let response = await handler(request)
            answer.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        let response = answer.withLock { $0 } ?? LocalHTTPResponse.text(500, "No answer.\n")
        Self.respond(response, to: connection, head: request.method == "HEAD", headers: headers)
    }

    // MARK: - Parsing

    /// Why a request was not handed on; nil response: the connection just closes (timeout, peer gone).
    package struct Refusal: Error {
        package var response: LocalHTTPResponse?
        static let closed = Refusal(response: nil)
        static func status(_ status: Int, _ text: String) -> Refusal { Refusal(response: .text(status, text + "\n")) }
    }

    /// Reads one request; a client that has not sent all of it by `deadline` is dropped (the connection closes).
    static func readRequest(_ connection: Int32, deadline: ContinuousClock.Instant) -> Result<LocalHTTPRequest, Refusal>
    {
        readRequest { SocketIO.readSome(connection, before: deadline) }
    }

    /// Reads one request from the chunks `next` receives (nil or empty: the peer is gone or its time is up).
    package static func readRequest(next: () -> [UInt8]?) -> Result<LocalHTTPRequest, Refusal> {
        var received = [UInt8]()
        var headEnd: Int?
        while headEnd == nil {
            guard let chunk = next(), !chunk.isEmpty else { return .failure(.closed) }
            let searchFrom = max(0, received.count - 3)
            received += chunk
            headEnd = find([13, 10, 13, 10], in: received, from: searchFrom)
            if headEnd == nil, received.count > maximumHead { return .failure(.status(431, "Request head too large.")) }
        }
        guard let end = headEnd, end <= maximumHead else { return .failure(.status(431, "Request head too large.")) }
        return parse(head: Array(received[..<end]), rest: Array(received[(end + 4)...]), more: next)
    }

    /// Parses a request head; reads the rest of the body with `more`.
    static func parse(head: [UInt8], rest: [UInt8], more: () -> [UInt8]?) -> Result<LocalHTTPRequest, Refusal> {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty, parts[1].hasPrefix("/"),
            parts[0].allSatisfy({ $0.isASCII && $0.isUppercase })
        else {
            return .failure(.status(400, "Bad request."))
        }
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else {
                return .failure(.status(400, "Bad header field."))
            }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if headers["transfer-encoding"] != nil { return .failure(.status(501, "Chunked bodies are not accepted.")) }
        var body = rest
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else {
                return .failure(.status(400, "Bad Content-Length."))
            }
            guard length <= maximumBody else { return .failure(.status(413, "Body too large.")) }
            while body.count < length {
                guard let chunk = more(), !chunk.isEmpty else { return .failure(.closed) }
                body += chunk
            }
            body = Array(body.prefix(length))
        } else {
            body = []
        }
        return .success(
            LocalHTTPRequest(method: String(parts[0]), target: String(parts[1]), headers: headers, body: body))
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    // MARK: - Answering

    static func respond(
        _ response: LocalHTTPResponse, to connection: Int32, head: Bool, headers: [(name: String, value: String)] = []
    ) {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (name, value) in response.headers + headers where !value.contains("\r") && !value.contains("\n") {
            text += "\(name): \(value)\r\n"
        }
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        _ = try? SocketIO.writeAll(connection, Array(text.utf8) + (head ? [] : response.body))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
