import Foundation
import KioskCore
import KioskOpenSSL
import KioskPrinter
import KioskSimulation
import Testing

/// Every receipt in every language prints in the printer's code page and reads back as the catalog wrote it:
/// umlauts, accents, guillemets and dashes included, nothing turned into `?`.
@Suite struct LocalizedReceiptTests {
    /// The receipt's text as printed: its lines, rejoined where the paper wrapped them.
    static func printedText(_ job: PrintJob, language: Language, codePage: PrinterCodePage = .cp1252) throws -> String {
        let bytes = try StationReceipts.bytes(for: job, paper: .mm58, codePage: codePage, language: language)
        return try ESCPOSInterpreter.render(bytes, paper: .mm58).lines.map(\.text).joined(separator: " ")
    }

    /// A text as the printer shows it: a no-break space is a space on paper.
    static func printed(_ text: String) -> String { text.replacingOccurrences(of: "\u{00A0}", with: " ") }

    static let card = try! CardSecret.generate(kind: .visitor, crypto: OpenSSLCrypto())

    @Test(arguments: Language.allCases)
    func thePersonalCardAndTheWarningSlipReadBackInTheirLanguage(_ language: Language) throws {
        let catalog = Catalog.of(language)
        let cardText = try Self.printedText(.personalCard(Self.card), language: language)
        for key in [TextKey.receiptCardTitle, .receiptCardUse, .receiptCardKey] {
            #expect(cardText.contains(Self.printed(catalog[key])), "\(language) \(key)")
        }
        let slip = try Self.printedText(
            .warningSlip(WarningSlip(exposureDays: [20_400, 20_401], isHighRisk: true)), language: language)
        for key in [TextKey.receiptWarningTitle, .receiptWarningDays, .receiptWarningRiskHigh, .receiptWarningAdvice] {
            #expect(slip.contains(Self.printed(catalog[key])), "\(language) \(key)")
        }
        #expect(!slip.contains("?") || catalog[.receiptWarningAdvice].contains("?"))
        if language != .en { #expect(!slip.contains(Catalog.english[.receiptWarningAdvice])) }
    }

    @Test func aGermanPosterPrintsItsVenueAndItsTextWithUmlauts() throws {
        let poster = VenuePoster(
            url: "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ2VudHVyIElEGhVNdXN0ZXJzdHJhw59lIDEsIEJlcmxpbho",
            description: "Bäckerei Müller", address: "Schulstraße 2")
        let text = try Self.printedText(.venuePoster(poster), language: .de)
        #expect(text.contains("Bäckerei Müller"))
        #expect(text.contains("Schulstraße 2"))
        #expect(text.contains(Catalog.of(.de)[.receiptPosterTitle]))
        #expect(text.contains(Catalog.of(.de)[.receiptPosterInstructions]))
    }

    @Test(arguments: Language.allCases)
    func everyCatalogTextPrintsInCP1252WithoutLoss(_ language: Language) throws {
        let catalog = Catalog.of(language)
        for key in catalog.keys.sorted() {
            let text = catalog.rawText(key) ?? ""
            var encoder = ESCPOSEncoder(paper: .mm80, codePage: .cp1252)
            encoder.initialize()
            encoder.text(text)
            let lines = try ESCPOSInterpreter.render(encoder.bytes, paper: .mm80).lines.map(\.text)
            // The no-break space prints as a space; everything else comes back as written.
            let expected = text.replacingOccurrences(of: "\u{00A0}", with: " ")
            #expect(lines.joined(separator: " ") == expected, "\(language) \(key)")
        }
    }
}
