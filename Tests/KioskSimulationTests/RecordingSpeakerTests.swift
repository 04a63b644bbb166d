import Foundation
import KioskCore
import KioskSimulation
import KioskSpeech
import Testing

/// The simulated kiosk's speaker: every utterance through the real espeak-ng into numbered WAV and text files,
/// with the real timing of what interrupts what.
@Suite struct RecordingSpeakerTests {
    static func scratch() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-speech-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    let long = Utterance(
        text: "Willkommen. Bitte halten Sie Ihre Karte an das Lesegerät, bis das grüne Licht leuchtet. "
            + "Ihr Besuch wird dann eingetragen, und Sie können eintreten.",
        language: .de)

    @Test func everyUtteranceBecomesNumberedSoundAndTextFiles() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let speaker = RecordingSpeaker(directory: directory)
        let said = [
            Utterance(text: "Welcome.", language: .en),
            Utterance(text: "Bienvenue.", language: .fr),
            Utterance(text: "Benvenuti.", language: .it),
        ]
        for utterance in said {
            speaker.say(utterance)
            // Each plays out (well under two seconds) before the next: none is interrupted.
            try await Task.sleep(for: .seconds(2))
        }
        #expect(speaker.transcript == said)
        await speaker.waitUntilRecorded()
        let recordings = speaker.recordings
        #expect(recordings.map(\.number) == [1, 2, 3])
        #expect(recordings.map(\.utterance) == said)
        #expect(recordings.allSatisfy { !$0.interrupted })
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "0001.txt", "0001.wav", "0002.txt", "0002.wav", "0003.txt", "0003.wav",
            ])
        #expect(try Self.lines(directory + "/0002.txt") == ["fr", "Bienvenue.", ""])
        for recording in recordings {
            let (header, audio) = try WAVFile.read(from: directory + String(format: "/%04d.wav", recording.number))
            #expect(header.sampleRate == 22050 && header.channels == 1 && header.bitsPerSample == 16)
            #expect(audio.samples.count == recording.samples && recording.samples > 0)
            // Speech of a word's length (espeak-ng's own samples: no two syntheses are equal to the sample).
            #expect(audio.duration > .milliseconds(300) && audio.duration < .seconds(3), "\(audio.duration)")
            #expect(audio.peak > 2000)
        }

        // A speaker started again over the same folder goes on with the numbers.
        let again = RecordingSpeaker(directory: directory)
        again.say(Utterance(text: "Danke.", language: .de))
        await again.waitUntilRecorded()
        #expect(again.recordings.map(\.number) == [4])
        #expect(try Self.lines(directory + "/0004.txt") == ["de", "Danke.", ""])
    }

    @Test func aStopDuringAnUtteranceMarksItInterrupted() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let speaker = RecordingSpeaker(directory: directory)
        speaker.say(long)
        speaker.stop()
        await speaker.waitUntilRecorded()
        let recording = try #require(speaker.recordings.first)
        // Some ten seconds of speech, stopped within milliseconds of its start.
        #expect(try #require(recording.duration) > .seconds(5))
        #expect(recording.interrupted)
        #expect(try Self.lines(recording.textFile) == ["de", long.text, "interrupted", ""])
        // Its sound is kept whole: the file is what was synthesized, the mark says where it ended.
        #expect(try WAVFile.read(from: directory + "/0001.wav").audio.samples.count == recording.samples)
    }

    @Test func aNewerUtteranceInterruptsTheOlderOnlyWhileItPlays() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let speaker = RecordingSpeaker(directory: directory)
        speaker.say(long)
        speaker.say(Utterance(text: "Ja.", language: .de))
        // "Ja." lasts well under two seconds: a stop after that interrupts nothing.
        try await Task.sleep(for: .seconds(2))
        speaker.stop()
        speaker.say(Utterance(text: "Nein.", language: .de))
        await speaker.waitUntilRecorded()
        #expect(speaker.recordings.map(\.interrupted) == [true, false, false])
        #expect(try Self.lines(directory + "/0001.txt").last(where: { !$0.isEmpty }) == "interrupted")
        #expect(try Self.lines(directory + "/0002.txt") == ["de", "Ja.", ""])
        #expect(speaker.transcript.map(\.text) == [long.text, "Ja.", "Nein."])
    }

    /// An utterance with a visitor's voice is recorded at its rate and volume, and its text file says which.
    @Test func aVisitorsVoiceIsRecordedAtItsRateAndVolume() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let speaker = RecordingSpeaker(directory: directory, synthesizer: EspeakSynthesizer(rate: 150))
        let text = "Bitte halten Sie Ihre Karte an das Lesegerät."
        speaker.say(Utterance(text: text, language: .de))
        await speaker.waitUntilRecorded()
        try await Task.sleep(for: .seconds(4))  // it plays out before the next: not interrupted
        speaker.say(Utterance(text: text, language: .de, voice: SpeechVoice(volume: 40, rate: 100)))
        await speaker.waitUntilRecorded()
        let (_, venues) = try WAVFile.read(from: directory + "/0001.wav")
        let (_, visitors) = try WAVFile.read(from: directory + "/0002.wav")
        #expect(Double(visitors.samples.count) > Double(venues.samples.count) * 1.3, "slower: longer")
        #expect(Double(visitors.peak) < Double(venues.peak) * 0.5, "quieter: lower peaks")
        #expect(try Self.lines(directory + "/0001.txt") == ["de", text, ""])
        #expect(try Self.lines(directory + "/0002.txt") == ["de", text, "voice: volume 40 %, 100 words a minute", ""])
    }
}
