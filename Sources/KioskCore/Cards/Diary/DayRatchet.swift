/// The region's day ratchet as decisions, with no key in sight (docs/diary-card.md, "The day ratchet"): the chain
/// K(d + 1) = AES-128-ECB(K(d), `stepInput`) runs forward only, a kiosk keeps its oldest still needed key K(d₀), and
/// these say how far to step from it. The steps themselves are taken inside the token (`PKCS11RegionKeys`).
public enum DayRatchet {
    /// The one block each step encrypts: "kiosk day ratchet" in ASCII fitted to 16 bytes. The design says
    /// "padded to 16 bytes", but the phrase has 17 characters: it is cut to its first 16 ("kiosk day ratche"), the
    /// only reading that gives one AES block (`CKM_AES_ECB_ENCRYPT_DATA` derives an AES-128 key from exactly one).
    /// Zero-padding is kept for a shorter constant, so the rule is "fitted": cut or zero-padded.
    public static let stepInput: [UInt8] = {
        var bytes = Array("kiosk day ratchet".utf8.prefix(16))
        bytes += [UInt8](repeating: 0, count: 16 - bytes.count)
        return bytes
    }()

    /// How many steps move a ratchet whose oldest day is `oldest` forward for `today`: none when it is there or
    /// beyond (a clock set back never moves it back), else the days between.
    public static func stepsToAdvance(from oldest: DiaryDay, today: DiaryDay) -> Int {
        max(0, DiaryRetention.oldestOpenDay(today: today) - oldest)
    }

    /// How many steps from K(`oldest`) reach K(`day`) on `today`, or nil when the day's key may not be had: older
    /// than the ratchet's oldest key or than the 14 days a stay opens (even if the ratchet has not moved yet), or
    /// after today.
    public static func stepsToReach(day: DiaryDay, from oldest: DiaryDay, today: DiaryDay) -> Int? {
        guard day >= oldest, day >= DiaryRetention.oldestOpenDay(today: today), day <= today else { return nil }
        return day - oldest
    }
}
