public import Foundation

/// What the holder's own session does with a diary card in the field: their settings and PIN (kept in the card's
/// header, so a guesser's wrong PINs count at every kiosk), deleting one stay or all, and marking stays reported.
/// Each change is one transaction on the card.
extension DiaryDesk {
    static let pinKeyLabel = Array("KioskDiaryPIN1".utf8)
    static let pinLabel = Array("CheckInKiosk PIN v1".utf8)

    /// The holder's settings kept on the card.
    public func profile(of card: some DiaryCardFiles) throws(Failure) -> CardProfile {
        try readHeader(card).header.profile
    }

    /// Saves the holder's settings on the card. The PIN's verifier and count are left as the card holds them.
    public func saveSettings(_ settings: CardProfile, of card: some DiaryCardFiles) throws(Failure) {
        let (original, read) = try readHeader(card)
        var header = read
        header.profile.matchingAllowed = settings.matchingAllowed
        header.profile.language = settings.language
        header.profile.alwaysSpeak = settings.alwaysSpeak
        try write(card, header: header, over: original, record: nil)
    }

    /// Keeps on the card that its holder read and acknowledged a warning (`tag`: `CardProfile.acknowledgement`, in the
    /// profile): no kiosk of the region tells it again, and none keeps a record of it.
    public func acknowledge(_ tag: [UInt8], of card: some DiaryCardFiles) throws(Failure) {
        let (original, read) = try readHeader(card)
        var header = read
        header.profile.acknowledgedWarning = Array(tag.prefix(CardProfile.acknowledgedTagBytes))
        try write(card, header: header, over: original, record: nil)
    }

    /// Checks a typed PIN as `CheckInDesk.checkPIN` does (the same count and locks, `CardProfile.check`), the
    /// count kept on the card. A count that cannot be written refuses.
    public func checkPIN(_ pin: String, of card: some DiaryCardFiles, now: Int64) throws(Failure)
        -> CheckInDesk.PINCheck
    {
        let (original, read) = try readHeader(card)
        var header = read
        guard let expected = header.profile.pinVerifier else { return .accepted }
        if header.profile.isLocked(at: now), let until = header.profile.lockedUntil { return .locked(until: until) }
        let typed = try pinVerifier(pin, uid: card.uid)
        let (check, changed) = header.profile.check(typed, against: expected, now: now, crypto: crypto)
        if changed { try write(card, header: header, over: original, record: nil) }
        return check
    }

    /// Sets (or with nil removes) the card's PIN (4 to 6 digits).
    public func setPIN(_ pin: String?, of card: some DiaryCardFiles) throws(Failure) {
        let (original, read) = try readHeader(card)
        var header = read
        if let pin {
            precondition(CardProfile.isWellFormed(pin), "a PIN has 4 to 6 digits")
            header.profile.pinVerifier = try pinVerifier(pin, uid: card.uid)
        } else {
            header.profile.pinVerifier = nil
        }
        header.profile.wrongPINs = 0
        header.profile.lockedUntil = nil
        try write(card, header: header, over: original, record: nil)
    }

    /// The holder was told that a young stay was pushed out of their full diary.
    public func acknowledgePushedOut(of card: some DiaryCardFiles) throws(Failure) {
        let (original, read) = try readHeader(card)
        var header = read
        guard header.pushedOutUntold else { return }
        header.pushedOutUntold = false
        try write(card, header: header, over: original, record: nil)
    }

    /// Deletes the stays named `ids` (the open one too, if named): a ring record's share is forgotten, so no kiosk
    /// can open it again (its bytes go when the ring overwrites them); every other record stays as it was. Returns
    /// how many were deleted.
    @discardableResult
    public func delete(_ ids: Set<StayID>, of card: some DiaryCardFiles) throws(Failure) -> Int {
        let (original, read) = try readHeader(card)
        var header = read
        var deleted = 0
        for (index, record) in try readRing(card, header: header).enumerated() {
            let slot = header.slot(ofRingIndex: index)
            guard let label = DiarySealing.label(of: record), ids.contains(DiaryStayID.make(label.number)),
                !DiaryShare.isDeleted(header.shares[slot])
            else { continue }
            header.shares[slot] = DiaryShare.deleted
            header.setReported(false, slot: slot)
            deleted += 1
        }
        if let open = header.openStay, let label = DiarySealing.label(of: open),
            ids.contains(DiaryStayID.make(label.number))
        {
            header.openStay = nil
            deleted += 1
        }
        guard deleted > 0 else { return 0 }
        try write(card, header: header, over: original, record: nil)
        return deleted
    }

    /// Deletes every stay on the card, the open one included, and clears the ring's bytes; the holder's settings
    /// stay.
    public func deleteAll(of card: some DiaryCardFiles) throws(Failure) {
        var header = try readHeader(card).header
        header.forgetStays()
        let bytes: [UInt8]
        do { bytes = try header.encoded() } catch { throw .diary(error) }
        do { try card.clearRing(header: bytes) } catch { throw Failure(error) }
    }

    /// Marks the stays named `ids` as reported (their warnings are the holder's own and never shown): a bit of the
    /// header for a ring record, the open stay sealed again.
    public func markReported(_ ids: Set<StayID>, of card: some DiaryCardFiles, clock: ClockReading) throws(Failure) {
        let today = DiaryCalendar.day(of: clock.now)
        let (original, read) = try readHeader(card)
        var header = read
        let before = header
        for (index, record) in try readRing(card, header: header).enumerated() {
            let slot = header.slot(ofRingIndex: index)
            guard let label = DiarySealing.label(of: record), ids.contains(DiaryStayID.make(label.number)),
                !DiaryShare.isDeleted(header.shares[slot])
            else { continue }
            header.setReported(true, slot: slot)
        }
        if let open = header.openStay, let label = DiarySealing.label(of: open),
            ids.contains(DiaryStayID.make(label.number)),
            var stay = DiarySealing.open(open, share: [], uid: card.uid, keys: keys, today: today, crypto: crypto),
            !stay.reported
        {
            stay.reported = true
            header.openStay = try sealed(stay, number: label.number, share: [], uid: card.uid, today: today)
        }
        if header != before { try write(card, header: header, over: original, record: nil) }
    }

    /// The PIN's verifier on a diary card: HMAC-SHA256 under SHA-256("KioskDiaryPIN1" ‖ real UID) of a label and
    /// the digits. It does not key the diary (docs/THREAT-MODEL.md, "Diary cards"): a holder of the region's key
    /// could try every PIN; it keeps a finder from the session at an honest kiosk.
    private func pinVerifier(_ pin: String, uid: [UInt8]) throws(Failure) -> [UInt8] {
        var key: [UInt8] = []
        var message = Self.pinLabel + Array(pin.utf8)
        defer {
            crypto.wipe(&key)
            crypto.wipe(&message)
        }
        do {
            key = try crypto.sha256(Self.pinKeyLabel + uid)
            return try crypto.hmacSHA256(key: key, data: message)
        } catch {
            throw .diary(.crypto)
        }
    }
}
