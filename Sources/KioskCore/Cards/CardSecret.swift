/// The random secret a kiosk card carries: on the NFC tag's user memory and, identically, on the printed personal QR
/// card. Whoever holds it can read and delete the holder's stays on a kiosk, so it is kept like a key.
///
/// Layout, version 1 (20 bytes, the same on the tag and inside the printed text):
///
/// | offset | size | content                                            |
/// |--------|------|----------------------------------------------------|
/// | 0      | 1    | layout version, `0x01`                             |
/// | 1      | 1    | `CardKind` (`0x01` visitor, `0x02` staff)          |
/// | 2      | 16   | 128 random bits from the OS CSPRNG (via OpenSSL)   |
/// | 18     | 2    | CRC-16/CCITT-FALSE of bytes 0–17, big-endian       |
///
/// A later layout (for example one carrying an encrypted copy of recent stays) gets a new version byte and a new
/// text prefix; version-1 cards stay valid.
public struct CardSecret: Sendable, Equatable {
    /// The layout version this type writes.
    public static let layoutVersion: UInt8 = 1
    /// Bytes of randomness: 128 bits.
    public static let entropyLength = 16
    /// Length of `layoutBytes`.
    public static let layoutLength = 2 + entropyLength + 2

    public let kind: CardKind
    /// The random part. Never log or display it except as the printed card text.
    public private(set) var entropy: [UInt8]

    /// A secret from existing randomness (an enrolled card being read back).
    public init(kind: CardKind, entropy: [UInt8]) throws(CardCodeError) {
        guard entropy.count == Self.entropyLength else { throw .wrongLength }
        self.kind = kind
        self.entropy = entropy
    }

    /// A new card secret with 128 bits from `crypto.randomBytes`.
    public static func generate(kind: CardKind, crypto: some CryptoProvider) throws(CryptoError) -> CardSecret {
        let entropy = try crypto.randomBytes(count: entropyLength)
        // The length is right by construction.
        return CardSecret(unchecked: kind, entropy: entropy)
    }

    private init(unchecked kind: CardKind, entropy: [UInt8]) {
        self.kind = kind
        self.entropy = entropy
    }

    /// The bytes written to a tag and encoded in the printed text: version, kind, entropy, checksum.
    public var layoutBytes: [UInt8] {
        var body = [Self.layoutVersion, kind.rawValue] + entropy
        let crc = CRC16.ccittFalse(body)
        body.append(UInt8(crc >> 8))
        body.append(UInt8(crc & 0xff))
        return body
    }

    /// Reads a tag's layout bytes; rejects a wrong version, kind, length or checksum.
    public init(layoutBytes bytes: [UInt8]) throws(CardCodeError) {
        guard bytes.count == Self.layoutLength else { throw .wrongLength }
        let body = Array(bytes[0..<(Self.layoutLength - 2)])
        let crc = CRC16.ccittFalse(body)
        guard bytes[Self.layoutLength - 2] == UInt8(crc >> 8), bytes[Self.layoutLength - 1] == UInt8(crc & 0xff) else {
            throw .checksumMismatch
        }
        guard bytes[0] == Self.layoutVersion else { throw .unsupportedVersion }
        guard let kind = CardKind(rawValue: bytes[1]) else { throw .unknownKind }
        self.init(unchecked: kind, entropy: Array(bytes[2..<(2 + Self.entropyLength)]))
    }

    /// Overwrites the entropy of this copy with zeros.
    public mutating func wipe(using crypto: some CryptoProvider) {
        crypto.wipe(&entropy)
    }
}

/// Why a card's bytes or printed text were rejected. Carries none of the code itself.
public enum CardCodeError: Error, Equatable, Sendable {
    /// Not a kiosk card code at all (wrong prefix).
    case notACardCode
    /// A layout version this kiosk does not know.
    case unsupportedVersion
    /// Too short or too long: torn, or a character missing or extra.
    case wrongLength
    /// A character that cannot appear in a card code.
    case invalidCharacter
    /// The check digits do not match: a character was mistyped or misread.
    case checksumMismatch
    /// The card kind byte is unknown.
    case unknownKind
}

extension CardCodeError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notACardCode: "this is not a kiosk card code"
        case .unsupportedVersion: "this card was made by a newer kiosk version"
        case .wrongLength: "the card code is incomplete or too long"
        case .invalidCharacter: "the card code contains a character that cannot be in it"
        case .checksumMismatch: "the card code does not check out: a character is wrong"
        case .unknownKind: "the card type is unknown"
        }
    }
}
