import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client over a plain TCP socket, so tests choose every header (`Host`, `Origin`) themselves.
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: String
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends one request to `127.0.0.1:port` and reads the answer to the end (`Connection: close`). `host` nil: no
    /// `Host` header at all.
    static func request(
        port: Int, method: String = "GET", path: String, host: String?,
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var lines = ["\(method) \(path) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(value)") }
        if method == "POST" { lines.append("Content-Length: 0") }
        lines.append("Connection: close")
        let text = lines.joined(separator: "\r\n") + "\r\n\r\n"
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try exchange(port: port, request: text) })
            }
        }
    }

    /// GET with the right `Host`.
    static func get(port: Int, _ path: String) async throws -> Answer {
        try await request(port: port, path: path, host: "127.0.0.1:\(port)")
    }

    private static func exchange(port: Int, request: String) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        defer { close(fd) }
        // Not an assertion: only keeps a kiosk that never answers from holding the test forever.
        var limit = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failed(description: "connect to port \(port): errno \(errno)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failed(description: "send: errno \(errno)") }
            sent += count
        }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw Failed(description: "recv: errno \(errno)") }
            received += buffer[0..<count]
        }
        let response = String(decoding: received, as: UTF8.self)
        guard let split = response.range(of: "\r\n\r\n") else {
            throw Failed(description: "no HTTP answer: \(response)")
        }
        let head = response[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failed(description: "bad status line")
        }
        var headers = [String: String]()
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = String(response[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    /// Joins a chunked body (the sizes are in hexadecimal; text bodies only).
    private static func dechunk(_ text: String) -> String {
        var bytes = Array(text.utf8)[...]
        var body = [UInt8]()
        while let lineEnd = bytes.firstRange(of: [13, 10]) {
            let sizeText =
                String(decoding: bytes[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard bytes.distance(from: start, to: bytes.endIndex) >= size else { break }
            body += bytes[start..<bytes.index(start, offsetBy: size)]
            bytes =
                bytes[bytes.index(start, offsetBy: min(size + 2, bytes.distance(from: start, to: bytes.endIndex)))...]
        }
        return String(decoding: body, as: UTF8.self)
    }
}
