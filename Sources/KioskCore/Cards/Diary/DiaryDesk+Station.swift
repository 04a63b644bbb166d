public import Foundation

/// A diary card at the station: the tap, the holder's session and its requests, answered as the station takes them
/// from any card (`TapOutcome`, `CheckInDesk.CardContents`, `ServedRequest`), so that `CheckInMachine` decides the
/// same for both. The one place a diary card's failure becomes a tap's refusal.
extension DiaryDesk {
    /// A tap of the card in the field at `venue`, as the station takes it. `cardWasFull`: a stay younger than 14
    /// days gave way on the full card, and its holder was not told yet; `matchingAllowed`: the tap was made and its
    /// holder allows their stays to be matched (the header said so), so the station may look for news
    /// (`matchable(of:clock:)`) — after the tap's light, since that reads the ring.
    public func stationTap(_ card: some DiaryCardFiles, at venue: StayVenue, clock: ClockReading)
        -> (outcome: TapOutcome, language: Language?, cardWasFull: Bool, matchingAllowed: Bool)
    {
        switch tap(card, at: venue, clock: clock) {
        case .success(let tap):
            let refused = if case .refused = tap.outcome { true } else { false }
            return (tap.outcome, tap.language, tap.pushedOut, !refused && tap.matchingAllowed)
        case .failure(let failure): return (.refused(Self.refusal(failure)), nil, false, false)
        }
    }

    /// The card's stays as they stand, ready to match against warnings (the ring is read), and its holder's profile
    /// (the warning they acknowledged last: not news any more); no stays when its holder does not allow matching.
    /// Throws the refusal of a card that cannot be read now (the tap is on it already).
    public func matchable(of card: some DiaryCardFiles, clock: ClockReading) throws(TapRefusal) -> (
        stays: [MatchableStay], profile: CardProfile
    ) {
        do throws(Failure) {
            let header = try readHeader(card).header
            guard header.profile.matchingAllowed == true else { return ([], header.profile) }
            let stays = CheckInDesk.CardContents.matchable(
                try stays(of: card, header: header, clock: clock), retention: policy.retention, clock: clock)
            return (stays, header.profile)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// What the holder's session shows: the card's stays and settings.
    public func contents(of card: some DiaryCardFiles, clock: ClockReading) throws(TapRefusal)
        -> CheckInDesk.CardContents
    {
        do throws(Failure) {
            let (original, header) = try readHeader(card)
            var contents = CheckInDesk.CardContents(
                opened: try stays(of: card, header: header, clock: clock), profile: header.profile,
                retention: policy.retention, clock: clock)
            if header.pushedOutUntold {
                // Told now, in the holder's session: the card forgets that it has to tell (a card that cannot be
                // written tells again next time).
                contents.cardWasFull = true
                var told = header
                told.pushedOutUntold = false
                try? write(card, header: told, over: original, record: nil)
            }
            return contents
        } catch {
            throw Self.refusal(error)
        }
    }

    /// Carries out a request of the holder's session on the card, as `CheckInDesk.serve` does for a kiosk card.
    /// Blocking the card is a kiosk card's (it blocks the kiosk's copy): a diary card has none, so its holder
    /// deletes everything instead, which the session offers.
    public func serve(_ request: VisitorSession.Request, of card: some DiaryCardFiles, clock: ClockReading)
        throws(TapRefusal) -> ServedRequest
    {
        let now = Int64(clock.now.timeIntervalSince1970.rounded(.down))
        do throws(Failure) {
            switch request {
            case .checkPIN(let pin): return .pin(try checkPIN(pin, of: card, now: now))
            case .deliver(let preview): return .deliver(preview)
            case .acknowledgeWarning(let tag):
                try acknowledge(tag, of: card)
                return .done
            case .printWarningSlip: return .done
            case .setPIN(let pin): try setPIN(pin, of: card)
            case .saveProfile(let profile): try saveSettings(profile, of: card)
            case .deleteStay(let id): try delete([id], of: card)
            case .deleteAll, .block: try deleteAll(of: card)
            case .markReported(let ids):
                let stays = Set(ids.compactMap { Hex.decode($0).flatMap(StayID.init(bytes:)) })
                try markReported(stays, of: card, clock: clock)
            case .saveEnrolment(let matching, let pin, let language):
                try saveSettings(try profile(of: card).answering(matching: matching, language: language), of: card)
                if let pin { try setPIN(pin, of: card) }
                return .done
            }
        } catch {
            throw Self.refusal(error)
        }
        return .changed
    }

    /// Moves the region's day ratchet to today, destroying the day keys older than 14 days, so that no stay of
    /// those days opens anywhere any more: at the kiosk's daily expiry, and only with a synchronized clock (a clock
    /// ahead would destroy keys that are still needed; the ratchet never steps back).
    public func forgetOldDays(clock: ClockReading) throws(TapRefusal) {
        guard clock.isSynchronized else { return }
        do { try keys.advance(today: DiaryCalendar.day(of: clock.now)) } catch { throw .diaryUnreadable }
    }

    /// A diary card's failure as the station refuses: the card left (nothing changed on it), or its diary or the
    /// region's keys refused.
    static func refusal(_ failure: Failure) -> TapRefusal {
        switch failure {
        case .cardGone: .cardLeft
        case .card, .diary: .diaryUnreadable
        }
    }
}
