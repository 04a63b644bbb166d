import Foundation
import KioskCore
import KioskSpeech
import Logging
import Synchronization

/// Sentences of the kind the kiosk says, one per language, and helpers the speech tests share.
enum SpeechSamples {
    /// About a dozen words in each language.
    static func sentence(_ language: Language) -> String {
        switch language {
        case .en: "Welcome. Please hold your card against the reader until the green light comes on."
        case .de: "Willkommen. Bitte halten Sie Ihre Karte an das Lesegerät, bis das grüne Licht leuchtet."
        case .fr: "Bienvenue. Veuillez tenir votre carte contre le lecteur jusqu'à ce que le voyant vert s'allume."
        case .it: "Benvenuti. Tenete la vostra tessera vicino al lettore finché non si accende la luce verde."
        }
    }

    /// A text that takes several seconds to say (the sentence three times): long enough to be interrupted.
    static func long(_ language: Language = .en) -> String {
        Array(repeating: sentence(language), count: 3).joined(separator: " ")
    }

    /// Texts of numbers, a date and a time, which each language reads out in words of its own.
    static let numbers = ["Call 0800 123 456 on 12.03.2025 at 14:30.", "1234567"]

    /// How many 10 ms frames of `audio` are heard (root mean square above 500, about -36 dB): the length of the
    /// speech without its pauses. espeak-ng's noise source and state left over from the utterance before make two
    /// syntheses of a text differ in their samples and in their pauses (by up to some 40 ms), but this count by a
    /// frame or three at most.
    static func voicedFrames(_ audio: PCMAudio) -> Int {
        let frame = audio.sampleRate / 100
        var count = 0
        var start = 0
        while start + frame <= audio.samples.count {
            var energy = 0.0
            for sample in audio.samples[start..<start + frame] { energy += Double(sample) * Double(sample) }
            if energy / Double(frame) > 500 * 500 { count += 1 }
            start += frame
        }
        return count
    }

    static func relativeDifference(_ a: Int, _ b: Int) -> Double {
        Double(abs(a - b)) / Double(max(a, b, 1))
    }

    /// A tone of `seconds` at 22050 Hz (a square wave at full scale / 4), for playback without espeak-ng.
    static func tone(seconds: Double, sampleRate: Int = 22050) -> PCMAudio {
        let period: [Int16] = Array(repeating: 8000, count: 25) + Array(repeating: -8000, count: 25)
        let count = Int(seconds * Double(sampleRate))
        let periods = Array(repeating: period, count: count / period.count + 1).joined()
        return PCMAudio(samples: Array(periods.prefix(count)), sampleRate: sampleRate)
    }

    /// A text of a minute and a half or so (the sentence twenty times): still being said after any pause a busy
    /// test run can put between two steps of a test.
    static func veryLong(_ language: Language = .en) -> String {
        Array(repeating: sentence(language), count: 20).joined(separator: " ")
    }

    /// Runs `body` on a thread of its own and returns its result: blocking work (and the times it measures) stays
    /// off Swift's cooperative pool, which a full test run keeps busy.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// `text` synthesized in `language` at `rate`, on a thread of its own: the tests keep their synthesis (some
    /// tens of milliseconds each, many of them) off the cooperative pool that the other tests' servers answer from.
    static func synthesized(_ text: String, language: Language, rate: Int = EspeakSynthesizer.defaultRate)
        async throws -> PCMAudio
    {
        let result = await onThread { () -> Result<PCMAudio, EspeakError> in
            do throws(EspeakError) {
                return .success(try EspeakSynthesizer(rate: rate).synthesize(text, language: language))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Polls `condition` every 10 ms for at most `timeout`; true as soon as it holds.
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
