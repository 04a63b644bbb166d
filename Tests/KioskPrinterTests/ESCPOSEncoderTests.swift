import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

@Suite struct ESCPOSEncoderTests {
    @Test func textWithAlignmentAndEmphasisIsTheEpsonCommandSequence() {
        var encoder = ESCPOSEncoder(paper: .mm58)
        encoder.initialize()
        encoder.text("Kiosk", alignment: .center, emphasized: true)
        encoder.text("ok")
        encoder.feed(lines: 2)
        encoder.cut()
        #expect(
            encoder.bytes == [
                0x1B, 0x40,  // ESC @
                0x1B, 0x74, 0x10,  // ESC t 16: WPC1252
                0x1B, 0x61, 0x01, 0x1B, 0x45, 0x01,  // ESC a 1, ESC E 1
                0x4B, 0x69, 0x6F, 0x73, 0x6B, 0x0A,  // "Kiosk" LF
                0x1B, 0x45, 0x00, 0x1B, 0x61, 0x00,  // ESC E 0, ESC a 0
                0x1B, 0x61, 0x00, 0x6F, 0x6B, 0x0A,  // ESC a 0 "ok" LF
                0x1B, 0x64, 0x02,  // ESC d 2
                0x1D, 0x56, 0x42, 0x03,  // GS V 66 3
            ])
    }

    /// Letters and € print in the code page, which the stream selects before the first text that needs it; control
    /// characters print as `?` and never reach the printer as bytes.
    @Test func lettersPrintInTheCodePageAndControlCharactersNeverReachThePrinter() {
        var encoder = ESCPOSEncoder(paper: .mm80)
        encoder.text("Zoë\u{1B}@\u{7}€")
        #expect(
            encoder.bytes == [
                0x1B, 0x74, 0x10,  // ESC t 16: WPC1252
                0x1B, 0x61, 0x00,  // ESC a 0
                0x5A, 0x6F, 0xEB, 0x3F, 0x40, 0x3F, 0x80, 0x0A,  // "Zoë?@?€" LF
            ])
        var cp858 = ESCPOSEncoder(paper: .mm80, codePage: .cp858)
        cp858.text("Zoë\u{1B}@\u{7}€")
        #expect(cp858.bytes == [0x1B, 0x74, 0x13, 0x1B, 0x61, 0x00, 0x5A, 0x6F, 0x89, 0x3F, 0x40, 0x3F, 0xD5, 0x0A])
        var ascii = ESCPOSEncoder(paper: .mm80)
        ascii.text("ok\u{1B}")
        #expect(ascii.bytes == [0x1B, 0x61, 0x00, 0x6F, 0x6B, 0x3F, 0x0A], "ASCII alone needs no code page")
    }

    @Test(arguments: PaperWidth.allCases)
    func longTextWrapsAtSpacesToThePaperWidth(paper: PaperWidth) throws {
        var encoder = ESCPOSEncoder(paper: paper)
        let words = Array(repeating: "checkin", count: 30).joined(separator: " ")
        encoder.text(words + "\n" + String(repeating: "x", count: paper.columns + 5))
        let rendering = try ESCPOSInterpreter.render(encoder.bytes, paper: paper)
        #expect(rendering.lines.allSatisfy { $0.text.count <= paper.columns })
        #expect(
            rendering.lines.map(\.text).joined(separator: " ") == words + " "
                + String(repeating: "x", count: paper.columns) + " xxxxx")
    }

    @Test func rasterImageIsGSv0WithPackedRows() throws {
        var bitmap = MonoBitmap(width: 10, height: 2)
        bitmap[0, 0] = true
        bitmap[9, 0] = true
        bitmap[1, 1] = true
        var encoder = ESCPOSEncoder(paper: .mm58)
        try encoder.image(bitmap, alignment: .left)
        #expect(
            encoder.bytes == [
                0x1B, 0x61, 0x00,
                0x1D, 0x76, 0x30, 0x00, 0x02, 0x00, 0x02, 0x00,  // GS v 0 m=0, 2 bytes wide, 2 rows
                0x80, 0x40,  // row 0: dot 0, dot 9
                0x40, 0x00,  // row 1: dot 1
            ])
    }

    @Test func tallImagesGoOutInBands() throws {
        var bitmap = MonoBitmap(width: 16, height: 600)
        for y in 0..<600 { bitmap[y % 16, y] = true }
        var encoder = ESCPOSEncoder(paper: .mm58)
        try encoder.image(bitmap)
        let rendering = try ESCPOSInterpreter.render(encoder.bytes, paper: .mm58)
        #expect(rendering.rasterBands == 3)
        #expect(rendering.height == 600)
        let left = (384 - 16) / 2
        for y in 0..<600 {
            for x in 0..<16 {
                #expect((rendering.pixels[y * 384 + left + x] == 0) == bitmap[x, y])
            }
        }
    }

    @Test func imageWiderThanThePaperIsRefused() {
        var encoder = ESCPOSEncoder(paper: .mm58)
        #expect(throws: ESCPOSError.imageTooWide(width: 400, maximum: 384)) {
            try encoder.image(MonoBitmap(width: 400, height: 8))
        }
        #expect(encoder.bytes.isEmpty)
    }

    @Test func paperSizes() {
        #expect(PaperWidth.mm58.dots == 384)
        #expect(PaperWidth.mm80.dots == 576)
        #expect(PaperWidth.mm58.columns == 32)
        #expect(PaperWidth.mm80.columns == 48)
    }
}

@Suite struct QRMatrixRasterTests {
    static let finderOnly: QRMatrix = {
        var modules = [Bool](repeating: false, count: 21 * 21)
        for y in 0..<7 {
            for x in 0..<7 where x == 0 || y == 0 || x == 6 || y == 6 || (2...4 ~= x && 2...4 ~= y) {
                modules[y * 21 + x] = true
            }
        }
        return QRMatrix(size: 21, modules: modules)
    }()

    @Test func rasterScalesEveryModuleAndKeepsTheQuietZone() {
        let raster = Self.finderOnly.raster(dotsPerModule: 3, quietZoneModules: 4)
        #expect(raster.width == (21 + 8) * 3)
        #expect(raster.height == raster.width)
        for y in 0..<raster.height {
            for x in 0..<raster.width {
                let mx = x / 3 - 4
                let my = y / 3 - 4
                let expected = (0..<21).contains(mx) && (0..<21).contains(my) && Self.finderOnly[mx, my]
                #expect(raster[x, y] == expected)
            }
        }
    }

    @Test func dotsPerModuleFitsThePaper() {
        #expect(Self.finderOnly.dotsPerModule(fitting: 384) == 8)
        #expect(Self.finderOnly.dotsPerModule(fitting: 384, cap: 100) == 13)
        #expect(Self.finderOnly.dotsPerModule(fitting: 28) == nil)
        let big = QRMatrix(size: 177, modules: [Bool](repeating: false, count: 177 * 177))
        #expect(big.dotsPerModule(fitting: 384) == 2)
        #expect(big.dotsPerModule(fitting: 576) == 3)
    }
}

@Suite struct PrinterStatusTests {
    @Test func parsesTheStatusBytes() {
        #expect(PrinterStatus(offlineCause: 0x12, paperSensor: 0x12) == PrinterStatus())
        #expect(PrinterStatus(offlineCause: 0x32, paperSensor: 0x72)?.paperOut == true)
        #expect(PrinterStatus(offlineCause: 0x16, paperSensor: 0x12)?.coverOpen == true)
        #expect(PrinterStatus(offlineCause: 0x12, paperSensor: 0x1E)?.paperLow == true)
        #expect(PrinterStatus(offlineCause: 0x12, paperSensor: 0x1E)?.blocksPrinting == false)
        #expect(PrinterStatus(offlineCause: 0x52, paperSensor: 0x12)?.failed == true)
        #expect(PrinterStatus(offlineCause: 0x00, paperSensor: 0x12) == nil)
        #expect(PrinterStatus(offlineCause: 0x12, paperSensor: 0x93) == nil)
    }

    @Test func answerBytesRoundTrip() {
        for status in [
            PrinterStatus(), PrinterStatus(paperOut: true), PrinterStatus(coverOpen: true, paperLow: true),
            PrinterStatus(failed: true),
        ] {
            let bytes = status.answerBytes
            #expect(PrinterStatus(offlineCause: bytes[0], paperSensor: bytes[1]) == status)
        }
    }
}

@Suite struct ESCPOSInterpreterTests {
    @Test func refusesBytesOutsideTheSubset() {
        #expect(throws: ESCPOSInterpreter.Failure.unknownCommand(offset: 2, bytes: [0x1B, 0x21])) {
            try ESCPOSInterpreter.render([0x1B, 0x40, 0x1B, 0x21, 0x10], paper: .mm58)
        }
        #expect(throws: ESCPOSInterpreter.Failure.unknownCommand(offset: 0, bytes: [0x07])) {
            try ESCPOSInterpreter.render([0x07], paper: .mm58)
        }
        #expect(throws: ESCPOSInterpreter.Failure.truncated(offset: 0)) {
            try ESCPOSInterpreter.render([0x1D, 0x76, 0x30, 0x00, 0x01, 0x00, 0x02, 0x00, 0xFF], paper: .mm58)
        }
        #expect(throws: ESCPOSInterpreter.Failure.imageTooWide(offset: 0)) {
            try ESCPOSInterpreter.render([0x1D, 0x76, 0x30, 0x00, 0x49, 0x00, 0x00, 0x00], paper: .mm80)
        }
    }

    @Test func recordsTextLinesWithTheirModesAndDrawsGlyphs() throws {
        var encoder = ESCPOSEncoder(paper: .mm58)
        encoder.initialize()
        encoder.text("AB", alignment: .right, emphasized: true)
        encoder.text("c d")
        encoder.cut()
        let rendering = try ESCPOSInterpreter.render(encoder.bytes, paper: .mm58)
        #expect(
            rendering.lines == [
                .init(text: "AB", alignment: .right, emphasized: true),
                .init(text: "c d", alignment: .left, emphasized: false),
            ])
        #expect(rendering.cuts == 1)
        #expect(rendering.initializations == 1)
        #expect(rendering.codePage == .cp1252)
        /// Black dots in the 12 × 24 cell `column` of text line `line`.
        func ink(line: Int, column: Int, from left: Int = 0) -> Int {
            var count = 0
            for y in (line * 24)..<(line * 24 + 24) {
                for x in (left + column * 12)..<(left + column * 12 + 12) where rendering.pixels[y * 384 + x] == 0 {
                    count += 1
                }
            }
            return count
        }
        // "AB" right-aligned: ink in the last two cells of the first line only.
        #expect(ink(line: 0, column: 31) > 0 && ink(line: 0, column: 30) > 0)
        #expect((0..<30).allSatisfy { ink(line: 0, column: $0) == 0 })
        // "c d": ink in cells 0 and 2, none in cell 1 (the space).
        #expect(ink(line: 1, column: 0) > 0 && ink(line: 1, column: 1) == 0 && ink(line: 1, column: 2) > 0)
        #expect(rendering.pixels.allSatisfy { $0 == 0 || $0 == 255 || $0 == 160 }, "black text, white paper, grey cut")
        #expect(rendering.pgm.starts(with: Array("P5\n384 \(rendering.height)\n255\n".utf8)))
    }
}
