/// Which requests the screen page answers, as a pure value (the metrics endpoint applies its `Host` rule too).
///
/// - The `Host` header must name the kiosk itself: `localhost`, `127.0.0.1`, `[::1]` or the configured listen host,
///   with the port the page listens on (a page on a listen address of `0.0.0.0` or `::` also answers any IP address
///   literal). A name an attacker controls (DNS rebinding) is refused.
/// - A `POST` is same-origin only: its `Origin` header is absent or `http://` plus that same host.
public struct ScreenRequestGuard: Sendable, Equatable {
    /// The listen host as configured (`127.0.0.1`, `::1`, `localhost`, `192.168.1.20`), without brackets.
    public var listenHost: String
    /// The port the page is bound to.
    public var port: Int

    public init(listenHost: String, port: Int) {
        self.listenHost = listenHost
        self.port = port
    }

    public enum Verdict: Sendable, Equatable {
        case allowed
        /// The `Host` header names someone else: 421 Misdirected Request.
        case wrongHost
        /// A `POST` from another origin: 403 Forbidden.
        case crossOrigin
    }

    public func check(host: String?, origin: String?, isPost: Bool) -> Verdict {
        guard let host, isKioskHost(host) else { return .wrongHost }
        if isPost, let origin, origin.lowercased() != "http://" + host.lowercased() { return .crossOrigin }
        return .allowed
    }

    /// Whether a `Host` header value names this kiosk's page.
    public func isKioskHost(_ value: String) -> Bool {
        let value = value.lowercased()
        let name: String
        let portText: Substring?
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return false }
            name = String(value[value.index(after: value.startIndex)..<close])
            let rest = value[value.index(after: close)...]
            if rest.isEmpty {
                portText = nil
            } else if rest.hasPrefix(":") {
                portText = rest.dropFirst()
            } else {
                return false
            }
        } else if let colon = value.firstIndex(of: ":") {
            name = String(value[..<colon])
            portText = value[value.index(after: colon)...]
        } else {
            name = value
            portText = nil
        }
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCIIDigit), Int(portText) == port else { return false }
        } else if port != 80 {
            return false
        }
        let listen = listenHost.lowercased()
        if ["localhost", "127.0.0.1", "::1", listen].contains(name) { return true }
        if listen == "0.0.0.0" || listen == "::" { return Self.isIPLiteral(name) }
        return false
    }

    static func isIPLiteral(_ name: String) -> Bool {
        if name.contains(":") { return name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
