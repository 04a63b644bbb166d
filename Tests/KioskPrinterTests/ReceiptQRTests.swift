import Foundation
import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

/// Receipts with QR codes made by libqrencode, encoded as ESC/POS, rendered back by the test interpreter and read
/// with the real libzbar: what a visitor's phone or a health authority's scanner would see on paper.
@Suite struct ReceiptQRTests {
    static let reportURL =
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_"
        + "NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2ho"
        + "AaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"

    static func receipt(paper: PaperWidth, payloads: [[UInt8]]) throws -> [UInt8] {
        var encoder = ESCPOSEncoder(paper: paper)
        encoder.initialize()
        encoder.text("Check-in kiosk", alignment: .center, emphasized: true)
        encoder.text("Your protected report. Hand it only to the health authority.")
        encoder.feed(lines: 1)
        for payload in payloads {
            try encoder.qrCode(try QREncoder.matrix(for: payload))
            encoder.feed(lines: 1)
        }
        encoder.text("Keep this receipt safe.", alignment: .center)
        encoder.cut()
        return encoder.bytes
    }

    @Test(arguments: PaperWidth.allCases)
    func printedQRCodeDecodesWithLibzbar(paper: PaperWidth) throws {
        let payload = Array(Self.reportURL.utf8)
        let bytes = try Self.receipt(paper: paper, payloads: [payload])
        let rendering = try ESCPOSInterpreter.render(bytes, paper: paper)
        #expect(rendering.rasterBands >= 1)
        #expect(rendering.cuts == 1)
        #expect(rendering.lines.first == .init(text: "Check-in kiosk", alignment: .center, emphasized: true))
        let decoded = ZBarDecoder.decodeQRCodes(
            width: rendering.width, height: rendering.height, grey: rendering.pixels)
        #expect(decoded == [payload])
        // Kept for a look at the receipt: the test's temporary directory, never the repository.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-receipt-\(paper.rawValue).pgm")
        try Data(rendering.pgm).write(to: file)
    }

    @Test func binaryPayloadSurvivesPrintingAndScanning() throws {
        let payload: [UInt8] = (0..<120).map { UInt8(($0 * 37 + 200) & 0xFF) }
        let bytes = try Self.receipt(paper: .mm58, payloads: [payload])
        let rendering = try ESCPOSInterpreter.render(bytes, paper: .mm58)
        #expect(
            ZBarDecoder.decodeQRCodes(width: rendering.width, height: rendering.height, grey: rendering.pixels)
                == [payload])
    }

    @Test func twoCodesOnOneReceiptBothDecode() throws {
        let first = Array("kiosk-report-1:\(String(repeating: "a", count: 40))".utf8)
        let second = Array("kiosk-report-2:\(String(repeating: "b", count: 40))".utf8)
        let rendering = try ESCPOSInterpreter.render(
            try Self.receipt(paper: .mm80, payloads: [first, second]),
            paper: .mm80)
        let decoded = ZBarDecoder.decodeQRCodes(
            width: rendering.width, height: rendering.height, grey: rendering.pixels)
        #expect(Set(decoded) == Set([first, second]))
    }

    @Test func aDamagedCodeDoesNotDecodeAsSomethingElse() throws {
        let payload = Array(Self.reportURL.utf8)
        var rendering = try ESCPOSInterpreter.render(try Self.receipt(paper: .mm58, payloads: [payload]), paper: .mm58)
        // Blank out the middle third of the receipt: the scanner must find nothing rather than wrong data.
        let pixels = rendering.pixels.enumerated().map { index, grey in
            (index / rendering.width) % 3 == 0 && index / rendering.width > 60 ? UInt8(255) : grey
        }
        let decoded = ZBarDecoder.decodeQRCodes(width: rendering.width, height: rendering.height, grey: pixels)
        #expect(decoded.allSatisfy { $0 == payload })
        rendering = try ESCPOSInterpreter.render([0x1B, 0x40], paper: .mm58)
        #expect(rendering.height == 0)
    }
}

@Suite struct QREncoderTests {
    @Test func shortTextIsAVersion1Symbol() throws {
        let matrix = try QREncoder.matrix(for: "KIOSK")
        #expect(matrix.size == 21)
        // The three finder patterns: dark 7 × 7 borders at three corners.
        for (x, y) in [(0, 0), (14, 0), (0, 14)] {
            #expect(matrix[x, y] && matrix[x + 6, y] && matrix[x, y + 6] && matrix[x + 6, y + 6])
            #expect(!matrix[x + 1, y + 1])
            #expect(matrix[x + 3, y + 3])
        }
    }

    @Test func longerDataPicksALargerVersion() throws {
        let matrix = try QREncoder.matrix(for: ReceiptQRTests.reportURL, correction: .medium)
        #expect(matrix.size > 21)
        #expect((matrix.size - 17) % 4 == 0)
        let high = try QREncoder.matrix(for: ReceiptQRTests.reportURL, correction: .high)
        #expect(high.size > matrix.size)
    }

    @Test func dataBeyondTheLargestSymbolIsRefused() {
        #expect(throws: QREncodeError.tooLong(byteCount: 3000)) {
            try QREncoder.matrix(for: [UInt8](repeating: 0x41, count: 3000), correction: .low)
        }
    }
}

@Suite struct ReceiptTestPageTests {
    @Test(arguments: PaperWidth.allCases)
    func testPageRendersWithAReadableCodeAndACut(paper: PaperWidth) throws {
        let rendering = try ESCPOSInterpreter.render(try ReceiptTestPage.bytes(paper: paper), paper: paper)
        #expect(rendering.cuts == 1)
        #expect(rendering.lines.first?.text == "Kiosk printer test")
        #expect(rendering.lines.contains { $0.text.contains("\(paper.dots) dots") })
        #expect(
            ZBarDecoder.decodeQRCodes(width: rendering.width, height: rendering.height, grey: rendering.pixels)
                == [Array("KIOSK PRINTER TEST".utf8)])
        // The ruler reaches the last dot of the printable width.
        let rulerTop = rendering.lines.count * ESCPOSInterpreter.lineHeight
        #expect(rendering.pixels[rulerTop * rendering.width + (paper.dots - 8)] == 0)
    }

    /// The page names the code page and prints the letters of the kiosk's languages in it, so that staff see at once
    /// whether the printer has the configured table.
    @Test(arguments: [
        (PrinterCodePage.cp1252, ReceiptTestPage.sampleText),
        (.cp858, #"ÄÖÜ äöü ß é è ê à â ç ë ï ô ù û ì ò « » € " " ' ' - - ..."#),
    ])
    func testPagePrintsTheLettersInTheConfiguredCodePage(codePage: PrinterCodePage, printed: String) throws {
        let rendering = try ESCPOSInterpreter.render(
            try ReceiptTestPage.bytes(paper: .mm58, codePage: codePage), paper: .mm58)
        #expect(rendering.codePage == codePage)
        let text = rendering.lines.map(\.text).joined(separator: " ")
        #expect(text.contains("Code page \(codePage.rawValue) (ESC t \(codePage.escposTable)):"))
        #expect(text.contains(printed), "\(text)")
    }
}
