public import KioskCore
internal import Foundation
internal import CKioskTime
#if canImport(Glibc)
internal import Glibc
#endif

/// The system clock, and whether it is synchronized.
///
/// Synchronized means either:
/// - the kernel's NTP state says so: `ntp_adjtime` (read-only, `modes = 0`) does not return `TIME_ERROR` and
///   `STA_UNSYNC` is clear — set by chrony, ntpd and systemd-timesyncd when they discipline the clock; or
/// - systemd-timesyncd's marker file `/run/systemd/timesync/synchronized` exists (it creates it after the first
///   successful synchronization of this boot).
/// Boards without a real-time clock boot unsynchronized, so the kiosk refuses check-ins until one of these holds.
public struct SystemClockSource: ClockSource {
    public static let timesyncMarker = "/run/systemd/timesync/synchronized"

    private let markerPath: String?
    private let consultKernel: Bool

    /// `markerPath`: the timesyncd marker to honour (nil: ignore). `consultKernel`: ask `ntp_adjtime`.
    public init(markerPath: String? = SystemClockSource.timesyncMarker, consultKernel: Bool = true) {
        self.markerPath = markerPath
        self.consultKernel = consultKernel
    }

    public func read() -> ClockReading {
        var synchronized = false
        if consultKernel, Self.kernelSynchronized() == true { synchronized = true }
        if !synchronized, let markerPath, access(markerPath, F_OK) == 0 { synchronized = true }
        return ClockReading(now: Date(), isSynchronized: synchronized)
    }

    /// The kernel's view, or nil if the call failed. The corresponding C function is `ntp_adjtime`.
    public static func kernelSynchronized() -> Bool? {
        var state = timex()
        state.modes = 0
        let result = ntp_adjtime(&state)
        guard result >= 0 else { return nil }
        return result != TIME_ERROR && (state.status & Int32(STA_UNSYNC)) == 0
    }
}
