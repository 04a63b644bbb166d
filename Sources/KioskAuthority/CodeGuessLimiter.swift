import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds how fast verification codes can be guessed at the upload endpoint, without ever standing between a holder
/// and their valid code. Every code checked counts against its client (its IP address; an IPv6 address by its /64
/// network, which one machine usually holds whole) and against everyone, in one-minute windows; a code that turned out
/// valid is taken off again, so only wrong, used and expired codes stay counted.
///
/// - A client with nothing counted in the current window is always checked: a holder typing their code, whoever
///   else guesses, gets it checked (and a valid, unused code accepted).
/// - A client with wrong codes counted is checked again only while it is under `perClient` and everyone together is
///   under `overall`; otherwise it gets 429 (`Retry-After`) without its code being looked at, until the window ends.
///
/// So in one window at most `overall` + (one per distinct client) codes are checked, and one client checks at most
/// `perClient` (docs/THREAT-MODEL.md puts this against the codes' space and lifetime). Addresses are held in memory
/// for the current window only, never logged or written. The log gets one line per window in which codes were
/// refused, with counts: never a line per guess.
///
/// Behind a reverse proxy every connection comes from the proxy: `client(peer:realIP:forwardedFor:trustedProxies:)`
/// takes the client's address from the proxy's header, and only from a proxy the server was told to trust.
public actor CodeGuessLimiter {
    public static let window: Int64 = 60
    public let perClient: Int
    public let overall: Int

    private var windowStart: Int64?
    private var countedOverall = 0
    private var countedByClient: [String: Int] = [:]
    private var throttled = 0

    public init(perClient: Int = 10, overall: Int = 120) {
        self.perClient = perClient
        self.overall = overall
    }

    /// Whether a code from `client` may be checked at `now` (if so, the check is counted until `valid` takes it
    /// off); and, when a window with refusals just ended, the line to log about it.
    public func admit(client: String?, now: Int64) -> (allowed: Bool, summary: String?) {
        let summary = roll(now: now)
        let key = client ?? ""
        let counted = countedByClient[key, default: 0]
        let allowed = counted == 0 || (counted < perClient && countedOverall < overall)
        if allowed {
            countedByClient[key] = counted + 1
            countedOverall += 1
        } else {
            throttled += 1
        }
        return (allowed, summary)
    }

    /// The code `client` was admitted for was valid (or was not checked after all): it no longer counts as a guess.
    public func valid(client: String?, now: Int64) {
        // A check from a window that has ended was reset with it.
        guard let start = windowStart, now >= start, now - start < Self.window else { return }
        let key = client ?? ""
        guard let counted = countedByClient[key], counted > 0 else { return }
        countedByClient[key] = counted == 1 ? nil : counted - 1
        countedOverall = max(0, countedOverall - 1)
    }

    /// Starts a new window when the current one is over; returns the summary of the one that ended, if it refused
    /// anything.
    private func roll(now: Int64) -> String? {
        if let start = windowStart, now >= start, now - start < Self.window { return nil }
        let summary =
            countedOverall > 0 || throttled > 0
            ? "Verification codes in the last minute: \(countedOverall) wrong, \(throttled) not checked (too many tries)"
            : nil
        windowStart = now
        countedOverall = 0
        countedByClient = [:]
        throttled = 0
        return summary
    }

    /// The client a request is counted for: the peer's address, or — only when the peer is one of `trustedProxies`
    /// (the reverse proxy in front, e.g. nginx on the loopback) — the address that proxy names in `X-Real-IP`, or else
    /// the last one of `X-Forwarded-For` (the one the proxy appended). Anyone else's headers are ignored: a client
    /// cannot pick its own address. An IPv6 address counts by its /64 network. Nil when there is no address.
    public static func client(
        peer: String?, realIP: String?, forwardedFor: String?, trustedProxies: Set<String>
    ) -> String? {
        guard let peer else { return nil }
        if trustedProxies.contains(peer) {
            let named =
                realIP.flatMap(normalized)
                ?? forwardedFor?.split(separator: ",").last.flatMap {
                    normalized(String($0).trimmingCharacters(in: .whitespaces))
                }
            if let named { return named }
        }
        return normalized(peer) ?? peer
    }

    /// `text` as an IPv4 address, or the /64 network of an IPv6 address (`2001:db8:1:2::/64`); nil when it is not
    /// an IP address. The corresponding C function is `inet_pton`.
    static func normalized(_ text: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { $0.map(String.init).joined(separator: ".") }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")  // an IPv4-mapped address
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
