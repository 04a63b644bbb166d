import Foundation

/// A JSON document as a tree, for configuration: unlike `Codable` models it keeps every key, so that unknown keys can
/// be reported, and it tells `true` from `1`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text; the error says where (line and column) and why the text stopped being JSON, and refuses a key
    /// written twice in one object.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(text)
        return try parser.document()
    }

    /// The name of this value's JSON type, for messages ("expected a number, got a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// The text is not JSON, or sets a key twice: where (line and column from 1) and why. It quotes nothing of the text.
public struct JSONSyntaxError: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String

    /// "line 3, column 14: expected ',' or '}' after a member of an object".
    public var detail: String { "line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Pretty-printed JSON text with two-space indentation. Object members come in `order` where it names them, the
    /// rest sorted, so that output is stable and reads in the documented order.
    public func rendered(order: [String] = [], indent: String = "") -> String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .string(let value): return Self.quoted(value)
        case .array(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy({ if case .object = $0 { false } else if case .array = $0 { false } else { true } }) {
                return "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
            }
            let inner = indent + "  "
            return "[\n" + items.map { inner + $0.rendered(order: order, indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let inner = indent + "  "
            let keys = order.filter { members[$0] != nil } + members.keys.filter { !order.contains($0) }.sorted()
            return "{\n"
                + keys.map { key in
                    inner + Self.quoted(key) + ": " + members[key]!.rendered(order: order, indent: inner)
                }.joined(separator: ",\n") + "\n" + indent + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
