public import Foundation

/// The plaintext of one stay on a diary card: a fixed 78 bytes, so that every sealed record is 112 bytes
/// (docs/diary-card.md). The start and the check-out are kept to the second, the automatic end to the minute (cut
/// down); the name is cut at a character to 35 bytes of UTF-8; the address is not kept (a card's memory is small;
/// the name is what the holder recognises).
///
/// `kind` (1) ‖ location id (32) ‖ start (u32 seconds since 1970) ‖ latest end (u16 whole minutes after start) ‖
/// check-out (u24 seconds after start, FFFFFF while open) ‖ flags (bit 0: reported) ‖ name (35, zero-padded).
/// Big-endian integers.
public enum DiaryStayCoding {
    public static let size = 78
    public static let nameBytes = 35
    /// A venue known by its 32-byte location id (CWA, CLEA, a venue the kiosk created).
    public static let locationKind: UInt8 = 0x01
    /// A CrowdNotifier venue (SwissCovid, NotifyMe): its location id only; its CrowdNotifier keys are not kept on
    /// the card (yet), so its problematic events cannot be matched for a diary card.
    public static let crowdNotifierKind: UInt8 = 0x02
    static let openCheckout: UInt32 = 0xFF_FFFF
    static let openLatestEnd: UInt16 = 0xFFFF

    /// The 78 bytes of `stay`, or nil when it cannot be kept on a card (a location id that is not 32 bytes, a stay
    /// longer than the u16 minutes allow).
    public static func encode(_ stay: Stay) -> [UInt8]? {
        guard stay.locationId.count == 32 else { return nil }
        let start = seconds(stay.start)
        guard start >= 0, start <= Int64(UInt32.max) else { return nil }
        let latest = (seconds(stay.latestEnd) - start) / 60
        guard latest >= 0, latest < Int64(openLatestEnd) else { return nil }
        var out: [UInt8] = [stay.crowdNotifier == nil ? locationKind : crowdNotifierKind]
        out += stay.locationId
        out.appendBigEndian(UInt32(start))
        out.appendBigEndian(UInt16(latest))
        let checkout = stay.checkedOut.map { UInt32(min(max(0, seconds($0) - start), latest * 60)) } ?? openCheckout
        out += [UInt8(checkout >> 16 & 0xFF), UInt8(checkout >> 8 & 0xFF), UInt8(checkout & 0xFF)]
        out.append(stay.reported ? 1 : 0)
        let name = cut(stay.venueDescription, toBytes: nameBytes)
        out += name + [UInt8](repeating: 0, count: nameBytes - name.count)
        return out
    }

    /// The stay in `bytes`, named `id`, or nil when they are not a stay of this format.
    public static func decode(_ bytes: [UInt8], id: StayID) -> Stay? {
        guard bytes.count == size, bytes[0] == locationKind || bytes[0] == crowdNotifierKind else { return nil }
        var reader = ByteReader(Array(bytes.dropFirst()))
        guard let locationId = reader.read(32), let start = reader.readInteger(UInt32.self),
            let latest = reader.readInteger(UInt16.self), let checkoutBytes = reader.read(3),
            let flags = reader.readInteger(UInt8.self), let nameBytes = reader.read(nameBytes),
            latest != openLatestEnd, flags & 0xFE == 0
        else { return nil }
        let checkout = checkoutBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard checkout == openCheckout || checkout <= UInt32(latest) * 60 else { return nil }
        let startDate = Date(timeIntervalSince1970: TimeInterval(start))
        // What a card holds is text from outside: neutralised before any screen, speech or paper sees it.
        let name = OutsideText.neutralized(String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self))
        var stay = Stay(
            id: id, locationId: locationId, venueDescription: name, venueAddress: "", start: startDate,
            latestEnd: startDate.addingTimeInterval(TimeInterval(latest) * 60),
            checkedOut: checkout == openCheckout ? nil : startDate.addingTimeInterval(TimeInterval(checkout)))
        stay.reported = flags & 1 != 0
        return stay
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// The UTF-8 of `text`, cut after the last whole character that fits in `limit` bytes.
    static func cut(_ text: String, toBytes limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            guard out.count + bytes.count <= limit else { break }
            out += bytes
        }
        return out
    }
}
