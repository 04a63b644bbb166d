/// The file that carries a region's keys from one kiosk's token to another's (`kiosk region export`, `import`;
/// docs/region.md): every card master key and the ratchet's day key, each wrapped inside the token under the region's
/// wrapping key (RFC 3394 AES key wrap, `CKM_AES_KEY_WRAP`), with its label, generation or day. Nothing in it is a key
/// in clear: only a token holding the same wrapping key can unwrap it, and altered bytes fail the wrap's integrity
/// check inside that token.
///
/// A small versioned text file, one item a line, so that field staff can see what it carries:
///
///     kiosk-region-keys 1
///     region 4e58502041627500000000000000000000000000
///     wrapped-under region-wrap
///     card 1 region-card-g1 <48 hexadecimal digits>
///     day 20405 region-day <48 hexadecimal digits>
///
/// `region` is the system identifier (20 bytes, hexadecimal), `day` the ratchet's oldest day (UTC days since 1970).
/// Parsing is strict: an unknown version, line or label, a repeated generation, a second day, or a wrapped key of the
/// wrong length is refused, naming the line.
public struct RegionKeyExport: Sendable, Equatable {
    public static let magic = "kiosk-region-keys"
    public static let version = 1
    /// A wrapped AES-128 key under RFC 3394: 16 bytes and the 8-byte integrity check.
    public static let wrappedLength = 24
    /// The largest file read (255 generations and a day are under 20 KB).
    public static let maximumBytes = 64 * 1024

    /// One wrapped card master key.
    public struct CardKey: Sendable, Equatable {
        public var generation: UInt8
        public var wrapped: [UInt8]

        public init(generation: UInt8, wrapped: [UInt8]) {
            self.generation = generation
            self.wrapped = wrapped
        }

        public var label: String { RegionKeyLabels.card(generation: generation) }
    }

    /// The wrapped day key K(`day`).
    public struct DayKey: Sendable, Equatable {
        public var day: DiaryDay
        public var wrapped: [UInt8]

        public init(day: DiaryDay, wrapped: [UInt8]) {
            self.day = day
            self.wrapped = wrapped
        }
    }

    /// The region's system identifier (20 bytes).
    public var systemIdentifier: [UInt8]
    /// The card master keys, oldest generation first.
    public var cards: [CardKey]
    public var dayKey: DayKey

    public init(systemIdentifier: [UInt8], cards: [CardKey], dayKey: DayKey) {
        self.systemIdentifier = systemIdentifier
        self.cards = cards.sorted { $0.generation < $1.generation }
        self.dayKey = dayKey
    }

    /// Why a file is not an export; names the line, never quotes a key.
    public struct FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String

        public var description: String { line == 0 ? reason : "line \(line): \(reason)" }
    }

    /// The file's text.
    public var text: String {
        var lines = [
            "\(Self.magic) \(Self.version)",
            "region \(Hex.encode(systemIdentifier))",
            "wrapped-under \(RegionKeyLabels.wrap)",
        ]
        for card in cards { lines.append("card \(card.generation) \(card.label) \(Hex.encode(card.wrapped))") }
        lines.append("day \(dayKey.day) \(RegionKeyLabels.day) \(Hex.encode(dayKey.wrapped))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a file's text.
    public static func parse(_ text: String) throws(FormatError) -> RegionKeyExport {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard let first = lines.first else { throw FormatError(line: 0, reason: "the file is empty") }
        guard first == "\(magic) \(version)" else {
            throw first.hasPrefix(magic + " ")
                ? FormatError(line: 1, reason: "a version this kiosk does not read (it reads \(version))")
                : FormatError(line: 1, reason: "not a region key export (its first line is not an export's header)")
        }
        var identifier: [UInt8]?
        var wrappedUnder = false
        var cards: [CardKey] = []
        var dayKey: DayKey?
        for (index, line) in lines.enumerated().dropFirst() {
            let number = index + 1
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            switch fields.first {
            case "region":
                guard identifier == nil else { throw FormatError(line: number, reason: "a second region line") }
                guard fields.count == 2, let bytes = Hex.decode(fields[1]),
                    bytes.count == DiaryDiversification.systemIdentifierLength
                else { throw FormatError(line: number, reason: "expected: region <20 bytes in hexadecimal>") }
                identifier = bytes
            case "wrapped-under":
                guard fields.count == 2, fields[1] == RegionKeyLabels.wrap else {
                    throw FormatError(line: number, reason: "expected: wrapped-under \(RegionKeyLabels.wrap)")
                }
                wrappedUnder = true
            case "card":
                guard fields.count == 4, let value = Int(fields[1]), RegionKeyLabels.generations.contains(value),
                    fields[2] == RegionKeyLabels.card(generation: UInt8(value))
                else {
                    throw FormatError(
                        line: number,
                        reason: "expected: card <generation 1-255> region-card-g<generation> <wrapped key>")
                }
                let wrapped = try wrappedKey(fields[3], line: number)
                guard !cards.contains(where: { $0.generation == UInt8(value) }) else {
                    throw FormatError(line: number, reason: "generation \(value) appears twice")
                }
                cards.append(CardKey(generation: UInt8(value), wrapped: wrapped))
            case "day":
                guard dayKey == nil else { throw FormatError(line: number, reason: "a second day key") }
                guard fields.count == 4, let day = Int(fields[1]), day >= 0, day <= Int(Int32.max),
                    fields[2] == RegionKeyLabels.day
                else { throw FormatError(line: number, reason: "expected: day <day> region-day <wrapped key>") }
                dayKey = DayKey(day: day, wrapped: try wrappedKey(fields[3], line: number))
            default:
                throw FormatError(line: number, reason: "not a line of a region key export")
            }
        }
        guard let identifier else { throw FormatError(line: 0, reason: "the file has no region line") }
        guard wrappedUnder else { throw FormatError(line: 0, reason: "the file has no wrapped-under line") }
        guard !cards.isEmpty else { throw FormatError(line: 0, reason: "the file holds no card key") }
        guard let dayKey else { throw FormatError(line: 0, reason: "the file holds no day key") }
        return RegionKeyExport(systemIdentifier: identifier, cards: cards, dayKey: dayKey)
    }

    private static func wrappedKey(_ field: String, line: Int) throws(FormatError) -> [UInt8] {
        guard let bytes = Hex.decode(field), bytes.count == wrappedLength else {
            throw FormatError(line: line, reason: "a wrapped key is \(wrappedLength) bytes in hexadecimal")
        }
        return bytes
    }
}
