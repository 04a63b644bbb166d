public import Foundation

/// What a card tap did, for the screen, the lights and the buzzer.
public enum TapOutcome: Sendable, Equatable {
    /// Checked in; the stay ends by itself at `automaticCheckout`. `endedStayElsewhere`: a stay at another venue
    /// (bound earlier) was ended first.
    case checkedIn(StayID, automaticCheckout: Date, endedStayElsewhere: Bool)
    /// Checked out of the open stay here, which had lasted `stayedFor` seconds.
    case checkedOut(StayID, stayedFor: TimeInterval)
    /// The card was registered a moment ago; nothing changed.
    case alreadyRegistered
    /// Nothing new was stored, for the reason given.
    case refused(TapRefusal)
}

/// Why a tap was not stored. The messages are for the kiosk's screen and logs: no personal data in them.
public enum TapRefusal: Error, Sendable, Equatable {
    /// The system clock is not synchronized yet (typical after a power cut on a board without RTC).
    case clockNotSynchronized
    /// The clock is behind this card's last registered tap: recording now could make a negative stay.
    case clockBehindLastTap
    /// This card reached the per-day limit of check-ins.
    case dailyLimitReached(limit: Int)
    /// A staff card was tapped where a visitor card belongs.
    case staffCard
    /// The venue is an event that has ended: no check-in (the stays there ended with it).
    case eventEnded
    /// The card's holder blocked it on this kiosk (lost card): it neither checks in nor opens anything here.
    case cardBlocked
    /// The store cannot take check-ins now (full, read-only, damaged).
    case storeUnavailable(StoreError)
    /// The crypto library failed (no randomness, internal error).
    case cryptoFailure
    /// The card's stored profile (its PIN, its permissions) is there but cannot be opened (damaged or altered): its
    /// session stays closed rather than open without its PIN.
    case profileUnreadable
    /// A diary card left the reader before its change was committed: nothing changed on it.
    case cardLeft
    /// A diary card's files or the region's keys refused (a damaged diary, a token that failed): nothing changed.
    case diaryUnreadable
}

extension TapRefusal: CustomStringConvertible {
    public var description: String {
        switch self {
        case .clockNotSynchronized: "Clock not set yet: check-ins are paused until the kiosk has the correct time."
        case .clockBehindLastTap: "The kiosk clock is behind this card's last check-in: ask staff to check the time."
        case .dailyLimitReached(let limit): "This card has reached today's limit of \(limit) check-ins."
        case .staffCard: "This is a staff card: it does not check in."
        case .eventEnded: "This event has ended: check-ins are closed, and stays here ended with it."
        case .cardBlocked: "This card was blocked on this kiosk by its holder. Ask staff for a new card."
        case .storeUnavailable(let error): "Check-ins are paused: \(error)"
        case .cryptoFailure: "Check-ins are paused: the kiosk's encryption failed. Restart the kiosk."
        case .profileUnreadable: "This card's settings here cannot be read: its check-ins stay closed. Ask staff."
        case .cardLeft:
            "The card was taken away too early: nothing was saved on it. Hold it on the reader and tap again."
        case .diaryUnreadable: "This card's diary could not be read here: nothing was changed on it. Ask staff."
        }
    }
}
