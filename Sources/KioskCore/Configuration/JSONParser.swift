/// Reads JSON text (RFC 8259) into a `JSONValue`, for configuration files people write by hand. Unlike a general
/// decoder it refuses a key written twice in one object (which one would win is not obvious to whoever wrote it), and
/// every error names the line and column where the text stopped making sense. Error text never quotes the file:
/// a configuration may hold secrets.
struct JSONParser {
    /// How deeply lists and objects may nest (a configuration needs four levels; a hostile file must not exhaust the
    /// stack).
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var offset = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try self.value(depth: 0)
        skipWhitespace()
        guard offset == bytes.count else { throw error("unexpected text after the end of the document") }
        return value
    }

    // MARK: Values

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("lists and objects nest too deeply") }
        guard let byte = peek() else { throw error("the document ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("expected a value (a string, number, true, false, null, a list or an object)")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        offset += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let keyStart = offset
            let key = try string()
            guard members[key] == nil else {
                offset = keyStart
                throw error("this key is already set earlier in the same object: write it once")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
            offset += 1
            skipWhitespace()
            members[key] = try value(depth: depth + 1)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            default: throw error("expected ',' or '}' after a member of an object")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        offset += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(items)
            default: throw error("expected ',' or ']' after an item of a list")
            }
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected else {
            throw error("expected a value (a string, number, true, false, null, a list or an object)")
        }
        offset += expected.count
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
        offset += 1
        if first != UInt8(ascii: "0") { while let next = peek(), isDigit(next) { offset += 1 } }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after the decimal point") }
            while let next = peek(), isDigit(next) { offset += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard let next = peek(), isDigit(next) else { throw error("expected a digit in the exponent") }
            while let next = peek(), isDigit(next) { offset += 1 }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else {
            offset = start
            throw error("this number is too large")
        }
        return .number(value)
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        offset += 1  // "
        var text = ""
        var run = offset  // the first byte not yet in `text`
        while true {
            guard let byte = peek() else { throw error("a string is not closed: a '\"' is missing") }
            switch byte {
            case UInt8(ascii: "\""):
                text += String(decoding: bytes[run..<offset], as: UTF8.self)
                offset += 1
                return text
            case UInt8(ascii: "\\"):
                text += String(decoding: bytes[run..<offset], as: UTF8.self)
                offset += 1
                text.unicodeScalars.append(try escape())
                run = offset
            case 0..<0x20:
                throw error("a string holds a control character (a line break in a string is written \\n)")
            default:
                offset += 1
            }
        }
    }

    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = peek() else { throw error("a string is not closed: a '\"' is missing") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hexQuad()
            if (0xD800..<0xDC00).contains(high) {
                guard peek() == UInt8(ascii: "\\"), peek(at: 1) == UInt8(ascii: "u") else {
                    throw error("a \\u escape of a surrogate half is not followed by the other half")
                }
                offset += 2
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw error("a \\u escape of a surrogate half is not followed by the other half") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("a \\u escape names no character") }
            return scalar
        default:
            offset -= 1
            throw error("unknown escape in a string (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX are known)")
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw error("a \\u escape needs four hexadecimal digits") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    // MARK: Reading

    private func peek(at distance: Int = 0) -> UInt8? {
        offset + distance < bytes.count ? bytes[offset + distance] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        {
            offset += 1
        }
    }

    /// `message` at the current place: line and column counted from 1, the column in characters.
    private func error(_ message: String) -> JSONSyntaxError {
        let before = bytes[..<min(offset, bytes.count)]
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let column = String(decoding: bytes[lineStart..<min(offset, bytes.count)], as: UTF8.self).count + 1
        return JSONSyntaxError(line: line, column: column, message: message)
    }
}
