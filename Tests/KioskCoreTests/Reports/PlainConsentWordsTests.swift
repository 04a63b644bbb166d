import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Issue 23 (readable at 75): what a visitor reads before sharing — the disclosure and the preview of exactly what
/// leaves — is in plain words in every language: no technical terms, no risk level as a number; how strongly a stay
/// counts is said in words, and what must be said still is (each stay's day and times, the made-up records mixed in,
/// the times rounded and lengthened).
@Suite struct PlainConsentWordsTests {
    let now: Int64 = 1_764_000_000
    let zone = VenueZone(identifier: "Europe/Rome")

    /// CWA stays today and 1 to 3 days ago, and a stay at a SwissCovid venue (its parts of hours are shown too).
    func stays() throws -> [ReportableStay] {
        let crypto = OpenSSLCrypto()
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let cwa = (0..<4).map { age in
            ReportableStay(
                id: "cwa\(age)", venueName: "Bar \(age)", locationId: [UInt8](repeating: UInt8(age + 1), count: 32),
                start: now - Int64(age) * 86_400 - 3 * 3600, end: now - Int64(age) * 86_400 - 2 * 3600)
        }
        let swissCovid = ReportableStay(
            id: "cn", venueName: "Caffè", locationId: [UInt8](repeating: 9, count: 32), start: now - 5 * 3600,
            end: now - 4 * 3600, crowdNotifier: keys)
        return cwa + [swissCovid]
    }

    /// Every text of the disclosure and the preview a visitor can be shown in `catalog`'s language.
    func visitorTexts(in catalog: Catalog) throws -> [String] {
        var texts = [
            ConsentFlow.disclosure(in: catalog), catalog[.sessionSymptomsBody], catalog[.sessionConsentQuestion],
        ]
        let symptoms: [SymptomIndication] = [
            .symptomsInLastSevenDays, .symptomsOneToTwoWeeksAgo, .symptomsMoreThanTwoWeeksAgo, .symptomsWithoutDate,
            .noSymptoms, .noInformation,
        ]
        for symptom in symptoms {
            for output in [ReportOutput.print, .export, .upload(verificationCode: "ABCDE-FGHJK")] {
                let preview = try ConsentWalkthrough.consentedPreview(
                    stays: try stays(), now: now, symptoms: symptom, output: output)
                texts += preview.lines(in: catalog, zone: zone)
            }
        }
        return texts
    }

    @Test func noVisitorPreviewOrDisclosureTextUsesJargonInAnyLanguage() throws {
        let words = [
            "decoy", "risk level", "aerosol", "utc", "risikostufe", "niveau de risque", "livello di rischio",
        ]
        let outOfEight = try Regex(#"\d\s*/\s*8|\d\s+(of|von|sur|di)\s+8\b"#)
        for language in Language.allCases {
            let texts = try visitorTexts(in: .of(language))
            #expect(texts.count > 30)
            for text in texts {
                let lower = text.lowercased()
                for word in words { #expect(!lower.contains(word), "\(language): \(word) in \(text)") }
                #expect(text.firstMatch(of: outOfEight) == nil, "\(language): a level out of 8 in \(text)")
            }
        }
    }

    /// The levels 1…8 in three phrases (`Preview.weight(ofLevel:)`); each phrase is shown for some stay, and the
    /// required facts are still told: made-up records mixed in, times rounded and made longer.
    @Test func howStronglyAStayCountsIsSaidInWords() throws {
        #expect(
            (1...8).map { Preview.weight(ofLevel: $0) } == [
                .previewWeightLittle, .previewWeightLittle, .previewWeightLittle, .previewWeightLess,
                .previewWeightLess, .previewWeightFull, .previewWeightFull, .previewWeightFull,
            ])
        for language in Language.allCases {
            let catalog = Catalog.of(language)
            let phrases = [catalog[.previewWeightFull], catalog[.previewWeightLess], catalog[.previewWeightLittle]]
            #expect(Set(phrases).count == 3 && phrases.allSatisfy { !$0.isEmpty && !$0.contains(where: \.isNumber) })
            let texts = try visitorTexts(in: catalog)
            for phrase in phrases {
                #expect(texts.contains { $0.hasSuffix(phrase) }, "\(language): \(phrase) never shown")
            }
            #expect(texts.contains(catalog[.previewRounded]))
            let preview = try ConsentWalkthrough.consentedPreview(stays: try stays(), now: now)
            #expect(preview.dummyCount > 0)
            #expect(preview.lines(in: catalog, zone: zone).contains(catalog.count(.previewDecoys, preview.dummyCount)))
        }
        let english = try visitorTexts(in: .english)
        #expect(english.contains("Times are rounded to 10 minutes and made a little longer, to be safe."))
        #expect(
            english.contains { $0.hasSuffix("made-up records are mixed in, so no one can tell how many are yours.") })
        let italian = try visitorTexts(in: .of(.it))
        #expect(
            italian.contains {
                $0.hasPrefix("Vengono aggiunti ")
                    && $0.hasSuffix(" dati inventati, così nessuno può capire quanti sono i suoi.")
            })
        #expect(italian.contains { $0.hasSuffix(". Conta pienamente per gli avvisi.") })
    }
}
