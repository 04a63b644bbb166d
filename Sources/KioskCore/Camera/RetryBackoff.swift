/// Exponential backoff between attempts to reach a device: `initial`, doubled after each consecutive failure, at most
/// `maximum`; a success starts the schedule again. A value: the caller sleeps.
public struct RetryBackoff: Sendable, Equatable {
    public let initial: Duration
    public let maximum: Duration
    /// Consecutive failures so far.
    public private(set) var failures: Int = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        precondition(initial > .zero && maximum >= initial, "the backoff needs 0 < initial <= maximum")
        self.initial = initial
        self.maximum = maximum
    }

    /// Records a failure and returns how long to wait before the next attempt.
    public mutating func failed() -> Duration {
        let delay = delay(afterFailures: failures + 1)
        failures += 1
        return delay
    }

    /// Records a success: the next failure waits `initial` again.
    public mutating func succeeded() { failures = 0 }

    /// The wait after `count` consecutive failures (1 → `initial`).
    public func delay(afterFailures count: Int) -> Duration {
        guard count > 1 else { return initial }
        var delay = initial
        for _ in 1..<min(count, 64) {
            delay *= 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }
}
