import Foundation

/// Serves card taps: derives the card's keys, opens its stays, lets `CheckInLifecycle` decide, seals the changes
/// and commits them to the store. A tap is reported as stored only after the store's durable commit returned.
///
/// Keys exist only inside one call and are wiped before it returns. Rows that do not authenticate under the card's
/// key are ignored (never shown, never overwritten).
public struct CheckInDesk: Sendable {
    public let store: any CheckInStore
    public let crypto: any CryptoProvider
    public var policy: CheckInPolicy

    public init(store: any CheckInStore, crypto: any CryptoProvider, policy: CheckInPolicy = .default) {
        self.store = store
        self.crypto = crypto
        self.policy = policy
    }

    /// A visitor card tapped at the kiosk bound to `venue`.
    public func tap(_ card: CardSecret, at venue: StayVenue, clock: ClockReading) -> TapOutcome {
        tap(card, at: venue, clock: clock, collectingMatchable: false).outcome
    }

    /// Serves a tap as `tap(_:at:clock:)` does and, when `collectingMatchable`, also returns the card's stays as
    /// they stand after the tap, ready to match against warnings (`matchableStays`): the stays are opened once per
    /// tap, whatever follows. `language`: the one the card's holder chose (kept in its profile), for the tap's
    /// message; nil when they chose none or the tap was refused.
    public func tap(_ card: CardSecret, at venue: StayVenue, clock: ClockReading, collectingMatchable: Bool)
        -> (outcome: TapOutcome, matchable: [MatchableStay], language: Language?)
    {
        guard clock.isSynchronized else { return (.refused(.clockNotSynchronized), [], nil) }
        guard card.kind == .visitor else { return (.refused(.staffCard), [], nil) }
        var stays: [Stay] = []
        var matching = collectingMatchable
        var language: Language?
        do throws(TapRefusal) {
            let keys = try makeKeys(card)
            defer { keys.wipe() }
            if try isBlocked(keys) { throw TapRefusal.cardBlocked }
            // A card is matched against warnings only with its holder's permission (`CardProfile.matchingAllowed`): then a
            // profile that does not open refuses the tap, as before; otherwise it only leaves the language unknown.
            let profile: CardProfile? = matching ? try profile(keys: keys) : try? profile(keys: keys)
            language = profile?.language.flatMap(Language.init(rawValue:))
            if matching { matching = profile?.matchingAllowed == true }
            stays = try openStays(keys: keys)
            let newID: StayID
            do { newID = try StayID.random(using: crypto) } catch { throw TapRefusal.cryptoFailure }
            let decision = CheckInLifecycle.tap(
                stays: stays, at: venue, now: clock.now, newStayID: newID, policy: policy)
            if !decision.upserts.isEmpty || !decision.deletions.isEmpty {
                try commit(decision.upserts, deletions: decision.deletions, keys: keys)
                let replaced = Set(decision.upserts.map(\.id)).union(decision.deletions)
                stays = stays.filter { !replaced.contains($0.id) } + decision.upserts
            }
            return (decision.outcome, matching ? matchableStays(stays, clock: clock) : [], language)
        } catch {
            switch error {
            case .storeUnavailable, .cryptoFailure, .clockNotSynchronized, .cardBlocked:
                return (.refused(error), [], nil)
            default:
                return (.refused(error), matching ? matchableStays(stays, clock: clock) : [], language)
            }
        }
    }

    /// The card's stays, newest first; those that may be past retention (`ClockReading.latest`) are left out, all of
    /// them when the latest real time is unknown.
    public func stays(of card: CardSecret, clock: ClockReading) throws(TapRefusal) -> [StaySummary] {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        let stays = policy.retention.kept(try openStays(keys: keys), clock: clock)
        return stays.sorted { $0.start > $1.start }.map { StaySummary($0, now: clock.now) }
    }

    /// The card's stays as the consent flow lists them (`ReportableStay`): the venue's location id for sealing,
    /// name and address for the holder's eyes, UNIX seconds; a stay still open ends at `clock.now`.
    public func reportableStays(of card: CardSecret, clock: ClockReading) throws(TapRefusal) -> [ReportableStay] {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        return try openStays(keys: keys).sorted { $0.start > $1.start }.map {
            CardContents.reportable($0, now: clock.now)
        }
    }

    /// Marks the card's stays `ids` (hex, as `reportableStays` names them) as reported by their holder, so that the
    /// warnings their own report causes are not shown to them. Returns how many were marked.
    @discardableResult
    public func markReported(_ ids: Set<String>, of card: CardSecret) throws(TapRefusal) -> Int {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        var changed = [Stay]()
        for var stay in try openStays(keys: keys) where ids.contains(stay.id.hex) && !stay.reported {
            stay.reported = true
            changed.append(stay)
        }
        if !changed.isEmpty { try commit(changed, deletions: [], keys: keys) }
        return changed.count
    }

    /// "Delete this stay": removes one of the card's stays. Returns false if the card has no such stay.
    @discardableResult
    public func deleteStay(_ id: StayID, of card: CardSecret) throws(TapRefusal) -> Bool {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        let owned = try openStays(keys: keys).contains { $0.id == id }
        guard owned else { return false }
        try commit([], deletions: [id], keys: keys)
        return true
    }

    /// "Delete all my data": removes every row under the card's handle, readable or not. Returns how many.
    @discardableResult
    public func deleteAll(of card: CardSecret) throws(TapRefusal) -> Int {
        let keys = try makeKeys(card)
        defer { keys.wipe() }
        do { return try store.deleteAll(handle: keys.handle) } catch { throw .storeUnavailable(error) }
    }

    /// "Wipe this kiosk" (staff): removes every stay of every card.
    public func wipeKiosk() throws(TapRefusal) {
        do { try store.wipe() } catch { throw .storeUnavailable(error) }
    }

    /// Deletes every row whose expiry hour may have come: by the latest the real time can be (`ClockReading.latest`:
    /// the time itself when synchronized, the floor carried by this boot's monotonic clock otherwise). When that is
    /// unknown — a restart whose clock is not synchronized, after a time off nobody can know — every row goes: early,
    /// never late (`RetentionPolicy`). A clock that is not synchronized is never read, so one set years ahead deletes
    /// nothing it should keep for that reason alone, and one set back keeps nothing longer.
    @discardableResult
    public func expire(clock: ClockReading) throws(TapRefusal) -> Int {
        do { return try store.expire(throughHour: RetentionPolicy.hourReached(clock)) } catch {
            throw .storeUnavailable(error)
        }
    }

    /// The card's keys on this kiosk (see `CardKeys`: the kiosk's handle salt is part of the derivation).
    public func keys(for card: CardSecret) throws(TapRefusal) -> CardKeys {
        try makeKeys(card)
    }

    func makeKeys(_ card: CardSecret) throws(TapRefusal) -> CardKeys {
        let fresh: [UInt8]
        do { fresh = try crypto.randomBytes(count: 32) } catch { throw .cryptoFailure }
        let salt: [UInt8]
        do { salt = try store.handleSalt(orStore: fresh) } catch { throw .storeUnavailable(error) }
        do { return try CardKeys(secret: card, kioskSalt: salt, crypto: crypto) } catch { throw .cryptoFailure }
    }

    func openStays(keys: CardKeys) throws(TapRefusal) -> [Stay] {
        let rows: [StoredStay]
        do { rows = try store.stays(handle: keys.handle) } catch { throw .storeUnavailable(error) }
        return rows.compactMap { row in
            guard let id = StayID(bytes: row.id) else { return nil }
            return StaySealing.open(row.sealed, id: id, keys: keys, crypto: crypto)
        }
    }

    func commit(_ upserts: [Stay], deletions: [StayID], keys: CardKeys) throws(TapRefusal) {
        var rows = [StoredStay]()
        for stay in upserts {
            let sealed: [UInt8]
            do { sealed = try StaySealing.seal(stay, keys: keys, crypto: crypto) } catch { throw .cryptoFailure }
            rows.append(
                StoredStay(
                    id: stay.id.bytes, handle: keys.handle, sealed: sealed,
                    expiryHour: policy.retention.expiryHour(forStayEndingAt: stay.endBound)))
        }
        do {
            try store.commit(handle: keys.handle, upserts: rows, deletions: deletions.map(\.bytes))
        } catch {
            throw .storeUnavailable(error)
        }
    }
}
