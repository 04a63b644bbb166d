internal import Dispatch
internal import Foundation
public import KioskCore
public import KioskSpeech
internal import Synchronization

/// The speaker of a simulated kiosk: every utterance is synthesized with the real espeak-ng (`EspeakSynthesizer`)
/// and recorded as numbered files in its directory (`<simulation>/speech`): `NNNN.wav`, the sound, and `NNNN.txt`,
/// the language tag on the first line and the text after it. Numbers go on from the files already there.
///
/// Like the board's speaker it returns at once (the synthesis and the files are made on a serial queue of its own,
/// in the order said) and keeps real timing where it matters: an utterance lasts its sound's length (samples over
/// the rate) from when it was said, and a newer `say` or a `stop()` within that time cuts it short: its text file
/// gets a last line `interrupted`, and its recording says so. An utterance with a voice of its own (a visitor chose
/// louder, quieter, faster or slower) is synthesized at its rate and scaled to its volume, and its text file says
/// so on a line `voice: volume V %, R words a minute` after the text; otherwise the file is what espeak-ng made.
///
/// An utterance espeak-ng cannot synthesize gets its text file with a line `not synthesized: <reason>` instead of a
/// sound.
public final class RecordingSpeaker: Speaker {
    private struct State {
        var transcript: [Utterance] = []
        var recordings: [RecordedUtterance] = []
        /// The number the next recording gets.
        var next: Int
        /// The recording that plays now (or did, until `ends`), if any.
        var playing: (index: Int, ends: ContinuousClock.Instant)?
    }

    private let directory: String
    private let synthesizer: EspeakSynthesizer
    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "kiosk-simulated-speech")

    /// A speaker recording into `directory` (created if missing), synthesizing with `synthesizer`.
    public init(directory: String, synthesizer: EspeakSynthesizer = EspeakSynthesizer()) {
        self.directory = directory
        self.synthesizer = synthesizer
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        state = Mutex(State(next: (existing.compactMap { Int($0.prefix(4)) }.max() ?? 0) + 1))
    }

    public func say(_ utterance: Utterance) {
        let said = ContinuousClock.now
        state.withLock { $0.transcript.append(utterance) }
        queue.async { [self] in
            interrupt(at: said)
            record(utterance, at: said)
        }
    }

    /// Stops, and lets go of espeak-ng as the board's speaker does (the station stops speech when the visitor who
    /// asked has left); the next utterance loads it again.
    public func stop() {
        let stopped = ContinuousClock.now
        queue.async { [self] in
            interrupt(at: stopped)
            EspeakSynthesizer.release()
        }
    }

    /// Everything said, in order (whether or not it could be synthesized).
    public var transcript: [Utterance] { state.withLock { $0.transcript } }

    /// What was recorded so far (the files of what was said last may still be being written: see
    /// `waitUntilRecorded()`).
    public var recordings: [RecordedUtterance] { state.withLock { $0.recordings } }

    /// Waits until everything said or stopped so far has been synthesized and written.
    public func waitUntilRecorded() async {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }

    /// On the queue: cuts short the recording playing at `time`, if any.
    private func interrupt(at time: ContinuousClock.Instant) {
        let cut = state.withLock { state -> RecordedUtterance? in
            guard let playing = state.playing else { return nil }
            state.playing = nil
            guard time < playing.ends else { return nil }
            state.recordings[playing.index].interrupted = true
            return state.recordings[playing.index]
        }
        guard let cut else { return }
        guard let handle = FileHandle(forWritingAtPath: cut.textFile) else { return }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data("interrupted\n".utf8))
        try? handle.close()
    }

    /// On the queue: synthesizes `utterance` and writes its files; it plays from `time` for its sound's length.
    private func record(_ utterance: Utterance, at time: ContinuousClock.Instant) {
        let number = state.withLock { state -> Int in
            defer { state.next += 1 }
            return state.next
        }
        let base = (directory as NSString).appendingPathComponent(String(format: "%04d", number))
        var text = "\(utterance.language.rawValue)\n\(utterance.text)\n"
        if let voice = utterance.voice { text += "voice: volume \(voice.volume) %, \(voice.rate) words a minute\n" }
        var recording = RecordedUtterance(
            number: number, utterance: utterance, textFile: base + ".txt", soundFile: nil, samples: 0,
            sampleRate: 0, interrupted: false)
        do throws(EspeakError) {
            var audio = try synthesizer.synthesize(utterance)
            if let voice = utterance.voice { audio = audio.scaled(volume: voice.volume) }
            do throws(WAVFile.Failure) {
                try WAVFile.write(audio, to: base + ".wav")
                recording.soundFile = base + ".wav"
                recording.samples = audio.samples.count
                recording.sampleRate = audio.sampleRate
            } catch {
                text += "not recorded: \(error)\n"
            }
        } catch {
            text += "not synthesized: \(error)\n"
        }
        try? Data(text.utf8).write(to: URL(fileURLWithPath: recording.textFile), options: .atomic)
        state.withLock { state in
            state.recordings.append(recording)
            if let duration = recording.duration {
                state.playing = (state.recordings.count - 1, time + duration)
            }
        }
    }
}

/// One utterance as the simulated speaker recorded it.
public struct RecordedUtterance: Sendable, Equatable {
    /// The files' number (`0001`).
    public let number: Int
    public let utterance: Utterance
    /// `NNNN.txt`: the language tag, the text, and `interrupted` when it was cut short.
    public let textFile: String
    /// `NNNN.wav`; nil when it could not be synthesized.
    public var soundFile: String?
    public var samples: Int
    public var sampleRate: Int
    /// A newer utterance or a stop came before its sound's end.
    public var interrupted: Bool

    /// How long its sound lasts; nil without a sound.
    public var duration: Duration? {
        guard soundFile != nil, sampleRate > 0 else { return nil }
        return .nanoseconds(Int64(samples) * 1_000_000_000 / Int64(sampleRate))
    }
}
