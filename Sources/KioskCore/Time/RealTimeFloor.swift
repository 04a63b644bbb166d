public import Foundation

/// A time the real time has certainly passed, and where the board's monotonic clock stood then; kept durably so that
/// a board without a real-time clock still knows a lower bound of the time after a restart or a power cut.
///
/// Within one boot the bound moves with the monotonic clock (`CLOCK_BOOTTIME`, which also counts suspend). After a
/// reboot the monotonic clock starts again from zero; the new boot began after the floor was written, so the floor plus
/// the time since this boot is still a lower bound. What is lost is only the time the board was off and the time since
/// the floor was last written.
public struct RealTimeFloor: Sendable, Equatable, Codable {
    /// The real time was at least this…
    public var time: Date
    /// …when the monotonic clock of boot `bootID` read `sinceBoot` seconds.
    public var bootID: String
    public var sinceBoot: TimeInterval
    /// True when the floor was carried across a reboot since the last synchronized reading: it then lacks the time the
    /// board was off, which nothing on a board without a real-time clock can know. (Absent in floors kept before this
    /// field: read as false.)
    public var missesDowntime: Bool {
        get { downtime ?? false }
        set { downtime = newValue }
    }
    private var downtime: Bool?

    private enum CodingKeys: String, CodingKey {
        case time, bootID, sinceBoot
        case downtime = "missesDowntime"
    }

    public init(time: Date, bootID: String, sinceBoot: TimeInterval, missesDowntime: Bool = false) {
        self.time = time
        self.bootID = bootID
        self.sinceBoot = sinceBoot
        self.downtime = missesDowntime
    }

    /// The floor moved to `monotonic`: the earliest the real time can be at that reading. Across a reboot it misses
    /// the time the board was off.
    public func advanced(to monotonic: MonotonicReading) -> RealTimeFloor {
        let sameBoot = monotonic.bootID == bootID
        let passed = sameBoot ? max(0, monotonic.sinceBoot - sinceBoot) : max(0, monotonic.sinceBoot)
        return RealTimeFloor(
            time: time.addingTimeInterval(passed), bootID: monotonic.bootID, sinceBoot: monotonic.sinceBoot,
            missesDowntime: missesDowntime || !sameBoot)
    }
}

/// The board's monotonic clock: which boot, and seconds since it began.
public struct MonotonicReading: Sendable, Equatable {
    public var bootID: String
    public var sinceBoot: TimeInterval

    public init(bootID: String, sinceBoot: TimeInterval) {
        self.bootID = bootID
        self.sinceBoot = sinceBoot
    }
}

/// The board's monotonic clock (`SystemMonotonicClock` in `KioskDaemon`; simulated clocks provide their own).
public protocol MonotonicClock: Sendable {
    func reading() -> MonotonicReading
}

/// Where the floor is kept (the kiosk's database, beside the station state).
public protocol RealTimeFloorStore: Sendable {
    func loadRealTimeFloor() throws(StoreError) -> RealTimeFloor?
    func saveRealTimeFloor(_ floor: RealTimeFloor) throws(StoreError)
}
