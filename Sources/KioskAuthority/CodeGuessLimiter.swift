/// Bounds how fast verification codes can be guessed at the upload endpoint: per client address and overall, wrong
/// codes are counted in one-minute windows; past `perClient` (for that address) or `overall` (for everyone), code
/// checks are refused until the window ends (429, `Retry-After`). Addresses are held in memory for the current window
/// only, never logged or written. The log gets one line per window in which codes were refused, with counts: never a
/// line per guess.
public actor CodeGuessLimiter {
    public static let window: Int64 = 60
    public let perClient: Int
    public let overall: Int

    private var windowStart: Int64?
    private var wrongOverall = 0
    private var wrongByClient: [String: Int] = [:]
    private var throttled = 0

    public init(perClient: Int = 10, overall: Int = 120) {
        self.perClient = perClient
        self.overall = overall
    }

    /// Whether a code from `client` may be checked at `now`; and, when a window with refusals just ended, the line to
    /// log about it.
    public func admit(client: String?, now: Int64) -> (allowed: Bool, summary: String?) {
        let summary = roll(now: now)
        let allowed = wrongOverall < overall && (client.map { wrongByClient[$0, default: 0] < perClient } ?? true)
        if !allowed { throttled += 1 }
        return (allowed, summary)
    }

    /// A code from `client` was wrong or expired.
    public func wrongCode(client: String?, now: Int64) {
        _ = roll(now: now)
        wrongOverall += 1
        if let client { wrongByClient[client, default: 0] += 1 }
    }

    /// Starts a new window when the current one is over; returns the summary of the one that ended, if it refused
    /// anything.
    private func roll(now: Int64) -> String? {
        if let start = windowStart, now >= start, now - start < Self.window { return nil }
        let summary =
            wrongOverall > 0 || throttled > 0
            ? "Verification codes in the last minute: \(wrongOverall) wrong, \(throttled) not checked (too many tries)"
            : nil
        windowStart = now
        wrongOverall = 0
        wrongByClient = [:]
        throttled = 0
        return summary
    }
}
