public import Foundation
internal import Synchronization

/// A clock source whose readings carry a lower bound of the real time (`ClockReading.earliest`) even while the clock
/// is not synchronized: every synchronized reading becomes the floor, an unsynchronized one gets the floor moved on by
/// the monotonic clock. The floor is written durably whenever it has moved `persistInterval` or more since it was last
/// written (and at once on a new boot), so a power cut costs at most that much of it.
public final class FlooredClockSource: ClockSource {
    /// How far the floor may move before it is written again: a power cut loses at most this much of it.
    public static let persistInterval: TimeInterval = 600

    private let base: any ClockSource
    private let monotonic: any MonotonicClock
    private let store: any RealTimeFloorStore
    private struct State {
        var floor: RealTimeFloor?
        var written: RealTimeFloor?
    }
    private let state: Mutex<State>

    /// Loads the floor kept in `store` (none when it cannot be read: then only a synchronized reading sets one).
    public init(base: any ClockSource, monotonic: any MonotonicClock, store: any RealTimeFloorStore) {
        self.base = base
        self.monotonic = monotonic
        self.store = store
        let kept = try? store.loadRealTimeFloor()
        state = Mutex(State(floor: kept, written: kept))
    }

    public func read() -> ClockReading {
        let reading = base.read()
        let now = monotonic.reading()
        let toWrite: RealTimeFloor?
        let floor: RealTimeFloor?
        let downtimeUnknown: Bool
        (floor, toWrite, downtimeUnknown) = state.withLock { state -> (RealTimeFloor?, RealTimeFloor?, Bool) in
            if reading.isSynchronized {
                state.floor = RealTimeFloor(time: reading.now, bootID: now.bootID, sinceBoot: now.sinceBoot)
            } else {
                state.floor = state.floor?.advanced(to: now)
            }
            guard let floor = state.floor else { return (nil, nil, true) }
            let unknown = floor.missesDowntime
            let due =
                state.written.map {
                    $0.bootID != floor.bootID || abs(floor.time.timeIntervalSince($0.time)) >= Self.persistInterval
                } ?? true
            if due { state.written = floor }
            return (floor, due ? floor : nil, unknown)
        }
        // A failed write is tried again when the floor has moved on by another interval (never at every reading).
        if let toWrite { try? store.saveRealTimeFloor(toWrite) }
        return ClockReading(
            now: reading.now, isSynchronized: reading.isSynchronized, floor: floor?.time,
            downtimeUnknownFor: downtimeUnknown ? now.sinceBoot : nil)
    }
}
