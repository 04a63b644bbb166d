import KioskCore
import Testing

@testable import KioskSpeech

/// espeak-ng through its one owner: real synthesis with the voices of espeak-ng-data (libespeak-ng1).
@Suite struct EspeakSynthesizerTests {
    let synthesizer = EspeakSynthesizer()

    @Test(arguments: Language.allCases)
    func eachLanguageSpeaksASentenceOfPlausibleLength(_ language: Language) async throws {
        let audio = try await SpeechSamples.synthesized(SpeechSamples.sentence(language), language: language)
        #expect(audio.sampleRate == 22050)
        // About fourteen words at 150 words per minute: some five seconds (espeak-ng adds pauses at the stops).
        #expect(audio.duration > .seconds(2) && audio.duration < .seconds(15), "\(audio.duration)")
        // Speech, not silence.
        #expect(audio.peak > 2000)
    }

    @Test(arguments: Language.allCases)
    func longerTextGivesLongerAudio(_ language: Language) async throws {
        let one = try await SpeechSamples.synthesized(SpeechSamples.sentence(language), language: language)
        let three = try await SpeechSamples.synthesized(SpeechSamples.long(language), language: language)
        #expect(three.samples.count > one.samples.count * 2, "\(one.duration) then \(three.duration)")
        #expect(three.samples.count < one.samples.count * 4)
    }

    /// No two syntheses of a text have the same samples (espeak-ng's noise source, and pauses that vary with what
    /// was said before), so the audio is compared by how long it is heard (`SpeechSamples.voicedFrames`): the same
    /// voice twice within 3 % (1.6 % was seen once), and each two voices, on at least one of three texts, more than 5 % apart (they read
    /// the text, its words and numbers, each by the rules of its own language; English and Italian, the closest,
    /// are some 9 % apart on "1234567").
    @Test func theSameTextSoundsDifferentInEachLanguage() async throws {
        let texts = [SpeechSamples.sentence(.de)] + SpeechSamples.numbers
        var heard: [Language: [Int]] = [:]
        for language in Language.allCases {
            for text in texts {
                let first = SpeechSamples.voicedFrames(try await SpeechSamples.synthesized(text, language: language))
                let second = SpeechSamples.voicedFrames(try await SpeechSamples.synthesized(text, language: language))
                #expect(SpeechSamples.relativeDifference(first, second) < 0.03, "\(language): \(first), \(second)")
                heard[language, default: []].append(first)
            }
        }
        for a in Language.allCases {
            for b in Language.allCases where a.rawValue < b.rawValue {
                let (x, y) = (heard[a] ?? [], heard[b] ?? [])
                let apart = zip(x, y).map { SpeechSamples.relativeDifference($0, $1) }.max() ?? 0
                #expect(apart > 0.05, "\(a): \(x) frames heard, \(b): \(y)")
            }
        }
    }

    @Test func aSlowerRateTakesLonger() async throws {
        let text = SpeechSamples.sentence(.en)
        let slow = try await SpeechSamples.synthesized(text, language: .en, rate: 100)
        let fast = try await SpeechSamples.synthesized(text, language: .en, rate: 300)
        #expect(slow.samples.count > fast.samples.count * 3 / 2, "\(slow.duration) against \(fast.duration)")
        // The default is slower than espeak-ng's own 175.
        #expect(EspeakSynthesizer().rate == 150)
        let usual = try await SpeechSamples.synthesized(text, language: .en, rate: 175)
        #expect(try await SpeechSamples.synthesized(text, language: .en).samples.count > usual.samples.count)
    }

    @Test func rateIsClampedToWhatEspeakAccepts() {
        #expect(EspeakSynthesizer(rate: 10).rate == 80)
        #expect(EspeakSynthesizer(rate: 1000).rate == 450)
        #expect(EspeakSynthesizer(rate: 200).rate == 200)
    }

    @Test func eachLanguageHasItsVoice() {
        #expect(Language.allCases.map(EspeakSynthesizer.voice(for:)) == ["en", "de", "fr", "it"])
    }

    @Test func aTextTooLongIsRefusedWithoutQuotingIt() {
        let text = String(repeating: "secret name ", count: 500)
        let error = #expect(throws: EspeakError.self) {
            _ = try synthesizer.synthesize(text, language: .en)
        }
        #expect(error == .textTooLong(bytes: text.utf8.count, limit: EspeakSynthesizer.maximumTextBytes))
        #expect(error?.description.contains("secret") == false)
    }

    @Test func synthesisStopsWhenAskedAndTheEngineStaysUsable() async throws {
        var asked = 0
        let error = #expect(throws: EspeakError.self) {
            _ = try synthesizer.synthesize(SpeechSamples.long(), language: .en) {
                asked += 1
                return asked < 3
            }
        }
        #expect(error == .cancelled)
        #expect(asked == 3)
        let next = try await SpeechSamples.synthesized(SpeechSamples.sentence(.it), language: .it)
        #expect(next.duration > .seconds(2))
    }

    @Test func synthesesFromManyThreadsAtOnceAreSerialized() async throws {
        let text = SpeechSamples.sentence(.de)
        let alone = [
            Language.de: SpeechSamples.voicedFrames(try await SpeechSamples.synthesized(text, language: .de)),
            Language.en: SpeechSamples.voicedFrames(try await SpeechSamples.synthesized(text, language: .en)),
        ]
        let results = await withTaskGroup(of: (Language, Int?).self) { group in
            for index in 0..<6 {
                let language: Language = index.isMultiple(of: 2) ? .de : .en
                group.addTask {
                    let audio = await SpeechSamples.onThread {
                        try? EspeakSynthesizer().synthesize(text, language: language)
                    }
                    return (language, audio.map(SpeechSamples.voicedFrames))
                }
            }
            var all: [(Language, Int?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 6)
        // Each came out as it does alone (German and English differ by some 6 %): no call saw another's voice,
        // rate or samples.
        for (language, count) in results {
            let expected = alone[language] ?? 0
            #expect(
                SpeechSamples.relativeDifference(count ?? 0, expected) < 0.015,
                "\(language): \(String(describing: count)) frames heard, \(expected) alone")
        }
    }
}
