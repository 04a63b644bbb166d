internal import Foundation
public import KioskCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// The board's monotonic clock: `CLOCK_BOOTTIME` (it keeps counting while suspended) and the kernel's boot id
/// (`/proc/sys/kernel/random/boot_id`, new at every boot). The corresponding C function is `clock_gettime`.
public struct SystemMonotonicClock: MonotonicClock {
    public static let bootIDPath = "/proc/sys/kernel/random/boot_id"

    private let bootID: String

    /// `bootIDPath`: where the boot id is read (once); when it cannot be read, a random id stands for this process,
    /// so a restart counts as a new boot (the floor then only loses the time the kiosk was down).
    public init(bootIDPath: String = SystemMonotonicClock.bootIDPath) {
        let text = (try? String(contentsOfFile: bootIDPath, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        bootID = text.flatMap { $0.isEmpty ? nil : $0 } ?? "process-" + UUID().uuidString
    }

    public func reading() -> MonotonicReading {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return MonotonicReading(bootID: bootID, sinceBoot: TimeInterval(now.tv_sec) + TimeInterval(now.tv_nsec) / 1e9)
    }
}
