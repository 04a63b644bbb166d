import Foundation
import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

/// The simulated printer draws receipt text with real glyphs: every printable character of both code pages has
/// one, different letters look different, and OCR reads a rendered line back.
@Suite struct ESCPOSInterpreterRenderingTests {
    /// The first text line of a receipt printing `text` (left-aligned, one line) in `codePage`.
    static func renderedLine(
        _ text: String, codePage: PrinterCodePage = .cp1252, emphasized: Bool = false, paper: PaperWidth = .mm58
    ) throws -> ESCPOSInterpreter.Rendering {
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        encoder.text(text, emphasized: emphasized)
        return try ESCPOSInterpreter.render(encoder.bytes, paper: paper)
    }

    /// The dots of character cell `column` of the first text line: 12 × 24, `true` for ink.
    static func cell(_ rendering: ESCPOSInterpreter.Rendering, column: Int) -> [Bool] {
        var dots: [Bool] = []
        for y in 0..<ESCPOSInterpreter.lineHeight {
            for x in (column * ESCPOSInterpreter.cellWidth)..<((column + 1) * ESCPOSInterpreter.cellWidth) {
                dots.append(rendering.pixels[y * rendering.width + x] == 0)
            }
        }
        return dots
    }

    static let letters = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ÄÖÜäöüßéèêëàâçïîôûùìòÈÉÀÇŒœ€")

    @Test func theFontHasAGlyphForEveryPrintableCharacterOfBothCodePages() {
        let font = BitmapFont.receiptFontA
        #expect(font.cellWidth == ESCPOSInterpreter.cellWidth && font.cellHeight == ESCPOSInterpreter.lineHeight)
        var printable = Set<Unicode.Scalar>()
        for codePage in PrinterCodePage.allCases {
            for byte in UInt8(0x20)...UInt8(0xFF) {
                guard let character = codePage.character(for: byte) else { continue }
                printable.insert(character)
                #expect(font.glyph(for: character) != nil, "\(codePage) byte \(byte)")
            }
        }
        #expect(font.characters == printable, "the font holds exactly the printable characters")
        // Every glyph but the spaces has ink, and none but code page 858's block elements (░ ▒ ▓ █ ▄ ▀) is half
        // ink or more.
        for character in printable where character != " " && character != "\u{A0}" {
            let count = (0..<24).map { y in
                (0..<12).filter { font.glyph(for: character)?.isInk(x: $0, y: y) == true }.count
            }
            .reduce(0, +)
            let isBlockElement = (0x2580...0x259F).contains(character.value)
            #expect(count > 0 && (isBlockElement || count < 12 * 24 / 2), "\(character)")
        }
    }

    /// A rendered line is drawn letter by letter: each letter cell has ink and paper, different letters (and a letter
    /// with and without its accent) differ, and the same letter is drawn the same wherever it stands.
    @Test func differentLettersRenderToDifferentDots() throws {
        let rendering = try Self.renderedLine(String(Self.letters), paper: .mm80)
        let lines = rendering.lines.map(\.text)
        let cells = lines.enumerated().flatMap { line, text in
            text.indices.map { index in
                let column = text.distance(from: text.startIndex, to: index)
                var dots: [Bool] = []
                for y in (line * 24)..<(line * 24 + 24) {
                    for x in (column * 12)..<(column * 12 + 12) {
                        dots.append(rendering.pixels[y * rendering.width + x] == 0)
                    }
                }
                return dots
            }
        }
        #expect(cells.count == Self.letters.count)
        for (index, dots) in cells.enumerated() {
            let ink = dots.filter { $0 }.count
            #expect(ink > 12 && ink < 12 * 24 / 2, "\(Self.letters[index]) is neither blank nor a block")
        }
        #expect(Set(cells).count == cells.count, "every letter looks different")

        let pairs = try Self.renderedLine("aäoöuüeéAÄ")
        #expect(Self.cell(pairs, column: 0) != Self.cell(pairs, column: 1))
        #expect(Self.cell(pairs, column: 2) != Self.cell(pairs, column: 3))
        #expect(Self.cell(pairs, column: 4) != Self.cell(pairs, column: 5))
        #expect(Self.cell(pairs, column: 6) != Self.cell(pairs, column: 7))
        #expect(Self.cell(pairs, column: 8) != Self.cell(pairs, column: 9))
        let repeated = try Self.renderedLine("ab ab")
        #expect(Self.cell(repeated, column: 0) == Self.cell(repeated, column: 3))
        #expect(Self.cell(repeated, column: 2).allSatisfy { !$0 }, "a space is blank")
    }

    @Test(arguments: PrinterCodePage.allCases)
    func bothCodePagesDrawTheSameLetters(codePage: PrinterCodePage) throws {
        let text = "Bäckerei Müller, Schulstraße 2"
        let reference = try Self.renderedLine(text)
        let rendering = try Self.renderedLine(text, codePage: codePage)
        #expect(rendering.lines.map(\.text) == [text])
        #expect(rendering.pixels == reference.pixels)
    }

    @Test func emphasisedTextIsBolder() throws {
        let normal = try Self.renderedLine("Ä")
        let bold = try Self.renderedLine("Ä", emphasized: true)
        let normalDots = Self.cell(normal, column: 0)
        let boldDots = Self.cell(bold, column: 0)
        #expect(zip(normalDots, boldDots).allSatisfy { !$0 || $1 }, "emphasis only adds ink")
        #expect(boldDots.filter { $0 }.count > normalDots.filter { $0 }.count)
    }

    /// What a person would read: a rendered line, scaled up twice, read by Tesseract with the language's model.
    @Test(arguments: [
        ("eng", "Check in here"), ("eng", "Protected check-in reports"),
        ("deu", "Bäckerei Müller, Schulstraße 2"), ("deu", "Grüße aus Köln"),
        ("fra", "Café de la Gare, 12 rue de l'Église"), ("fra", "Entrée gratuite, très bien"),
        ("ita", "Caffè Città, Piazza Libertà"), ("ita", "Perché così? Più tardi"),
    ])
    func ocrReadsARenderedLine(language: String, text: String) throws {
        let rendering = try Self.renderedLine(text, paper: .mm80)
        #expect(rendering.lines.count == 1)
        let width = text.count * ESCPOSInterpreter.cellWidth
        let image = try OCRImage(rendering, width: width, height: ESCPOSInterpreter.lineHeight, scale: 2, margin: 16)
        defer { image.remove() }
        #expect(try image.read(language: language) == text)
    }
}

/// The top left `width` × `height` dots of a rendering, each dot `scale` × `scale` pixels, with a white margin,
/// written as a PGM file for `tesseract`.
struct OCRImage {
    let path: String

    init(_ rendering: ESCPOSInterpreter.Rendering, width: Int, height: Int, scale: Int, margin: Int) throws {
        let outWidth = width * scale + 2 * margin
        let outHeight = height * scale + 2 * margin
        var pixels = [UInt8](repeating: 255, count: outWidth * outHeight)
        for y in 0..<(height * scale) {
            for x in 0..<(width * scale) {
                pixels[(margin + y) * outWidth + margin + x] =
                    rendering.pixels[(y / scale) * rendering.width + x / scale]
            }
        }
        path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-ocr-\(UUID().uuidString).pgm").path
        try Data(Array("P5\n\(outWidth) \(outHeight)\n255\n".utf8) + pixels).write(to: URL(fileURLWithPath: path))
    }

    /// The text `tesseract` reads as one line (`--psm 7`) with `language`'s model. The tool and its German, French
    /// and Italian models are test packages of `board/kiosk-dev`.
    func read(language: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
        process.arguments = [path, "stdout", "-l", language, "--psm", "7"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
