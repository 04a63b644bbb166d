public import Foundation

/// The time as the kiosk knows it: the wall clock, whether it is synchronized to a trusted source, and a lower bound
/// of the real time. The core takes this as a value; it never reads a clock itself.
public struct ClockReading: Sendable, Equatable {
    public var now: Date
    public var isSynchronized: Bool
    /// What the clock source knows for sure of the real time while the clock is not synchronized (`RealTimeFloor`:
    /// the last synchronized reading plus the time that has passed since); nil when it knows nothing.
    public var floor: Date?

    /// `floor`: the lower bound that holds while the clock is not synchronized.
    public init(now: Date, isSynchronized: Bool, floor: Date? = nil) {
        self.now = now
        self.isSynchronized = isSynchronized
        self.floor = floor
    }

    /// The earliest the real time can be: `now` on a synchronized clock, `floor` otherwise. Retention runs against
    /// this, so an unsynchronized board still deletes what is due, never early.
    public var earliest: Date? { isSynchronized ? now : floor }
}

/// A source of `ClockReading`s: the system clock in the daemon (`SystemClockSource` under `FlooredClockSource` in
/// `KioskDaemon`), a manual clock in tests (`ManualClockSource` in `KioskSimulation`).
public protocol ClockSource: Sendable {
    func read() -> ClockReading
}
