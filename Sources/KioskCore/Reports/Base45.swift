/// Base45 (RFC 9285): the text form of CKPB/1 batches. Its alphabet fits the QR alphanumeric mode, so a printed
/// batch packs densely into a QR code.
public enum Base45 {
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = Int8(index) }
        return table
    }()

    /// Encodes `bytes`: each pair of bytes becomes three characters, a final single byte two.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count / 2) * 3 + 2)
        var index = 0
        while index + 1 < bytes.count {
            var n = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            for _ in 0..<3 {
                out.append(alphabet[n % 45])
                n /= 45
            }
            index += 2
        }
        if index < bytes.count {
            let n = Int(bytes[index])
            out.append(alphabet[n % 45])
            out.append(alphabet[n / 45])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes Base45 text, or returns nil for a character outside the alphabet, a dangling character, or a group
    /// whose value does not fit its bytes.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 3 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 3 * 2 + 1)
        var index = 0
        while index < chars.count {
            let width = min(3, chars.count - index)
            var n = 0
            var scale = 1
            for offset in 0..<width {
                let value = values[Int(chars[index + offset])]
                guard value >= 0 else { return nil }
                n += Int(value) * scale
                scale *= 45
            }
            if width == 3 {
                guard n <= 0xFFFF else { return nil }
                out.append(UInt8(n >> 8))
                out.append(UInt8(n & 0xFF))
            } else {
                guard n <= 0xFF else { return nil }
                out.append(UInt8(n))
            }
            index += width
        }
        return out
    }
}
