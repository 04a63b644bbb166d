/// Byte-level helpers for matching URL shapes without regular expressions (linear time on any input).
enum URLText {
    static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Whether `bytes[from...]` starts with `prefix`, ignoring ASCII case.
    static func hasPrefix(_ bytes: [UInt8], _ prefix: String, at from: Int = 0) -> Bool {
        let p = Array(prefix.utf8)
        guard from >= 0, bytes.count - from >= p.count else { return false }
        for index in 0..<p.count where lower(bytes[from + index]) != lower(p[index]) { return false }
        return true
    }

    /// Parses ASCII digits `bytes[from..<end]` as a `UInt32`; `nil` when empty, not all digits, or too large.
    static func number(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        guard !bytes.isEmpty, bytes.count <= 10 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value <= UInt64(UInt32.max) ? UInt32(value) : nil
    }

    /// Length of the run of ASCII digits starting at `from`.
    static func digitRun(_ bytes: [UInt8], from: Int) -> Int {
        var end = from
        while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
        return end - from
    }

    /// `.` in CWA's regular expressions matches anything but a line terminator.
    static func containsLineTerminator(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.contains(UInt8(ascii: "\n")) || bytes.contains(UInt8(ascii: "\r"))
    }

    /// The host of an `http(s)://host/…` URL, lower-cased, or `nil`.
    static func host(_ bytes: [UInt8]) -> String? {
        let start: Int
        if hasPrefix(bytes, "https://") {
            start = 8
        } else if hasPrefix(bytes, "http://") {
            start = 7
        } else {
            return nil
        }
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        guard end > start else { return nil }
        return String(decoding: bytes[start..<end].map(lower), as: UTF8.self)
    }
}
