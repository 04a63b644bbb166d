import Foundation
import KioskCore
import KioskSpeech
import Testing

/// The WAVE files the simulated speaker records: the canonical header, and the samples back as they went in.
@Suite struct WAVFileTests {
    static let extremes: [Int16] = [0, 1, -1, 32767, -32768, 1234, -4321, 0x0102]

    private func u32(_ bytes: [UInt8], _ offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
    private func u16(_ bytes: [UInt8], _ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
    private func text(_ bytes: [UInt8], _ offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    @Test func theHeaderIsTheCanonicalOne() throws {
        let audio = PCMAudio(samples: Self.extremes, sampleRate: 22050)
        let bytes = try WAVFile.encode(audio)
        #expect(bytes.count == 44 + 2 * Self.extremes.count)
        #expect(text(bytes, 0) == "RIFF" && u32(bytes, 4) == bytes.count - 8 && text(bytes, 8) == "WAVE")
        #expect(text(bytes, 12) == "fmt " && u32(bytes, 16) == 16)
        #expect(u16(bytes, 20) == 1)  // PCM
        #expect(u16(bytes, 22) == 1)  // mono
        #expect(u32(bytes, 24) == 22050)
        #expect(u32(bytes, 28) == 44100)  // bytes per second
        #expect(u16(bytes, 32) == 2 && u16(bytes, 34) == 16)
        #expect(text(bytes, 36) == "data" && u32(bytes, 40) == 2 * Self.extremes.count)
        // Little-endian samples: 0x0102 is 02 01.
        #expect(Array(bytes[44 + 2 * 7..<44 + 2 * 8]) == [0x02, 0x01])
        #expect(Array(bytes[44 + 2 * 4..<44 + 2 * 5]) == [0x00, 0x80])
    }

    @Test func samplesRoundTripThroughAFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-wav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("0001.wav").path

        let speech = try await SpeechSamples.synthesized(SpeechSamples.sentence(.fr), language: .fr)
        try WAVFile.write(speech, to: path)
        let (header, audio) = try WAVFile.read(from: path)
        #expect(
            header
                == WAVFile.Header(
                    format: 1, channels: 1, sampleRate: 22050, byteRate: 44100, blockAlign: 2, bitsPerSample: 16,
                    dataBytes: speech.samples.count * 2))
        #expect(audio == speech)
        #expect(audio.samples.count == header.dataBytes / 2)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? Int) == 44 + speech.samples.count * 2)
    }

    @Test func chunksTheReaderDoesNotNeedAreSkipped() throws {
        var bytes = try WAVFile.encode(PCMAudio(samples: Self.extremes, sampleRate: 16000))
        // A LIST chunk of odd length (padded to even) between fmt and data, as some editors write.
        let list: [UInt8] = Array("LIST".utf8) + [3, 0, 0, 0] + [0x61, 0x62, 0x63, 0x00]
        bytes.insert(contentsOf: list, at: 36)
        let (header, audio) = try WAVFile.decode(bytes)
        #expect(header.sampleRate == 16000)
        #expect(audio.samples == Self.extremes)
    }

    @Test func otherFilesAreRefusedByReason() throws {
        let good = try WAVFile.encode(PCMAudio(samples: Self.extremes, sampleRate: 22050))
        #expect(throws: WAVFile.Failure.notWAVE) { _ = try WAVFile.decode(Array("RIFX".utf8) + good.dropFirst(4)) }
        #expect(throws: WAVFile.Failure.notWAVE) { _ = try WAVFile.decode([1, 2, 3]) }
        #expect(throws: WAVFile.Failure.truncated) { _ = try WAVFile.decode(Array(good.prefix(50))) }
        var stereo = good
        stereo[22] = 2
        let error = #expect(throws: WAVFile.Failure.self) { _ = try WAVFile.decode(stereo) }
        guard case .unsupportedFormat(let header)? = error else {
            Issue.record("expected unsupportedFormat, got \(String(describing: error))")
            return
        }
        #expect(header.channels == 2)
        #expect(throws: WAVFile.Failure.self) { _ = try WAVFile.read(from: "/nonexistent/kiosk.wav") }
    }
}

/// Volume is applied to the samples in software.
@Suite struct VolumeTests {
    @Test func scalingIsLinearAndRoundsTowardsZero() {
        let audio = PCMAudio(samples: [1000, -1001, 32767, -32768, 1, 0], sampleRate: 22050)
        #expect(audio.scaled(volume: 100) == audio)
        #expect(audio.scaled(volume: 50).samples == [500, -500, 16383, -16384, 0, 0])
        #expect(audio.scaled(volume: 80).samples == [800, -800, 26213, -26214, 0, 0])
        #expect(audio.scaled(volume: 0).samples == [0, 0, 0, 0, 0, 0])
        // Out of range: clamped, never louder than the samples are.
        #expect(audio.scaled(volume: 250) == audio)
        #expect(audio.scaled(volume: -5).samples.allSatisfy { $0 == 0 })
        #expect(audio.scaled(volume: 50).sampleRate == 22050)
    }

    @Test func speechAtHalfVolumeHasHalfThePeak() async throws {
        let speech = try await SpeechSamples.synthesized(SpeechSamples.sentence(.it), language: .it)
        let half = speech.scaled(volume: 50)
        #expect(abs(half.peak - speech.peak / 2) <= 1)
        #expect(half.samples.count == speech.samples.count)
        #expect(ALSAPlayer(device: "null", volume: 140).volume == 100)
        #expect(ALSAPlayer(device: "null", volume: -1).volume == 0)
    }

    @Test func durationIsTheSamplesOverTheRate() {
        #expect(PCMAudio(samples: Array(repeating: 0, count: 22050 * 3), sampleRate: 22050).duration == .seconds(3))
        #expect(PCMAudio(samples: Array(repeating: 0, count: 8000), sampleRate: 16000).duration == .milliseconds(500))
    }
}
