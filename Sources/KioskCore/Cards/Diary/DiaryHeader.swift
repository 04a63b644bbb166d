public import Foundation

/// The header of a diary card (file 1, a backup data file of 192 bytes, docs/diary-card.md): what a tap reads and
/// writes. It never holds a finished stay; the open one is sealed under its day's key like a record of the ring.
///
/// `01` (version) ‖ next record number (u32) ‖ records appended to the ring (u32) ‖ flags (u8; bit 0: a stay younger than 14 days was pushed out of a
/// full ring and the holder has not been told) ‖ the day of the last check-in (u16) ‖ check-ins that day (u8) ‖ the
/// last registered tap (u32 seconds since 1970, 0 for none) ‖ the profile's length (u8) ‖ the holder's
/// `CardProfile` (62 bytes, zero-padded) ‖ the open stay's sealed record (112 bytes, zeros for none).
/// Big-endian integers.
public struct DiaryHeader: Sendable, Equatable {
    public static let version: UInt8 = 1
    static let profileBytes = 62
    static let openStayOffset = 80

    /// The number the next stay checked in gets: stays are numbered in the order they open.
    public var nextNumber: UInt32
    /// How many stays were ever appended to the ring (the ring keeps the last `ringRecords − 1`).
    public var appended: UInt32
    /// A stay younger than 14 days was pushed out of the full ring and the holder was not told yet.
    public var pushedOutUntold: Bool
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

    public init(
        nextNumber: UInt32 = 0, appended: UInt32 = 0, pushedOutUntold: Bool = false, checkInDay: DiaryDay = 0,
        checkInsThatDay: Int = 0,
        lastTap: Date? = nil, profile: CardProfile = .unanswered, openStay: [UInt8]? = nil
    ) {
        self.nextNumber = nextNumber
        self.appended = appended
        self.pushedOutUntold = pushedOutUntold
        self.checkInDay = checkInDay
        self.checkInsThatDay = checkInsThatDay
        self.lastTap = lastTap
        self.profile = profile
        self.openStay = openStay
    }

    /// A new card's header.
    public static let blank = DiaryHeader()

    /// The 192 bytes written to the card. Throws `.unrecordable` when the profile does not fit.
    public func encoded() throws(DiaryError) -> [UInt8] {
        var out: [UInt8] = [Self.version]
        out.appendBigEndian(nextNumber)
        out.appendBigEndian(appended)
        out.append(pushedOutUntold ? 1 : 0)
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
        return out
    }

    /// The header in `bytes`; throws `.headerUnreadable` when they are not a header of this version.
    public init(encoded bytes: [UInt8]) throws(DiaryError) {
        guard bytes.count == DiaryLayout.headerSize, bytes[0] == Self.version else { throw .headerUnreadable }
        var reader = ByteReader(Array(bytes.dropFirst()))
        guard let next = reader.readInteger(UInt32.self), let appended = reader.readInteger(UInt32.self),
            let flags = reader.readInteger(UInt8.self),
            flags & 0xFE == 0, let day = reader.readInteger(UInt16.self), let count = reader.readInteger(UInt8.self),
            let tap = reader.readInteger(UInt32.self), let length = reader.readInteger(UInt8.self),
            Int(length) <= Self.profileBytes, let profileBytes = reader.read(Self.profileBytes),
            let profile = CardProfile(encoded: Array(profileBytes.prefix(Int(length)))),
            profileBytes.dropFirst(Int(length)).allSatisfy({ $0 == 0 }),
            let open = reader.read(DiaryLayout.recordSize), reader.remaining == 0
        else { throw .headerUnreadable }
        nextNumber = next
        self.appended = appended
        pushedOutUntold = flags & 1 != 0
        checkInDay = DiaryDay(day)
        checkInsThatDay = Int(count)
        lastTap = tap == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(tap))
        self.profile = profile
        openStay = open.allSatisfy { $0 == 0 } ? nil : open
    }

    /// Whether the next append pushes the oldest record out of a full ring of `records` (a cyclic record file
    /// keeps one free: `records − 1` are kept).
    public func nextAppendPushesOut(ringRecords records: Int) -> Bool {
        appended >= UInt32(max(1, records - 1))
    }
}
