public import Foundation

/// Serves a diary card's tap at a kiosk of its region, and opens its diary for the holder's session
/// (docs/diary-card.md). Nothing is kept on the kiosk: the stays opened here live in the call and are wiped with it.
///
/// A tap reads the header only — the open stay and the holder's settings, never the ring — lets `CheckInLifecycle`
/// decide with the header's own count of the card's taps, and writes the new header and at most one finished stay
/// in one transaction. A stay whose day's key is gone (more than 14 days ago) no longer opens and is dropped; a card
/// whose stays are all that old (back from a drawer) has them cleared at its tap.
public struct DiaryDesk: Sendable {
    public let keys: any RegionKeys
    public let crypto: any CryptoProvider
    public var policy: CheckInPolicy

    public init(keys: any RegionKeys, crypto: any CryptoProvider, policy: CheckInPolicy = .default) {
        self.keys = keys
        self.crypto = crypto
        self.policy = policy
    }

    /// What a diary card's tap did.
    public struct Tap: Sendable, Equatable {
        /// The tap's outcome, as for any card.
        public var outcome: TapOutcome
        /// The holder's language (kept on the card), for the tap's message.
        public var language: Language?
        /// A stay younger than 14 days was pushed out of the card's full diary, and the holder was not told yet.
        public var pushedOut: Bool
        /// Whether the holder allows their stays to be matched against warnings (kept on the card).
        public var matchingAllowed = false
    }

    /// Why a diary card's tap did nothing.
    public enum Failure: Error, Equatable, Sendable {
        /// The card left before the transaction was committed: nothing changed on it.
        case cardGone
        /// The card, its header or the region's keys refused.
        case diary(DiaryError)
        case card(DiaryCardError)

        /// A card's failure as the desk reports it: gone, or refused.
        init(_ error: DiaryCardError) { self = error == .cardGone ? .cardGone : .card(error) }
    }

    /// A tap of the card in the field at `venue`.
    public func tap(_ card: some DiaryCardFiles, at venue: StayVenue, clock: ClockReading) -> Result<Tap, Failure> {
        guard clock.isSynchronized else { return .success(Tap(outcome: .refused(.clockNotSynchronized))) }
        let now = clock.now
        let today = DiaryCalendar.day(of: now)
        do throws(Failure) {
            var (original, read) = try readTapPart(card)
            if read.holdsOnlyExpiredStays(today: today) {
                // Back from a drawer: no kiosk can open its stays any more, and the card's copies go now, in a
                // transaction before the tap's own (a card pulled away between the two has lost only them).
                read.forgetStays()
                do { original = try read.encoded() } catch { throw .diary(error) }
                do { try card.clearRing(header: original) } catch { throw Failure(error) }
            }
            var header = read
            let language = header.profile.language.flatMap(Language.init(rawValue:))
            let open = header.openStay.flatMap {
                DiarySealing.open($0, share: [], uid: card.uid, keys: keys, today: today, crypto: crypto)
            }
            let number = header.nextNumber
            let newID = DiaryStayID.make(number)
            let decision = CheckInLifecycle.tap(
                stays: open.map { [$0] } ?? [], at: venue, now: now, newStayID: newID,
                policy: policy,
                history: TapHistory(
                    lastTap: header.lastTap, checkInsDay: Int64(header.checkInDay), checkIns: header.checkInsThatDay))
            var finished = decision.upserts.first { $0.id != newID }
            let opened = decision.upserts.first { $0.id == newID }
            if finished == nil, let open, !decision.deletions.contains(open.id), opened != nil || !open.isOpen(at: now)
            {
                // The open stay ended by its venue's rule: it moves to the ring now.
                finished = open
            }
            if open.map({ decision.deletions.contains($0.id) }) ?? true { header.openStay = nil }
            var record: [UInt8]?
            if let finished, let finishedNumber = DiaryStayID.number(of: finished.id) {
                if header.nextAppendPushesOut {
                    // The slot about to be overwritten: its share, not read with the tap's part, decides whether a
                    // stay that could still be opened gives way.
                    let offset = DiaryHeader.shareOffset(slot: header.nextSlot)
                    let share: [UInt8]
                    do { share = try card.readHeader(offset: offset, count: DiaryHeader.shareBytes) } catch {
                        throw Failure(error)
                    }
                    guard share.count == DiaryHeader.shareBytes else { throw .diary(.headerUnreadable) }
                    original.replaceSubrange(offset..<offset + DiaryHeader.shareBytes, with: share)
                    header.shares[header.nextSlot] = share
                }
                if header.nextAppendPushesOut, try pushesOutAnOpenableStay(card, header: header, today: today) {
                    header.pushedOutUntold = true
                }
                let share = try newShare()
                record = try sealed(finished, number: finishedNumber, share: share, uid: card.uid, today: today)
                header.shares[header.nextSlot] = share
                header.setReported(finished.reported, slot: header.nextSlot)
                header.openStay = nil
                header.appended &+= 1
            }
            if let opened {
                header.openStay = try sealed(opened, number: number, share: [], uid: card.uid, today: today)
                header.nextNumber = number &+ 1
                header.checkInsThatDay = header.checkInDay == today ? header.checkInsThatDay + 1 : 1
                header.checkInDay = today
            }
            switch decision.outcome {
            case .checkedIn, .checkedOut: header.lastTap = now
            default: break
            }
            let bytes: [UInt8]
            do { bytes = try header.encoded() } catch { throw .diary(error) }
            if bytes != original || record != nil { try write(card, bytes: bytes, over: original, record: record) }
            return .success(
                Tap(
                    outcome: decision.outcome, language: language, pushedOut: header.pushedOutUntold,
                    matchingAllowed: header.profile.matchingAllowed == true))
        } catch {
            return .failure(error)
        }
    }

    /// The card's stays the holder may see: the ring's and the open one, each opened under its day's key, those
    /// past retention left out; newest first. Only for the holder's session (after their PIN, when one is set) or
    /// a warning check they allowed.
    public func stays(of card: some DiaryCardFiles, clock: ClockReading) throws(Failure) -> [Stay] {
        try stays(of: card, header: try readHeader(card).header, clock: clock)
    }

    /// The card's stays as `stays(of:clock:)` opens them, with its whole `header` already read.
    func stays(of card: some DiaryCardFiles, header: DiaryHeader, clock: ClockReading) throws(Failure) -> [Stay] {
        let today = DiaryCalendar.day(of: clock.now)
        var stays: [Stay] = []
        for (index, record) in try readRing(card, header: header).enumerated() {
            let slot = header.slot(ofRingIndex: index)
            let share = header.shares[slot]
            guard !DiaryShare.isDeleted(share),
                var stay = DiarySealing.open(
                    record, share: share, uid: card.uid, keys: keys, today: today, crypto: crypto)
            else { continue }
            stay.reported = header.isReported(slot: slot)
            stays.append(stay)
        }
        if let open = header.openStay,
            let stay = DiarySealing.open(open, share: [], uid: card.uid, keys: keys, today: today, crypto: crypto)
        {
            stays.append(stay)
        }
        return policy.retention.kept(stays, clock: clock).sorted { $0.start > $1.start }
    }

    func readRing(_ card: some DiaryCardFiles, header: DiaryHeader) throws(Failure) -> [[UInt8]] {
        guard header.recordsInRing > 0 else { return [] }
        do { return try card.readRing(count: header.recordsInRing) } catch { throw Failure(error) }
    }

    func newShare() throws(Failure) -> [UInt8] {
        do { return try DiaryShare.random(using: crypto) } catch { throw .diary(error) }
    }

    /// The header's part a tap reads (`DiaryHeader.tapBytes`), with zeros for the shares it does not read.
    func readTapPart(_ card: some DiaryCardFiles) throws(Failure) -> (bytes: [UInt8], header: DiaryHeader) {
        let prefix: [UInt8]
        do { prefix = try card.readHeader(offset: 0, count: DiaryHeader.tapBytes) } catch { throw Failure(error) }
        guard let bytes = DiaryHeader.padded(prefix) else { throw .diary(.headerUnreadable) }
        do { return (bytes, try DiaryHeader(encoded: bytes)) } catch { throw .diary(error) }
    }

    func readHeader(_ card: some DiaryCardFiles) throws(Failure) -> (bytes: [UInt8], header: DiaryHeader) {
        let bytes: [UInt8]
        do { bytes = try card.readHeader() } catch { throw Failure(error) }
        do { return (bytes, try DiaryHeader(encoded: bytes)) } catch { throw .diary(error) }
    }

    func sealed(_ stay: Stay, number: UInt32, share: [UInt8], uid: [UInt8], today: DiaryDay) throws(Failure)
        -> [UInt8]
    {
        do {
            return try DiarySealing.seal(
                stay, number: number, share: share, uid: uid, keys: keys, today: today, crypto: crypto)
        } catch {
            throw .diary(error)
        }
    }

    /// Whether appending to the card's full ring pushes out a stay that could still be opened (not deleted, its day
    /// not yet 14 days ago): only the oldest record's day, in clear, is read — no stay is opened.
    private func pushesOutAnOpenableStay(_ card: some DiaryCardFiles, header: DiaryHeader, today: DiaryDay)
        throws(Failure) -> Bool
    {
        guard !DiaryShare.isDeleted(header.shares[header.nextSlot]) else { return false }
        let oldest: [UInt8]?
        do { oldest = try card.readRecord(fromNewest: header.slots - 1) } catch { throw Failure(error) }
        guard let oldest, let label = DiarySealing.label(of: oldest) else { return false }
        return label.day >= DiaryRetention.oldestOpenDay(today: today)
    }

    /// Writes `header` where it differs from the `original` bytes read from the card.
    func write(_ card: some DiaryCardFiles, header: DiaryHeader, over original: [UInt8], record: [UInt8]?)
        throws(Failure)
    {
        let bytes: [UInt8]
        do { bytes = try header.encoded() } catch { throw .diary(error) }
        try write(card, bytes: bytes, over: original, record: record)
    }

    private func write(_ card: some DiaryCardFiles, bytes: [UInt8], over original: [UInt8], record: [UInt8]?)
        throws(Failure)
    {
        do { try card.write(header: DiaryHeaderChange.between(original, bytes), appending: record) } catch {
            throw Failure(error)
        }
    }
}

extension DiaryDesk.Tap {
    init(outcome: TapOutcome) {
        self.init(outcome: outcome, language: nil, pushedOut: false)
    }
}
