public import Foundation

/// The time as the kiosk knows it: the wall clock, whether it is synchronized to a trusted source, and a lower bound
/// of the real time. The core takes this as a value; it never reads a clock itself.
public struct ClockReading: Sendable, Equatable {
    public var now: Date
    public var isSynchronized: Bool
    /// What the clock source knows for sure of the real time while the clock is not synchronized (`RealTimeFloor`:
    /// the last synchronized reading plus the time that has passed since); nil when it knows nothing.
    public var floor: Date?
    /// Set while the clock is not synchronized and the board was switched off for a time it cannot know (this boot has
    /// not been synchronized yet and the floor comes from an earlier boot, or there is none): how long this boot has
    /// run so. The floor then lacks the time the board was off, which may be any length.
    public var downtimeUnknownFor: TimeInterval?

    /// `floor`: the lower bound that holds while the clock is not synchronized; `downtimeUnknownFor`: see above.
    public init(now: Date, isSynchronized: Bool, floor: Date? = nil, downtimeUnknownFor: TimeInterval? = nil) {
        self.now = now
        self.isSynchronized = isSynchronized
        self.floor = floor
        self.downtimeUnknownFor = isSynchronized ? nil : downtimeUnknownFor
    }

    /// Whether the board was off for a time it cannot know (see `downtimeUnknownFor`).
    public var downtimeUnknown: Bool { downtimeUnknownFor != nil }

    /// The earliest the real time can be: `now` on a synchronized clock, `floor` otherwise. Check-ins and the
    /// deadlines of open stays use this.
    public var earliest: Date? { isSynchronized ? now : floor }

    /// The latest the real time can be, for retention, which must never be late: `now` on a synchronized clock; the
    /// floor while it moves with the monotonic clock of a boot that knew the time (it is then the time itself, but for
    /// the clock's drift); nil — any time at all — while the board was off for an unknown time, or the clock never
    /// knew the time. Retention runs against this: with nil, every stay may be past its 14 days, and goes.
    public var latest: Date? { isSynchronized ? now : (downtimeUnknown ? nil : floor) }
}

/// A source of `ClockReading`s: the system clock in the daemon (`SystemClockSource` under `FlooredClockSource` in
/// `KioskDaemon`), a manual clock in tests (`ManualClockSource` in `KioskSimulation`).
public protocol ClockSource: Sendable {
    func read() -> ClockReading
}
