import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

/// The text of `text` as the printer prints it on `paper` in `codePage`: encoded as a receipt, read back by the
/// interpreter, one string a printed line.
func printedLines(_ text: String, codePage: PrinterCodePage, paper: PaperWidth = .mm80) throws -> [String] {
    var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
    encoder.initialize()
    encoder.text(text)
    encoder.cut()
    return try ESCPOSInterpreter.render(encoder.bytes, paper: paper).lines.map(\.text)
}

/// Texts of the kiosk's four languages through the encoder, the printer's code page and back through the
/// interpreter: exactly what was written, except where `cp858` lacks a sign and prints its documented plain form.
@Suite struct CodePageTests {
    /// A text, and how each code page prints it.
    struct Sample: Sendable, CustomTestStringConvertible {
        var text: String
        var cp1252: String
        var cp858: String

        init(_ text: String, cp858: String? = nil) {
            self.text = text
            cp1252 = text
            self.cp858 = cp858 ?? text
        }

        func printed(in codePage: PrinterCodePage) -> String {
            switch codePage {
            case .cp1252: cp1252
            case .cp858: cp858
            }
        }

        var testDescription: String { text }
    }

    static let samples: [Sample] = [
        Sample("Bäckerei Müller, Schulstraße 2"),
        Sample(
            "Café de la Gare, 12 rue de l’Église — « Entrée »",
            cp858: "Café de la Gare, 12 rue de l'Église - « Entrée »"),
        Sample("Caffè Città, Piazza Libertà"),
        Sample("Grüße aus Köln: Äpfel, Öl, Übermaß und Süßes. ÄÖÜ äöü ß"),
        Sample("È già lunedì: perché così? Più tardi, però. Ò Ì Ù À"),
        Sample("Œuvre du cœur, Noël à l’hôtel, Ça va, Île, Ÿ", cp858: "OEuvre du coeur, Noël à l'hôtel, Ça va, Île, Y"),
        Sample("00:10–01:40", cp858: "00:10-01:40"),
        Sample(
            "„Willkommen“ – “Welcome” – ‘bienvenue’ … 5 € • ok",
            cp858: #""Willkommen" - "Welcome" - 'bienvenue' ... 5 € * ok"#),
    ]

    @Test(arguments: samples, PrinterCodePage.allCases)
    func textsOfTheFourLanguagesPrintAsWritten(sample: Sample, codePage: PrinterCodePage) throws {
        for paper in PaperWidth.allCases {
            let lines = try printedLines(sample.text, codePage: codePage, paper: paper)
            #expect(lines.joined(separator: " ") == sample.printed(in: codePage))
            #expect(lines.allSatisfy { $0.count <= paper.columns })
        }
    }

    @Test(arguments: PrinterCodePage.allCases)
    func aPosterForAGermanBakeryPrintsItsNameAndAddress(codePage: PrinterCodePage) throws {
        let poster = VenuePoster(
            url: "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVy", description: "Bäckerei Müller",
            address: "Schulstraße 2")
        let bytes = try StationReceipts.bytes(for: .venuePoster(poster), paper: .mm58, codePage: codePage)
        #expect(bytes.starts(with: [0x1B, 0x40, 0x1B, 0x74, codePage.escposTable]))
        let rendering = try ESCPOSInterpreter.render(bytes, paper: .mm58)
        #expect(rendering.lines.contains(.init(text: "Bäckerei Müller", alignment: .center, emphasized: true)))
        #expect(rendering.lines.contains(.init(text: "Schulstraße 2", alignment: .center, emphasized: false)))
        #expect(!rendering.lines.contains { $0.text.contains("?") })
    }

    /// Decoding a byte and encoding the character gives the byte back, for every printable byte of both code pages
    /// but the two that print as something else on purpose: the no-break space (a space) and the soft hyphen (nothing).
    @Test(arguments: PrinterCodePage.allCases)
    func everyPrintableByteRoundTrips(codePage: PrinterCodePage) {
        var defined = 0
        for byte in UInt8(0x20)...UInt8(0xFF) {
            guard let character = codePage.character(for: byte) else {
                #expect(byte == 0x7F || (codePage == .cp1252 && [0x81, 0x8D, 0x8F, 0x90, 0x9D].contains(byte)))
                continue
            }
            defined += 1
            switch character {
            case "\u{A0}": #expect(codePage.encode(String(character)) == [0x20])
            case "\u{AD}": #expect(codePage.encode(String(character)) == [])
            default: #expect(codePage.encode(String(character)) == [byte], "byte \(byte)")
            }
        }
        #expect(defined == (codePage == .cp1252 ? 218 : 223))
        #expect(codePage.character(for: 0x1B) == nil && codePage.character(for: 0x0A) == nil)
    }

    @Test func theTablesAreTheSelectedOnes() {
        #expect(PrinterCodePage.cp1252.escposTable == 16 && PrinterCodePage.cp858.escposTable == 19)
        #expect(PrinterCodePage(escposTable: 16) == .cp1252 && PrinterCodePage(escposTable: 19) == .cp858)
        #expect(PrinterCodePage(escposTable: 0) == nil && PrinterCodePage(escposTable: 2) == nil)
        // Where the two tables differ from their neighbours: €, the typographic signs, code page 858's € at 0xD5.
        #expect(PrinterCodePage.cp1252.byte(for: "€") == 0x80 && PrinterCodePage.cp858.byte(for: "€") == 0xD5)
        #expect(PrinterCodePage.cp1252.byte(for: "–") == 0x96 && PrinterCodePage.cp1252.byte(for: "“") == 0x93)
        #expect(PrinterCodePage.cp858.byte(for: "ä") == 0x84 && PrinterCodePage.cp858.byte(for: "ß") == 0xE1)
        #expect(PrinterCodePage.cp858.byte(for: "ı") == nil, "code page 858 is 850 with € in place of ı")
    }

    /// Characters neither code page has print as their documented plain form, or `?`, one per character.
    @Test(arguments: PrinterCodePage.allCases)
    func charactersTheCodePageLacksPrintAsTheirPlainForm(codePage: PrinterCodePage) {
        let expected: [(String, String)] = [
            ("a → b", "a -> b"), ("a ← b ⇒ c", "a <- b => c"), ("x‐y‑z−1", "x-y-z-1"),
            ("12\u{A0}€", "12 €"), ("1\u{202F}000", "1 000"), ("a\u{2009}b", "a b"),
            ("Cafe\u{301} Mu\u{308}ller", "Café Müller"), ("ﬁn", "fin"), ("Dvořák", "Dvorák"), ("Łódź", "Lódz"),
            ("ẞ", "SS"), ("“quoted” ‘single’", codePage == .cp1252 ? "“quoted” ‘single’" : #""quoted" 'single'"#),
            ("™", codePage == .cp1252 ? "™" : "TM"), ("q\u{307}", "q"), ("\u{301}", ""),
            ("soft\u{AD}hyphen", "softhyphen"), ("zero\u{200B}width", "zerowidth"), ("tab\there", "tab here"),
            ("😀 ok", "? ok"), ("🇩🇪", "?"), ("👍🏽", "?"), ("中文", "??"), ("❤️", "?"),
        ]
        for (text, printed) in expected {
            var decoded = ""
            decoded.unicodeScalars.append(contentsOf: codePage.encode(text).map { codePage.character(for: $0) ?? "#" })
            #expect(decoded == printed, "\(text)")
        }
    }

    /// No character, whatever its code point, turns into a control byte: C0 controls, DEL and the C1 range print
    /// as `?` (a tab as a space, newlines end the line), and the stream the interpreter reads back has no command
    /// the text did not ask for.
    @Test(arguments: PrinterCodePage.allCases)
    func noControlByteComesFromText(codePage: PrinterCodePage) throws {
        let controls = Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F)
        for value in controls {
            let scalar = try #require(Unicode.Scalar(UInt32(value)))
            var encoder = ESCPOSEncoder(paper: .mm58, codePage: codePage)
            encoder.text("a\(Character(scalar))b")
            let textBytes = encoder.bytes.dropFirst(3)
            #expect(encoder.bytes.prefix(3) == [0x1B, 0x61, 0x00], "only ESC a 0 before the text")
            #expect(textBytes.allSatisfy { $0 == 0x0A || ($0 >= 0x20 && $0 != 0x7F) }, "U+\(value)")
            #expect(textBytes.allSatisfy { !(0x80...0x9F).contains($0) }, "U+\(value)")
            let lines = try ESCPOSInterpreter.render(encoder.bytes, paper: .mm58).lines.map(\.text)
            switch value {
            case 0x09: #expect(lines == ["a b"])
            case 0x0A...0x0D, 0x85: #expect(lines == ["a", "b"], "U+\(value) is a newline")
            default: #expect(lines == ["a?b"], "U+\(value)")
            }
        }
        // Every scalar of the first planes' common blocks, alone: a printable byte, a space, or nothing.
        for value in UInt32(0)...UInt32(0x33FF) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let bytes = codePage.encode(String(Character(scalar)))
            #expect(bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F && codePage.character(for: $0) != nil }, "U+\(value)")
        }
    }

    /// Lines wrap at the paper's columns counted in printed characters: an umlaut is one column (not two UTF-8
    /// bytes), a plain form as many as it prints, a no-break space never breaks.
    @Test(arguments: PrinterCodePage.allCases)
    func wrappingCountsPrintedCharacters(codePage: PrinterCodePage) throws {
        let columns = PaperWidth.mm58.columns
        #expect(
            try printedLines(String(repeating: "ä", count: 40), codePage: codePage, paper: .mm58) == [
                String(repeating: "ä", count: columns), String(repeating: "ä", count: 8),
            ])
        let words = Array(repeating: "Straße", count: 12).joined(separator: " ")
        let wrapped = try printedLines(words, codePage: codePage, paper: .mm58)
        #expect(
            wrapped == ["Straße Straße Straße Straße", "Straße Straße Straße Straße", "Straße Straße Straße Straße"])
        #expect(
            try printedLines(String(repeating: "→", count: 20), codePage: codePage, paper: .mm58) == [
                String(repeating: "->", count: 16), String(repeating: "->", count: 4),
            ])
        // A space right after a full line breaks there, and the next line does not start with it.
        let full = String(repeating: "ü", count: columns)
        #expect(try printedLines(full + " Öl", codePage: codePage, paper: .mm58) == [full, "Öl"])
        // The break falls at the plain space before "12", never inside "12 345" (a no-break space).
        let number = String(repeating: "x", count: 28) + " 12\u{A0}345"
        #expect(
            try printedLines(number, codePage: codePage, paper: .mm58) == [String(repeating: "x", count: 28), "12 345"])
        // Decomposed accents are composed before counting.
        let decomposed = String(repeating: "e\u{301}", count: columns)
        #expect(
            try printedLines(decomposed, codePage: codePage, paper: .mm58) == [String(repeating: "é", count: columns)])
    }

    @Test func theInterpreterDecodesWithTheSelectedCodePageAndRejectsOthers() throws {
        // Code page 858's bytes for "äÉ€" and Windows-1252's, each read back with its own table.
        let cp858 = try ESCPOSInterpreter.render([0x1B, 0x40, 0x1B, 0x74, 0x13, 0x84, 0x90, 0xD5, 0x0A], paper: .mm58)
        #expect(cp858.lines.map(\.text) == ["äÉ€"] && cp858.codePage == .cp858)
        let cp1252 = try ESCPOSInterpreter.render([0x1B, 0x40, 0x1B, 0x74, 0x10, 0xE4, 0xC9, 0x80, 0x0A], paper: .mm58)
        #expect(cp1252.lines.map(\.text) == ["äÉ€"] && cp1252.codePage == .cp1252)
        for table: UInt8 in [0, 1, 2, 17, 18, 255] {
            #expect(throws: ESCPOSInterpreter.Failure.unknownCodePage(offset: 2, table: table)) {
                try ESCPOSInterpreter.render([0x1B, 0x40, 0x1B, 0x74, table, 0x41, 0x0A], paper: .mm58)
            }
        }
        #expect(throws: ESCPOSInterpreter.Failure.truncated(offset: 0)) {
            try ESCPOSInterpreter.render([0x1B, 0x74], paper: .mm58)
        }
        // Windows-1252 leaves 0x81 undefined; before any ESC t (and again after ESC @) no byte above 0x7F is known.
        #expect(throws: ESCPOSInterpreter.Failure.undefinedCharacter(offset: 5, byte: 0x81)) {
            try ESCPOSInterpreter.render([0x1B, 0x40, 0x1B, 0x74, 0x10, 0x81, 0x0A], paper: .mm58)
        }
        #expect(throws: ESCPOSInterpreter.Failure.undefinedCharacter(offset: 3, byte: 0xE4)) {
            try ESCPOSInterpreter.render([0x1B, 0x40, 0x41, 0xE4, 0x0A], paper: .mm58)
        }
        #expect(throws: ESCPOSInterpreter.Failure.undefinedCharacter(offset: 7, byte: 0xE4)) {
            try ESCPOSInterpreter.render([0x1B, 0x74, 0x10, 0xE4, 0x0A, 0x1B, 0x40, 0xE4, 0x0A], paper: .mm58)
        }
    }
}
