import KioskCore
import Testing

/// The configuration's JSON reader: RFC 8259 values, a key written twice refused, and every error placed by line and
/// column without quoting the file.
@Suite struct JSONParserTests {
    @Test func readsEveryKindOfValue() throws {
        let text = """
            {"a": [1, -2, 3.5, 1e3, -0.25E-2, 9223372036854775807, 92233720368547758070],
             "b": {"c": true, "d": false, "e": null}, "f": "x\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00ü", "g": {}, "h": []}
            """
        let value = try JSONValue.parse(text)
        guard case .object(let top) = value else {
            Issue.record("\(value)")
            return
        }
        #expect(
            top["a"]
                == .array([
                    .integer(1), .integer(-2), .number(3.5), .number(1000), .number(-0.0025), .integer(.max),
                    .number(92_233_720_368_547_758_070),
                ]))
        #expect(top["b"] == .object(["c": .bool(true), "d": .bool(false), "e": .null]))
        #expect(top["f"] == .string("x\"\\/\u{08}\u{0C}\n\r\té😀ü"))
        #expect(top["g"] == .object([:]) && top["h"] == .array([]))
    }

    @Test func aKeyWrittenTwiceIsRefusedWhereItIsWrittenAgain() {
        let text = "{\n  \"nfc\": {\"connection\": \"a\"},\n  \"camera\": null,\n  \"nfc\": {}\n}"
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
        #expect(error?.detail == "line 4, column 3: this key is already set earlier in the same object: write it once")
        // The same key in two different objects is fine.
        #expect((try? JSONValue.parse(#"{"a": {"x": 1}, "b": {"x": 2}}"#)) != nil)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9),
        ("{\"a\" 1}", 1, 6),
        ("[1 2]", 1, 4),
        ("{\n\"secret\": pn532_uart}", 2, 11),
        ("\"open", 1, 6),
        ("\"a\u{01}\"", 1, 3),
        ("\"\\x\"", 1, 3),
        ("01", 1, 2),
        ("1.", 1, 3),
        ("{} {}", 1, 4),
        ("", 1, 1),
        ("[1e999]", 1, 2),
        ("\"\\ud83d\"", 1, 8),
    ])
    func badTextIsPlacedByLineAndColumn(_ example: (text: String, line: Int, column: Int)) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(example.text) }
        #expect(error?.line == example.line && error?.column == example.column, "\(String(describing: error))")
    }

    @Test func errorsQuoteNothingOfTheText() {
        do {
            _ = try JSONValue.parse("{\"pin\": SECRET-1234}")
            Issue.record("accepted")
        } catch {
            #expect(!error.detail.contains("SECRET"))
            #expect(error.detail.hasPrefix("line 1, column 9: "))
        }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(deep) }
        let fine = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect((try? JSONValue.parse(fine)) != nil)
    }
}
