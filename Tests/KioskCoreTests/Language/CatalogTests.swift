import Foundation
import KioskCore
import Testing

@Suite struct CatalogTests {
    /// The placeholders (`{name}`) of a text.
    static func placeholders(_ text: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// Every key the code names: each text key, and each plural key's forms as English has them.
    static var expectedKeys: Set<String> {
        var keys = Set(TextKey.allCases.map(\.rawValue))
        for plural in PluralKey.allCases {
            for form in ["zero", "one", "other"] {
                let key = plural.rawValue + "." + form
                if Catalog.english.rawText(key) != nil { keys.insert(key) }
            }
        }
        return keys
    }

    @Test(arguments: Language.allCases)
    func everyCatalogHoldsExactlyTheKeysTheCodeNames(_ language: Language) {
        let catalog = Catalog.of(language)
        let expected = Self.expectedKeys
        #expect(expected.count > 300)
        #expect(catalog.keys.subtracting(expected).sorted() == [], "keys no code names")
        #expect(expected.subtracting(catalog.keys).sorted() == [], "keys missing")
        for plural in PluralKey.allCases {
            #expect(catalog.rawText(plural.rawValue + ".one") != nil)
            #expect(catalog.rawText(plural.rawValue + ".other") != nil)
        }
    }

    @Test(arguments: Language.allCases)
    func everyTextIsWrittenAndKeepsEnglishPlaceholders(_ language: Language) {
        let catalog = Catalog.of(language)
        for key in catalog.keys.sorted() {
            let text = catalog.rawText(key) ?? ""
            let english = Catalog.english.rawText(key) ?? ""
            #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty, "\(key) is empty")
            #expect(!text.contains("  "), "\(key) has a double space")
            let mine = Self.placeholders(text)
            var allowed = Self.placeholders(english)
            if key.hasSuffix(".one") || key.hasSuffix(".zero") { allowed.insert("count") }
            #expect(mine.isSubset(of: allowed), "\(language) \(key) names \(mine.subtracting(allowed))")
            // A plural form may say "one" in words; every other text keeps every value English shows.
            if !key.hasSuffix(".one"), !key.hasSuffix(".zero") {
                #expect(mine == Self.placeholders(english), "\(language) \(key) drops a value")
            }
        }
    }

    @Test(arguments: [Language.de, .fr, .it])
    func translationsAreTranslated(_ language: Language) {
        let catalog = Catalog.of(language)
        let keys = catalog.keys.sorted()
        let same = keys.filter { catalog.rawText($0) == Catalog.english.rawText($0) }
        // Only texts that are the same in every language may stay English ("OK", "PIN: …" and the like).
        #expect(same.count * 20 < keys.count, "\(same.count) texts equal English: \(same.prefix(10))")
        #expect(catalog[.languageName] != Catalog.english[.languageName])
    }

    @Test func languagesAreNamedInThemselves() {
        #expect(
            Language.allCases.map { Catalog.of($0)[.languageName] } == ["English", "Deutsch", "Français", "Italiano"])
    }

    @Test func pluralsFollowTheLanguagesRule() {
        #expect(Catalog.english.count(.sessionCount, 0) == "This kiosk holds no stays for this card.")
        #expect(Catalog.english.count(.sessionCount, 1) == "This kiosk holds 1 stay for this card.")
        #expect(Catalog.english.count(.sessionCount, 3) == "This kiosk holds 3 stays for this card.")
        #expect(Catalog.english.count(.sessionDigitsTyped, 0) == "0 digits typed.")
        // French takes the singular for 0 and 1.
        let french = Catalog.of(.fr)
        #expect(
            french.count(.sessionDigitsTyped, 0)
                == french.rawText("session.digitsTyped.one")?.replacing("{count}", with: "0"))
        #expect(
            french.count(.sessionDigitsTyped, 2)
                == french.rawText("session.digitsTyped.other")?.replacing("{count}", with: "2"))
        let german = Catalog.of(.de)
        #expect(
            german.count(.sessionDigitsTyped, 0)
                == german.rawText("session.digitsTyped.other")?.replacing("{count}", with: "0"))
    }

    @Test func placeholdersAreFilledByNameAndUnknownOnesLeftVisible() {
        let text = Catalog.english.text(.staffPrintingBody, ["job": "status slip", "other": "x"])
        #expect(text == "Trying the status slip again.")
        #expect(Catalog.english.text(.staffPrintingBody) == "Trying the {job} again.")
    }

    @Test func languageTagsAreReadLikeBCP47() {
        #expect(Language(tag: "de-CH") == .de)
        #expect(Language(tag: "fr_FR") == .fr)
        #expect(Language(tag: "IT") == .it)
        #expect(Language(tag: "es") == nil)
        #expect(Language(tag: "") == nil)
    }
}
