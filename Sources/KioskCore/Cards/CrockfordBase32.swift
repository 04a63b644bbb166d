/// Crockford's Base32 (https://www.crockford.com/base32.html): digits and upper-case letters without I, L, O and U,
/// so that a printed code survives being read aloud or typed by hand.
///
/// Decoding is forgiving the way Crockford specifies: case-insensitive, `I`/`L` read as `1`, `O` read as `0`,
/// hyphens and spaces ignored.
enum CrockfordBase32 {
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// Base32 text of `bytes`, most significant bit first; the last symbol is zero-padded.
    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1f)])
            }
        }
        if bits > 0 {
            out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 5-bit values of `text`'s symbols, or nil if a character is not a Base32 symbol. Separators are skipped.
    static func symbols(of text: Substring) -> [UInt8]? {
        var out = [UInt8]()
        for char in text.utf8 {
            switch char {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default:
                guard let value = value(of: char) else { return nil }
                out.append(value)
            }
        }
        return out
    }

    /// Bytes from 5-bit symbols; nil unless the padding bits are zero and the count fits `byteCount` exactly.
    static func bytes(fromSymbols symbols: [UInt8], byteCount: Int) -> [UInt8]? {
        guard symbols.count == (byteCount * 8 + 4) / 5 else { return nil }
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            buffer = buffer << 5 | UInt32(symbol)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func value(of char: UInt8) -> UInt8? {
        var upper = char
        if upper >= UInt8(ascii: "a"), upper <= UInt8(ascii: "z") { upper -= 32 }
        switch upper {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default:
            guard let index = alphabet.firstIndex(of: upper) else { return nil }
            return UInt8(index)
        }
    }
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF): detects every error confined to 16 consecutive
/// bits, so every mistyped Base32 symbol (5 bits) and every swap of two neighbouring symbols (10 bits).
enum CRC16 {
    static func ccittFalse(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xffff
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }
}
