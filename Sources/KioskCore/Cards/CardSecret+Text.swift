/// The printed form of a card secret.
///
/// `KC1-` followed by the 20 layout bytes in Crockford Base32 (exactly 32 symbols), in eight groups of four:
/// `KC1-0G0S-2Y4V-…`. The prefix names the layout version; the layout's CRC-16 makes a mistyped, misread or torn
/// code fail instead of unlocking someone else's stays. Decoding ignores case, hyphens and spaces, and reads
/// `O` as `0` and `I`/`L` as `1`.
extension CardSecret {
    /// The text prefix of layout version 1.
    public static let textPrefix = "KC1-"

    /// The text printed on the personal QR card (and encoded in its QR code).
    public var printedText: String {
        let symbols = Array(CrockfordBase32.encode(layoutBytes))
        var groups = [String]()
        var index = 0
        while index < symbols.count {
            groups.append(String(symbols[index..<min(index + 4, symbols.count)]))
            index += 4
        }
        return Self.textPrefix + groups.joined(separator: "-")
    }

    /// Parses a printed card code; throws for anything torn, mistyped or foreign.
    public init(printedText text: String) throws(CardCodeError) {
        let trimmed = text.trimmingASCIIWhitespace()
        let head = Array(trimmed.prefix(3).uppercased())
        guard head.count == 3, head[0] == "K", head[1] == "C" else { throw .notACardCode }
        guard head[2] == "1" else { throw .unsupportedVersion }
        guard let symbols = CrockfordBase32.symbols(of: trimmed.dropFirst(3)) else { throw .invalidCharacter }
        guard let bytes = CrockfordBase32.bytes(fromSymbols: symbols, byteCount: Self.layoutLength) else {
            throw .wrongLength
        }
        try self.init(layoutBytes: bytes)
    }
}
