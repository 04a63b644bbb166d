public import Foundation
public import KioskCore
internal import Synchronization

/// A clock the test sets by hand: jump forwards, backwards, lose synchronization.
public final class ManualClockSource: ClockSource {
    private let reading: Mutex<ClockReading>

    public init(now: Date, isSynchronized: Bool = true) {
        reading = Mutex(ClockReading(now: now, isSynchronized: isSynchronized))
    }

    public func read() -> ClockReading { reading.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { reading.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }
    public func set(_ now: Date) { reading.withLock { $0.now = now } }
    public func setSynchronized(_ synchronized: Bool) { reading.withLock { $0.isSynchronized = synchronized } }
}
