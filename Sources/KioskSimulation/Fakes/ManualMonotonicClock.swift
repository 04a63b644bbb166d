public import Foundation
public import KioskCore
internal import Synchronization

/// A monotonic clock the test moves by hand, and reboots.
public final class ManualMonotonicClock: MonotonicClock {
    private let current: Mutex<MonotonicReading>

    public init(bootID: String = "boot-1", sinceBoot: TimeInterval = 60) {
        current = Mutex(MonotonicReading(bootID: bootID, sinceBoot: sinceBoot))
    }

    public func reading() -> MonotonicReading { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0.sinceBoot += seconds } }

    /// A new boot (a power cut and a restart): a new id, and `sinceBoot` seconds since it began.
    public func reboot(as bootID: String, sinceBoot: TimeInterval = 30) {
        current.withLock { $0 = MonotonicReading(bootID: bootID, sinceBoot: sinceBoot) }
    }
}
