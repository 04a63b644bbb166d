public import Foundation
public import KioskCore
internal import KioskDaemon
internal import Synchronization

/// The clock of a simulated kiosk: the real time shifted by an offset that `kiosk simulate advance` moves forward,
/// and a synchronized flag that a scenario can clear (as after a power cut on a board without RTC).
///
/// The offset is kept in a small file in the state directory so that a simulated kiosk restarted after a crash
/// continues at the same simulated time.
///
/// It is also the simulated board's monotonic clock: each instance is one boot (a restarted simulated kiosk has been
/// through a power cut), whose clock counts the simulated time since the instance began, advances included.
public final class SimulatedClockSource: ClockSource, MonotonicClock {
    private struct State: Codable {
        var offsetSeconds: Double
        var synchronized: Bool
    }
    private let state: Mutex<State>
    private let file: String?
    private let bootID = "simulated-" + UUID().uuidString
    private let bootedAt: Date

    /// `file`: where the offset is kept (nil: memory only). A missing or unreadable file starts at offset zero.
    public init(file: String?, synchronized: Bool = true) {
        self.file = file
        var initial = State(offsetSeconds: 0, synchronized: synchronized)
        if let file, let data = FileManager.default.contents(atPath: file),
            let saved = try? JSONDecoder().decode(State.self, from: data)
        {
            initial = saved
            // A file from before the bound, or edited by hand, cannot take the clock where dates no longer fit.
            if !initial.offsetSeconds.isFinite || initial.offsetSeconds < 0 { initial.offsetSeconds = 0 }
            initial.offsetSeconds = min(initial.offsetSeconds, SimulatedTime.maximumOffset)
        }
        state = Mutex(initial)
        bootedAt = Date().addingTimeInterval(initial.offsetSeconds)
    }

    public func reading() -> MonotonicReading {
        MonotonicReading(bootID: bootID, sinceBoot: max(0, read().now.timeIntervalSince(bootedAt)))
    }

    public func read() -> ClockReading {
        let current = state.withLock { $0 }
        return ClockReading(now: Date().addingTimeInterval(current.offsetSeconds), isSynchronized: current.synchronized)
    }

    /// Moves the simulated time forward (never backward: a negative or non-finite amount is ignored), at most to
    /// `SimulatedTime.maximumOffset` ahead of the real time.
    public func advance(by seconds: TimeInterval) {
        guard seconds > 0, seconds.isFinite else { return }
        save(
            state.withLock {
                $0.offsetSeconds = min($0.offsetSeconds + seconds, SimulatedTime.maximumOffset)
                return $0
            })
    }

    /// Marks the clock synchronized or not.
    public func setSynchronized(_ synchronized: Bool) {
        save(
            state.withLock {
                $0.synchronized = synchronized
                return $0
            })
    }

    /// How far the simulated time is ahead of the real time.
    public var offset: TimeInterval { state.withLock { $0.offsetSeconds } }

    private func save(_ current: State) {
        guard let file, let data = try? JSONEncoder().encode(current) else { return }
        try? data.write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}
