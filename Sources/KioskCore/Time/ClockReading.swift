public import Foundation

/// The time as the kiosk knows it: the wall clock, and whether it is synchronized to a trusted source.
/// The core takes this as a value; it never reads a clock itself.
public struct ClockReading: Sendable, Equatable {
    public var now: Date
    public var isSynchronized: Bool

    public init(now: Date, isSynchronized: Bool) {
        self.now = now
        self.isSynchronized = isSynchronized
    }
}

/// A source of `ClockReading`s: the system clock in the daemon (`SystemClockSource` in `KioskDaemon`), a manual
/// clock in tests (`ManualClockSource` in `KioskSimulation`).
public protocol ClockSource: Sendable {
    func read() -> ClockReading
}
