/// Parses the ISO-8601 times the vectors use (`2021-03-04T06:21+01:00`, `2021-03-04T08:30:00Z`) to UNIX seconds.
enum ISOTime {
    static func parse(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= chars.count else { return nil }
            var value: Int64 = 0
            for c in chars[from..<from + count] {
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2)
        else { return nil }
        var index = 16
        var second: Int64 = 0
        if index < chars.count, chars[index] == UInt8(ascii: ":") {
            guard let s = number(17, 2) else { return nil }
            second = s
            index = 19
            if index < chars.count, chars[index] == UInt8(ascii: ".") {
                index += 1
                while index < chars.count, chars[index] >= 48, chars[index] <= 57 { index += 1 }
            }
        }
        var offset: Int64 = 0
        if index < chars.count {
            switch chars[index] {
            case UInt8(ascii: "Z"): offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let oh = number(index + 1, 2), let om = number(index + 4, 2) else { return nil }
                offset = (oh * 3600 + om * 60) * (chars[index] == UInt8(ascii: "-") ? -1 : 1)
            default: return nil
            }
        }
        return daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
