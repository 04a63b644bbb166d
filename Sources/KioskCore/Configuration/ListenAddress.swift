/// A `host:port` to listen on: `127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`, `0.0.0.0:9464`.
public struct ListenAddress: Sendable, Equatable {
    /// An IPv4 or IPv6 address (without brackets), or `localhost`.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Whether only this machine can connect: `127.0.0.0/8`, `::1` or `localhost`.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        if let octets = Self.ipv4Octets(host) { return octets[0] == 127 }
        return false
    }

    public struct Problem: Error, Equatable, Sendable {
        public var message: String
    }

    /// A listen address as the configuration takes it (port 1 to 65535), or with `allowingAnyPort` also port 0: the
    /// system picks a free one (the simulated kiosk and tests).
    public static func parse(_ text: String, allowingAnyPort: Bool = false) -> Result<ListenAddress, Problem> {
        let expected = "expected \"host:port\" (127.0.0.1:9464, [::1]:9464), got \(JSONValue.quoted(text))"
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(Problem(message: expected))
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(Problem(message: "\(JSONValue.quoted(host)) is not an IPv6 address"))
            }
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(Problem(message: expected))
            }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            guard host == "localhost" || ipv4Octets(host) != nil else {
                return .failure(
                    Problem(message: "expected an IP address or localhost as host, got \(JSONValue.quoted(host))"))
            }
        }
        guard let port = Int(portText), ((allowingAnyPort ? 0 : 1)...65535).contains(port),
            portText.allSatisfy(\.isNumber)
        else {
            return .failure(
                Problem(message: "expected a port 1 to 65535 after the host, got \(JSONValue.quoted(String(portText)))")
            )
        }
        return .success(ListenAddress(host: host, port: port))
    }

    static func ipv4Octets(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isNumber), let value = Int(part), value <= 255
            else { return nil }
            octets.append(value)
        }
        return octets
    }
}
