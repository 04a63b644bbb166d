public import Foundation

/// The header of a diary card (file 1, a backup data file, docs/diary-card.md): what a tap reads and writes. It
/// never holds a finished stay; the open one is sealed under its day's key like a record of the ring.
///
/// `01` (version) ‖ the next stay's number (u32) ‖ stays appended to the ring (u32) ‖ flags (u8; bit 0: a stay
/// younger than 14 days was pushed out of a full ring and the holder has not been told) ‖ the ring's records R (u8)
/// ‖ the day of the last check-in (u16) ‖ check-ins that day (u8) ‖ the last registered tap (u32 seconds since 1970,
/// 0 for none) ‖ the profile's length (u8) ‖ the holder's `CardProfile` (61 bytes, zero-padded) ‖ the open stay's
/// sealed record (112 bytes, zeros for none) ‖ the reported stays of the ring (8 bytes, a bit per slot) ‖ the
/// **share** of each slot of the ring (R − 1 times 8 bytes). Big-endian integers.
///
/// A ring record's key needs its slot's share (`DiarySealing`): zeroing a share deletes that stay for good — the
/// record's bytes stay on the card until the ring overwrites them, but no kiosk can open them any more. DESFire's
/// record files cannot change a record once written; the header, a backup file, changes atomically.
public struct DiaryHeader: Sendable, Equatable {
    public static let version: UInt8 = 1
    static let profileBytes = 61
    static let fixedBytes = 80
    static let shareBytes = 8
    static let reportedBytes = 8
    /// The most records a ring may have (the reported bitmap's 64 bits).
    public static let maximumRingRecords = 64

    /// The number the next stay checked in gets: stays are numbered in the order they open.
    public var nextNumber: UInt32
    /// How many stays were ever appended to the ring (the ring keeps the last `ringRecords − 1`).
    public var appended: UInt32
    /// A stay younger than 14 days was pushed out of the full ring and the holder was not told yet.
    public var pushedOutUntold: Bool
    /// The records the ring file was created with (2 to 64).
    public let ringRecords: Int
    /// The UTC day of the last check-in and how many the card made that day (the daily limit, counted without
    /// reading the ring).
    public var checkInDay: DiaryDay
    public var checkInsThatDay: Int
    /// The last registered tap, for debouncing and for a clock that went back.
    public var lastTap: Date?
    /// The holder's choices: matching allowed, PIN verifier and wrong PINs, language.
    public var profile: CardProfile
    /// The sealed record of the open stay, if the card is checked in (or its stay ended by rule and was not yet
    /// moved to the ring).
    public var openStay: [UInt8]?
    /// Per slot of the ring: whether its stay was reported.
    public var reported: UInt64
    /// Per slot of the ring (`ringRecords − 1`): the share its record's key needs; zeros when the slot is empty or
    /// its stay was deleted.
    public var shares: [[UInt8]]

    /// A new card's header for a ring of `ringRecords` records.
    public init(ringRecords: Int) {
        precondition((2...Self.maximumRingRecords).contains(ringRecords), "a ring has 2 to 64 records")
        self.ringRecords = ringRecords
        nextNumber = 0
        appended = 0
        pushedOutUntold = false
        checkInDay = 0
        checkInsThatDay = 0
        lastTap = nil
        profile = .unanswered
        openStay = nil
        reported = 0
        shares = Array(repeating: [UInt8](repeating: 0, count: Self.shareBytes), count: ringRecords - 1)
    }

    /// The header's size for a ring of `ringRecords` records.
    public static func size(ringRecords: Int) -> Int {
        fixedBytes + DiaryLayout.recordSize + reportedBytes + (ringRecords - 1) * shareBytes
    }

    /// The slots the ring keeps: `ringRecords − 1` (a cyclic record file keeps one free for its transaction).
    public var slots: Int { ringRecords - 1 }
    /// How many records the ring holds now.
    public var recordsInRing: Int { Int(min(appended, UInt32(slots))) }
    /// The slot the next appended record takes.
    public var nextSlot: Int { Int(appended % UInt32(slots)) }
    /// The slot of the ring's record `index` (0 the oldest the card holds, as `DiaryCardFiles.readRing` gives them).
    public func slot(ofRingIndex index: Int) -> Int {
        Int((appended - UInt32(recordsInRing) + UInt32(index)) % UInt32(slots))
    }
    /// Whether the next append pushes the oldest record out of the full ring.
    public var nextAppendPushesOut: Bool { appended >= UInt32(slots) }

    /// The bytes written to the card. Throws `.unrecordable` when the profile does not fit.
    public func encoded() throws(DiaryError) -> [UInt8] {
        var out: [UInt8] = [Self.version]
        out.appendBigEndian(nextNumber)
        out.appendBigEndian(appended)
        out.append(pushedOutUntold ? 1 : 0)
        out.append(UInt8(ringRecords))
        out.appendBigEndian(UInt16(clamping: max(0, checkInDay)))
        out.append(UInt8(clamping: checkInsThatDay))
        let tap = lastTap.map { $0.timeIntervalSince1970.rounded(.down) } ?? 0
        out.appendBigEndian(UInt32(clamping: Int64(max(0, tap))))
        let profileBytes = profile.encoded()
        guard profileBytes.count <= Self.profileBytes else { throw .unrecordable }
        out.append(UInt8(profileBytes.count))
        out += profileBytes + [UInt8](repeating: 0, count: Self.profileBytes - profileBytes.count)
        if let openStay {
            guard openStay.count == DiaryLayout.recordSize else { throw .unrecordable }
            out += openStay
        } else {
            out += [UInt8](repeating: 0, count: DiaryLayout.recordSize)
        }
        out.appendBigEndian(reported)
        guard shares.count == slots, shares.allSatisfy({ $0.count == Self.shareBytes }) else { throw .unrecordable }
        for share in shares { out += share }
        return out
    }

    /// The header in `bytes`; throws `.headerUnreadable` when they are not a header of this version.
    public init(encoded bytes: [UInt8]) throws(DiaryError) {
        guard bytes.count > Self.fixedBytes, bytes[0] == Self.version else { throw .headerUnreadable }
        var reader = ByteReader(Array(bytes.dropFirst()))
        guard let next = reader.readInteger(UInt32.self), let appended = reader.readInteger(UInt32.self),
            let flags = reader.readInteger(UInt8.self), flags & 0xFE == 0,
            let records = reader.readInteger(UInt8.self), (2...Self.maximumRingRecords).contains(Int(records)),
            bytes.count == Self.size(ringRecords: Int(records)),
            let day = reader.readInteger(UInt16.self), let count = reader.readInteger(UInt8.self),
            let tap = reader.readInteger(UInt32.self), let length = reader.readInteger(UInt8.self),
            Int(length) <= Self.profileBytes, let profileBytes = reader.read(Self.profileBytes),
            let profile = CardProfile(encoded: Array(profileBytes.prefix(Int(length)))),
            profileBytes.dropFirst(Int(length)).allSatisfy({ $0 == 0 }),
            let open = reader.read(DiaryLayout.recordSize), let reported = reader.readInteger(UInt64.self)
        else { throw .headerUnreadable }
        var shares: [[UInt8]] = []
        for _ in 0..<Int(records) - 1 {
            guard let share = reader.read(Self.shareBytes) else { throw .headerUnreadable }
            shares.append(share)
        }
        guard reader.remaining == 0 else { throw .headerUnreadable }
        nextNumber = next
        self.appended = appended
        pushedOutUntold = flags & 1 != 0
        ringRecords = Int(records)
        checkInDay = DiaryDay(day)
        checkInsThatDay = Int(count)
        lastTap = tap == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(tap))
        self.profile = profile
        openStay = open.allSatisfy { $0 == 0 } ? nil : open
        self.reported = reported
        self.shares = shares
    }

    /// Whether the stay in `slot` was reported.
    public func isReported(slot: Int) -> Bool { reported & (1 << UInt64(slot)) != 0 }

    /// Marks or clears the stay in `slot` as reported.
    public mutating func setReported(_ value: Bool, slot: Int) {
        if value { reported |= 1 << UInt64(slot) } else { reported &= ~(1 << UInt64(slot)) }
    }
}

extension DiaryHeader {
    /// The bytes a tap reads: the fixed part (the profile included), the open stay and the reported marks — not
    /// the ring's shares, which only a session or a deletion needs.
    public static let tapBytes = fixedBytes + DiaryLayout.recordSize + reportedBytes

    /// Where the share of `slot` lies in the header.
    public static func shareOffset(slot: Int) -> Int { tapBytes + slot * shareBytes }

    /// A header of which only the first `tapBytes` were read (`prefix`), the rest as zeros: every share reads as
    /// deleted. What a tap decides with; written back, it changes only what the tap changed.
    public static func padded(_ prefix: [UInt8]) -> [UInt8]? {
        guard prefix.count == tapBytes, (2...maximumRingRecords).contains(Int(prefix[10])) else { return nil }
        return prefix + [UInt8](repeating: 0, count: size(ringRecords: Int(prefix[10])) - tapBytes)
    }

    /// Every stay forgotten (the open one, every ring record's share, the reported marks); the holder's settings and
    /// the card's count of taps stay.
    public mutating func forgetStays() {
        openStay = nil
        appended = 0
        reported = 0
        shares = Array(repeating: DiaryShare.deleted, count: slots)
        pushedOutUntold = false
    }

    /// Whether every stay on the card is older than its day's key on `today`: the card's last tap (every stay was
    /// written at a tap) was on a day whose stays no kiosk can open any more. A card back from a drawer.
    public func holdsOnlyExpiredStays(today: DiaryDay) -> Bool {
        guard let lastTap, appended > 0 || openStay != nil else { return false }
        return DiaryCalendar.day(of: lastTap) < DiaryRetention.oldestOpenDay(today: today)
    }
}
