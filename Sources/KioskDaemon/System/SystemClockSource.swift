internal import CKioskLinux
internal import Foundation
public import KioskCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// The system clock, and whether it is synchronized, by the configured `clock.source`:
///
/// - `adjtimex`: the kernel's NTP state says so: `ntp_adjtime` (read-only, `modes = 0`) does not return `TIME_ERROR`
///   and `STA_UNSYNC` is clear — set by chrony, ntpd and systemd-timesyncd when they discipline the clock;
/// - `timesyncd`: systemd-timesyncd's marker file `/run/systemd/timesync/synchronized` exists (it creates it after the
///   first successful synchronization of this boot);
/// - `auto`: either of the two.
///
/// Boards without a real-time clock boot unsynchronized, so the kiosk refuses check-ins until the source says so.
public struct SystemClockSource: ClockSource {
    public typealias Source = KioskConfiguration.Clock.Source

    public static let timesyncMarker = "/run/systemd/timesync/synchronized"

    public let source: Source
    private let markerPath: String
    private let kernel: @Sendable () -> Bool?

    /// `markerPath`: where timesyncd's marker is looked for. `kernel`: the kernel's NTP state (nil: the call failed);
    /// both are replaceable for tests.
    public init(
        source: Source = .auto, markerPath: String = SystemClockSource.timesyncMarker,
        kernel: @escaping @Sendable () -> Bool? = { SystemClockSource.kernelSynchronized() }
    ) {
        self.source = source
        self.markerPath = markerPath
        self.kernel = kernel
    }

    public func read() -> ClockReading {
        ClockReading(now: Date(), isSynchronized: isSynchronized())
    }

    /// What `source` says now; the other source is not consulted.
    public func isSynchronized() -> Bool {
        switch source {
        case .adjtimex: kernel() == true
        case .timesyncd: markerExists()
        case .auto: kernel() == true || markerExists()
        }
    }

    private func markerExists() -> Bool { access(markerPath, F_OK) == 0 }

    /// The kernel's view, or nil if the call failed. The corresponding C function is `ntp_adjtime`.
    public static func kernelSynchronized() -> Bool? {
        var state = timex()
        state.modes = 0
        let result = ntp_adjtime(&state)
        guard result >= 0 else { return nil }
        return result != TIME_ERROR && (state.status & Int32(STA_UNSYNC)) == 0
    }
}
