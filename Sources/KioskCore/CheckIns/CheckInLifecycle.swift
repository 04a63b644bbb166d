public import Foundation

/// The pure check-in lifecycle: given a card's stays (already opened), the bound venue and the time, decide what a
/// tap does. No clock, no I/O, no crypto.
///
/// Rules:
/// - a tap within `policy.debounce` of the card's last registered tap does nothing (`.alreadyRegistered`);
/// - a tap while checked in at this venue checks out (at `now`, never after the automatic end, never before start);
/// - a tap while checked in at another venue ends that stay and checks in here;
/// - otherwise it checks in, unless the card reached `policy.dailyLimit` check-ins on this UTC day, or the venue is an
///   event that has ended (as Corona-Warn-App refused an ended event's code; the stays there ended with it);
/// - a clock more than `policy.debounce` behind the card's last tap refuses the tap, so no stay gets a negative length;
/// - stays past retention are dropped on the way (`deletions`), whatever the store's expiry did.
public enum CheckInLifecycle {
    /// The effect of one tap: an outcome and the changes to store (atomically) before acknowledging it.
    public struct Decision: Sendable, Equatable {
        public var outcome: TapOutcome
        public var upserts: [Stay]
        public var deletions: [StayID]
    }

    /// `history`: what the card itself counts of the taps its given `stays` do not show (a diary card hands over
    /// only its open stay: its last tap and its check-ins of the day are in its header); nil when `stays` are all.
    public static func tap(
        stays: [Stay], at venue: StayVenue, now: Date, newStayID: StayID,
        policy: CheckInPolicy = .default, history: TapHistory? = nil
    ) -> Decision {
        let kept = stays.filter { policy.retention.isWithinRetention($0, now: now) }
        let deletions = stays.filter { !policy.retention.isWithinRetention($0, now: now) }.map(\.id)

        if let lastTap = (kept.map(\.lastTap) + [history?.lastTap].compactMap { $0 }).max() {
            if now < lastTap.addingTimeInterval(-policy.debounce) {
                return Decision(outcome: .refused(.clockBehindLastTap), upserts: [], deletions: deletions)
            }
            if abs(now.timeIntervalSince(lastTap)) < policy.debounce {
                return Decision(outcome: .alreadyRegistered, upserts: [], deletions: deletions)
            }
        }

        let open = kept.filter { $0.isOpen(at: now) }
        if let here = open.first(where: { $0.locationId == venue.locationId }) {
            var closed = here
            closed.checkOut(at: now)
            // Any other open stay (only possible after an inconsistency) is ended too.
            let others = open.filter { $0.id != here.id }.map { stay in
                var ended = stay
                ended.checkOut(at: now)
                return ended
            }
            return Decision(
                outcome: .checkedOut(here.id, stayedFor: max(0, now.timeIntervalSince(here.start))),
                upserts: [closed] + others, deletions: deletions)
        }

        let endedElsewhere = open.map { stay in
            var ended = stay
            ended.checkOut(at: now)
            return ended
        }
        let today = RetentionPolicy.dayNumber(now)
        let checkInsToday =
            history.map { $0.checkInsDay == today ? $0.checkIns : 0 }
            ?? kept.filter { RetentionPolicy.dayNumber($0.start) == today }.count
        guard checkInsToday < policy.dailyLimit else {
            return Decision(
                outcome: .refused(.dailyLimitReached(limit: policy.dailyLimit)),
                upserts: endedElsewhere, deletions: deletions)
        }
        if let end = venue.autoCheckout.eventEnd, now >= end {
            return Decision(outcome: .refused(.eventEnded), upserts: endedElsewhere, deletions: deletions)
        }
        var stay = Stay(
            id: newStayID, locationId: venue.locationId, venueDescription: venue.description,
            venueAddress: venue.address, start: now,
            latestEnd: venue.autoCheckout.latestEnd(forStayStartingAt: now))
        stay.crowdNotifier = venue.crowdNotifier
        return Decision(
            outcome: .checkedIn(
                stay.id, automaticCheckout: stay.latestEnd,
                endedStayElsewhere: !endedElsewhere.isEmpty),
            upserts: endedElsewhere + [stay], deletions: deletions)
    }
}

/// What a card counts of its own taps when its stays are not all at hand (a diary card's header).
public struct TapHistory: Sendable, Equatable {
    /// The last registered tap.
    public var lastTap: Date?
    /// The UTC day (`RetentionPolicy.dayNumber`) of `checkIns` check-ins.
    public var checkInsDay: Int64
    public var checkIns: Int

    public init(lastTap: Date?, checkInsDay: Int64, checkIns: Int) {
        self.lastTap = lastTap
        self.checkInsDay = checkInsDay
        self.checkIns = checkIns
    }
}

extension Stay {
    /// Ends the stay at `time`, clamped to `start...latestEnd`: a clock jump never makes it negative or too long.
    public mutating func checkOut(at time: Date) {
        checkedOut = min(max(time, start), latestEnd)
    }
}
