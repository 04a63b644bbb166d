/// The content a kiosk writes to a card: its kind and the card secret (opaque bytes).
public struct CardContent: Equatable, Sendable {
    public var kind: CardKind
    public var secret: [UInt8]

    public init(kind: CardKind, secret: [UInt8]) {
        self.kind = kind
        self.secret = secret
    }
}

/// Why card content cannot be laid out.
public enum CardLayoutError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The secret must be 16 to 32 bytes.
    case secretLength(Int)
    /// The UID must be 7 bytes (NTAG21x, Ultralight EV1).
    case uidLength(Int)

    public var description: String {
        switch self {
        case .secretLength(let count): "a card secret must be 16 to 32 bytes, not \(count)"
        case .uidLength(let count): "a card UID must be 7 bytes, not \(count)"
        }
    }
}

/// What the user memory of a card says.
public enum CardImageReading: Equatable, Sendable {
    /// A complete kiosk card.
    case enrolled(CardContent)
    /// Factory-fresh or erased user memory: not a kiosk card.
    case blank
    /// Something else is written there: not a kiosk card.
    case foreign
    /// A kiosk card whose enrolment did not finish (pulled away while writing, or damaged): never to be used,
    /// only to be enrolled again.
    case incomplete
    /// A kiosk card written by a newer layout this kiosk does not know.
    case unsupportedLayout(version: UInt8)
}

/// Layout version 1 of a kiosk card's user memory: 11 pages of 4 bytes from page 4, which every NTAG213/215/216
/// and MIFARE Ultralight EV1 (MF0UL11: pages 4–15) has.
///
/// ```
/// page 4      'K' 'C' version=1 kind
/// page 5      secret length (16…32), flags=0, 0, 0
/// pages 6–13  secret, zero padded to 32 bytes
/// page 14     commit: CRC-32 (big endian) over the 7-byte UID and pages 4–13
/// ```
///
/// The commit page is what makes a card valid. Enrolment first writes zeros there ("not committed"), then pages
/// 4–13, then the commit page last. A card pulled away at any point reads as `.incomplete` (commit zero or not
/// matching) or as its previous complete content — never as a valid card with mixed content, except with the
/// 2⁻³² chance of a torn page matching by accident. A CRC of zero is never written (the flags byte changes it),
/// so a zero commit page always means "not committed". The UID in the CRC ties the image to the card it was
/// written to. The checksum guards against tearing, not forgery: the password (PWD_AUTH) protects the pages.
public enum CardImage {
    public static let firstPage = 4
    public static let pageCount = 11
    public static let byteCount = pageCount * 4
    public static let commitPage = firstPage + pageCount - 1
    public static let magic: [UInt8] = [0x4B, 0x43]
    public static let layoutVersion: UInt8 = 1
    public static let secretLengths = 16...32

    /// The 44 bytes of pages 4–14 for `content` on the card with `uid`.
    public static func encode(_ content: CardContent, uid: [UInt8]) throws(CardLayoutError) -> [UInt8] {
        guard secretLengths.contains(content.secret.count) else { throw .secretLength(content.secret.count) }
        guard uid.count == 7 else { throw .uidLength(uid.count) }
        var image = magic + [layoutVersion, content.kind.rawValue, UInt8(content.secret.count), 0, 0, 0]
        image += content.secret + [UInt8](repeating: 0, count: 32 - content.secret.count)
        var crc = CRC32.checksum(uid + image)
        if crc == 0 {
            image[5] = 0x01
            crc = CRC32.checksum(uid + image)
        }
        return image + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// Reads pages 4–14 (`bytes`, at least 44) of the card with `uid`.
    public static func decode(_ bytes: [UInt8], uid: [UInt8]) -> CardImageReading {
        guard bytes.count >= byteCount else { return .foreign }
        let image = Array(bytes.prefix(byteCount))
        if image.allSatisfy({ $0 == 0 }) { return .blank }
        guard Array(image[0..<2]) == magic else { return .foreign }
        // Version 0 is never written: it is what a page 4 torn over zeroed memory holds.
        guard image[2] != 0 else { return .incomplete }
        guard image[2] == layoutVersion else { return .unsupportedLayout(version: image[2]) }
        let stored = image[40..<44].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stored != 0, stored == CRC32.checksum(uid + image[0..<40]) else { return .incomplete }
        let length = Int(image[4])
        guard let kind = CardKind(rawValue: image[3]), secretLengths.contains(length),
            image[8 + length..<40].allSatisfy({ $0 == 0 })
        else { return .incomplete }
        return .enrolled(CardContent(kind: kind, secret: Array(image[8..<8 + length])))
    }
}
