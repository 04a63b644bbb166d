/// Text encodings of QR payloads: base64 (URL-safe or standard alphabet, padded or not, as CWA's apps accepted it)
/// and RFC 4648 base32 (CWA's legacy descriptors). Decoders return `nil` on any invalid input and never trap.
public enum PayloadEncoding: String, Sendable, Equatable {
    case base64 = "BASE64"
    case base32 = "BASE32"

    /// Decodes `text`, or returns `nil`.
    public func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        switch self {
        case .base64: Self.decodeBase64(text)
        case .base32: Self.decodeBase32(text)
        }
    }

    /// Base64 with either alphabet (`-_` or `+/`), with or without `=` padding. Rejects other characters, misplaced
    /// or excess padding and impossible lengths. Unused low bits of the last character are ignored.
    public static func decodeBase64(_ text: some Collection<UInt8>) -> [UInt8]? {
        var values = [UInt8]()
        values.reserveCapacity(text.count)
        var padding = 0
        for char in text {
            if char == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = base64Value(char) else { return nil }
            values.append(value)
        }
        let remainder = values.count % 4
        if remainder == 1 { return nil }
        if padding > 0 && (padding > 2 || (values.count + padding) % 4 != 0) { return nil }
        var out = [UInt8]()
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let n =
                UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            out.append(UInt8(truncatingIfNeeded: n >> 8))
            out.append(UInt8(truncatingIfNeeded: n))
            index += 4
        }
        if remainder >= 2 {
            var n = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            if remainder == 3 { n |= UInt32(values[index + 2]) << 6 }
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            if remainder == 3 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
        }
        return out
    }

    /// RFC 4648 base32 (`A–Z2–7`, either case), with or without `=` padding.
    public static func decodeBase32(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        var count = 0
        for char in text {
            if char == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }
            let value: UInt8
            switch char {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = char - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = char - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = char - UInt8(ascii: "2") + 26
            default: return nil
            }
            count += 1
            buffer = (buffer << 5 | UInt32(value)) & 0xffff
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Valid final groups carry 2, 4, 5 or 7 characters (8 bits need 2, 16 need 4, 24 need 5, 32 need 7).
        guard [0, 2, 4, 5, 7].contains(count % 8) else { return nil }
        if padding > 0 && (count + padding) % 8 != 0 { return nil }
        return out
    }

    /// Base64url without padding, as CWA writes its URLs.
    public static func encodeBase64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if index + 1 < bytes.count { out.append(alphabet[Int(n >> 6 & 63)]) }
            if index + 2 < bytes.count { out.append(alphabet[Int(n & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func base64Value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
