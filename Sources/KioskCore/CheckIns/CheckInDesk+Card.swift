internal import Foundation

/// What the card holder's own session works with: the card's profile, its block, its PIN, and everything of the
/// card at once. Keys live only inside each call, as for a tap.
extension CheckInDesk {
    /// Everything the kiosk holds for a card, opened while the card is present: its stays within retention (newest
    /// first), its profile, and — only when its holder allowed matching — its stays as the warnings matcher takes
    /// them.
    public struct CardContents: Sendable, Equatable {
        public var stays: [StaySummary]
        public var reportable: [ReportableStay]
        public var profile: CardProfile
        public var matchable: [MatchableStay]
        /// A diary card's: stays younger than 14 days gave way on the full card since its holder last looked.
        public var cardWasFull = false
    }

    /// Opens what the kiosk holds for `card`. Refuses a blocked card.
    public func contents(of card: CardSecret, clock: ClockReading) throws(TapRefusal) -> CardContents {
        guard card.kind == .visitor else { throw .staffCard }
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        if try isBlocked(keys) { throw .cardBlocked }
        return CardContents(
            opened: try openStays(keys: keys), profile: try profile(keys: keys), retention: policy.retention,
            clock: clock)
    }

    /// The card's profile (`CardProfile.unanswered` when none was saved, or it does not open under the card's keys).
    public func profile(of card: CardSecret) throws(TapRefusal) -> CardProfile {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        return try profile(keys: keys)
    }

    /// Saves the card's profile durably.
    public func saveProfile(_ profile: CardProfile, of card: CardSecret) throws(TapRefusal) {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        try save(profile, keys: keys)
    }

    /// "Block my card": deletes every stay and the profile of the card and keeps its handle as blocked, so the card
    /// (and its printed code, which carries the same secret) neither checks in nor opens a session here again.
    /// Returns how many stays went.
    @discardableResult
    public func block(_ card: CardSecret) throws(TapRefusal) -> Int {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        do { return try store.block(handle: keys.handle) } catch { throw .storeUnavailable(error) }
    }

    /// The result of a PIN typed at the opening of a session.
    public enum PINCheck: Sendable, Equatable {
        /// Right (or the card has no PIN); the wrong-PIN count is back at zero.
        case accepted
        /// Wrong; `remaining` tries before the card's session is locked.
        case wrong(remaining: Int)
        /// Locked until this moment (UNIX seconds): too many wrong PINs.
        case locked(until: Int64)
    }

    /// Checks `pin` against the card's PIN at `now` (UNIX seconds), counting wrong ones durably: after
    /// `CardProfile.pinAttempts` wrong PINs in a row the card's session is locked (`CardProfile.lockSeconds(after:)`:
    /// an hour, then twice as long after each further wrong PIN), whatever is typed; only the right PIN brings the
    /// count back to zero (a restart does not). A count that cannot be saved refuses: no PIN is taken as right
    /// unless its wrong ones can be counted. The verifiers are compared in constant time.
    public func checkPIN(_ pin: String, of card: CardSecret, now: Int64) throws(TapRefusal) -> PINCheck {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        var profile = try profile(keys: keys)
        guard let expected = profile.pinVerifier else { return .accepted }
        if profile.isLocked(at: now), let until = profile.lockedUntil { return .locked(until: until) }
        let typed: [UInt8]
        do { typed = try CardProfileSealing.verifier(for: pin, keys: keys, crypto: crypto) } catch {
            throw .cryptoFailure
        }
        let (check, changed) = profile.check(typed, against: expected, now: now, crypto: crypto)
        if changed { try save(profile, keys: keys) }
        return check
    }

    /// Sets (or with `nil` removes) the card's PIN; a PIN must have 4 to 6 digits.
    public func setPIN(_ pin: String?, of card: CardSecret) throws(TapRefusal) {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        var profile = try profile(keys: keys)
        if let pin {
            precondition(CardProfile.isWellFormed(pin), "a PIN has 4 to 6 digits")
            do { profile.pinVerifier = try CardProfileSealing.verifier(for: pin, keys: keys, crypto: crypto) } catch {
                throw .cryptoFailure
            }
        } else {
            profile.pinVerifier = nil
        }
        profile.wrongPINs = 0
        profile.lockedUntil = nil
        try save(profile, keys: keys)
    }

    // MARK: Plumbing

    func isBlocked(_ keys: CardKeys) throws(TapRefusal) -> Bool {
        do { return try store.isBlocked(handle: keys.handle) } catch { throw .storeUnavailable(error) }
    }

    func profile(keys: CardKeys) throws(TapRefusal) -> CardProfile {
        let sealed: [UInt8]?
        do { sealed = try store.profile(handle: keys.handle) } catch { throw .storeUnavailable(error) }
        guard let sealed else { return .unanswered }
        // A profile that is there and does not open (a changed byte, another card's) is no unanswered one: it may
        // hold a PIN and a lock. Refused, so nothing opens without them.
        guard let opened = CardProfileSealing.open(sealed, keys: keys, crypto: crypto) else {
            throw .profileUnreadable
        }
        return opened
    }

    private func save(_ profile: CardProfile, keys: CardKeys) throws(TapRefusal) {
        let sealed: [UInt8]
        do { sealed = try CardProfileSealing.seal(profile, keys: keys, crypto: crypto) } catch { throw .cryptoFailure }
        do { try store.saveProfile(handle: keys.handle, sealed: sealed) } catch { throw .storeUnavailable(error) }
    }

}

extension CheckInDesk.CardContents {
    /// What the holder's session shows of a card's `opened` stays, wherever they are kept (the kiosk's store, a
    /// diary card): those within retention, newest first, and, when the holder allows matching, those a warning
    /// may concern.
    public init(opened: [Stay], profile: CardProfile, retention: RetentionPolicy, clock: ClockReading) {
        let kept = retention.kept(opened, clock: clock).sorted { $0.start > $1.start }
        self.init(
            stays: kept.map { StaySummary($0, now: clock.now) },
            reportable: kept.map { Self.reportable($0, now: clock.now) },
            profile: profile,
            matchable: profile.matchingAllowed == true ? Self.matchable(opened, retention: retention, clock: clock) : []
        )
    }

    static func reportable(_ stay: Stay, now: Date) -> ReportableStay {
        let end = stay.end(asOf: now) ?? now
        let place = stay.venueAddress.isEmpty ? stay.venueDescription : "\(stay.venueDescription), \(stay.venueAddress)"
        return ReportableStay(
            id: stay.id.hex, venueName: place, locationId: stay.locationId,
            start: Int64(stay.start.timeIntervalSince1970.rounded(.down)),
            end: Int64(end.timeIntervalSince1970.rounded(.down)), crowdNotifier: stay.crowdNotifier)
    }

    /// The stays a warning may concern, as the matcher takes them: those within retention (`RetentionPolicy.kept`),
    /// without the holder's own reported stays (any warning about them came from their own report); an open stay
    /// ends now, or at its latest end.
    public static func matchable(_ stays: [Stay], retention: RetentionPolicy, clock: ClockReading) -> [MatchableStay] {
        retention.kept(stays, clock: clock).filter { !$0.reported }.map { stay in
            let end = stay.end(asOf: clock.now) ?? min(clock.now, stay.latestEnd)
            return MatchableStay(
                id: stay.id.hex, locationId: stay.locationId,
                start: Int64(stay.start.timeIntervalSince1970.rounded(.down)),
                end: Int64(max(end, stay.start).timeIntervalSince1970.rounded(.down)),
                crowdNotifier: stay.crowdNotifier)
        }
    }
}
