public import KioskCore

/// Runs the store's expiry at start-up and then every `interval` of monotonic time (`ContinuousClock`), so that a
/// wall-clock jump neither skips nor repeats a run. Each run deletes every row whose expiry day has come (rows carry
/// the day, so a late run catches up on everything due) and is skipped while the clock is not synchronized.
public struct ExpiryLoop: Sendable {
    /// What one run did; never carries stored data.
    public enum Result: Sendable, Equatable {
        case expired(count: Int)
        case skippedClockNotSynchronized
        case failed(StoreError)
    }

    public let desk: CheckInDesk
    public let clock: any ClockSource
    public let interval: Duration

    public init(desk: CheckInDesk, clock: any ClockSource, interval: Duration = .seconds(3600)) {
        self.desk = desk
        self.clock = clock
        self.interval = interval
    }

    /// One expiry run now.
    public func runOnce() -> Result {
        do {
            return .expired(count: try desk.expire(clock: clock.read()))
        } catch .clockNotSynchronized {
            return .skippedClockNotSynchronized
        } catch .storeUnavailable(let error) {
            return .failed(error)
        } catch {
            return .failed(.ioFailure(code: -1))
        }
    }

    /// Runs at once, then every `interval`, until the task is cancelled. `report` sees each result (for logs and
    /// the status page); a failed run is retried at the next interval, never thrown.
    public func run(report: @Sendable (Result) -> Void = { _ in }) async {
        while !Task.isCancelled {
            report(runOnce())
            do {
                try await Task.sleep(for: interval, clock: ContinuousClock())
            } catch {
                return
            }
        }
    }
}
