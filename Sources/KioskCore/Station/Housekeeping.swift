public import Foundation

/// The station's timers and bookkeeping, apart from any person: when expiry last ran, whether the clock was
/// synchronized, what was last saved and whether the state must be saved again, and which coming deadline was
/// already announced with a tone. A child of the station: it answers with actions, the parent maps them.
struct Housekeeping: Sendable {
    /// The state as last persisted (a failed persist reverts the venue binding and staff cards to it).
    private(set) var persisted: StationState
    /// Something changed that is not saved yet (pruned entries, a failed save): saved at the next tick.
    var needsPersist = false
    /// The hour (of the clock's lower bound) in which expiry last ran: it runs again as each hour begins.
    private var lastExpiryHour: Int64?
    private var clockWasSynchronized: Bool?
    /// The deadline whose coming end was announced with a tone (once per deadline).
    private var announcedDeadline: Date?

    init(persisted: StationState) { self.persisted = persisted }

    /// The clock's synchronization changed (or was read for the first time): whether it became set, became unset,
    /// or nothing changed for the screen.
    enum ClockChange { case set, unset, none }

    mutating func clockChanged(_ reading: ClockReading) -> ClockChange {
        let was = clockWasSynchronized
        clockWasSynchronized = reading.isSynchronized
        if reading.isSynchronized {
            guard was == false else { return .none }
            lastExpiryHour = nil
            return .set
        }
        return was != false ? .unset : .none
    }

    /// What the tick asks of the store: expiry at the first tick, then as each hour of the latest real time begins
    /// (rows expire by the hour), synchronized or not — and at once when the latest real time becomes unknown (a
    /// restart after an unknown time off: every row goes); the state saved when due.
    mutating func tick(now: ClockReading, state: StationState) -> [StationAction] {
        var actions = [StationAction]()
        let hour = RetentionPolicy.hourReached(now)
        if hour != lastExpiryHour, !RetentionPolicy.awaitsSynchronization(now) {
            lastExpiryHour = hour
            actions.append(.expireNow)
        }
        if needsPersist {
            needsPersist = false
            actions.append(.persist(state))
        }
        return actions
    }

    /// Drops counter entries and warning records that may have run out, by the latest the real time can be (warning
    /// records by the hour, as the stays they concern; all of them when that is unknown, as the stays go), and has the
    /// state saved at the next tick so that what went from memory goes from the disk too.
    mutating func prune(_ state: inout StationState, now: ClockReading) {
        guard !RetentionPolicy.awaitsSynchronization(now) else { return }
        let latest = now.latest ?? .distantFuture
        let hour = RetentionPolicy.hourReached(now)
        let before = (state.openCheckInEnds.count, state.warnings.count)
        state.openCheckInEnds.removeAll { $0 <= latest }
        state.warnings.removeAll { $0.expiryHour <= hour }
        if (state.openCheckInEnds.count, state.warnings.count) != before { needsPersist = true }
    }

    /// The state was saved.
    mutating func saved(_ state: StationState) {
        persisted = state
        needsPersist = false
    }

    /// A tone for a waiting screen about to end by `deadline`, once per deadline.
    mutating func announce(_ deadline: Date?, now: Date) -> [StationAction] {
        guard let deadline, deadline.timeIntervalSince(now) <= CheckInMachine.timeWarning,
            announcedDeadline != deadline
        else { return [] }
        announcedDeadline = deadline
        return [.indicate(.timeRunningOut)]
    }
}
