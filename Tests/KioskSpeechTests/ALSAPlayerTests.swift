import Foundation
import KioskCore
import Synchronization
import Testing

@testable import KioskSpeech

/// ALSA playback through its one owner, against the real alsa-lib: ALSA's `null` device (which every alsa-lib has,
/// card or not) and a device name no machine has.
@Suite struct ALSAPlayerTests {
    @Test func playsToTheNullDeviceForAboutTheSoundsLength() async throws {
        let tone = SpeechSamples.tone(seconds: 0.6)
        let (outcome, took) = await SpeechSamples.onThread {
            let started = ContinuousClock.now
            let outcome = try? ALSAPlayer(device: "null", volume: 80).play(tone) { false }
            return (outcome, ContinuousClock.now - started)
        }
        #expect(outcome == .finished)
        // Paced to real time even though `null` takes samples at once; the upper bound is only against a hang.
        #expect(took >= .milliseconds(450), "\(took)")
        #expect(took < .seconds(10), "\(took)")
    }

    @Test func stoppingInterruptsWellBeforeTheEnd() async throws {
        let speech = try await SpeechSamples.synthesized(SpeechSamples.long(.de), language: .de)
        #expect(speech.duration > .seconds(8))
        // Timed on the playing thread itself: asked to stop 300 ms in, from then on.
        let (outcome, played, afterStop) = await SpeechSamples.onThread {
            let started = ContinuousClock.now
            var stopAsked: ContinuousClock.Instant?
            let outcome = try? ALSAPlayer(device: "null").play(speech) {
                if stopAsked == nil, ContinuousClock.now - started >= .milliseconds(300) { stopAsked = .now }
                return stopAsked != nil
            }
            let ended = ContinuousClock.now
            return (outcome, ended - started, stopAsked.map { ended - $0 })
        }
        #expect(outcome == .interrupted)
        // Stopped within a block (20 ms); the bounds are generous, and far below the sound's length.
        #expect(try #require(afterStop) < .seconds(1), "\(String(describing: afterStop))")
        #expect(played < speech.duration / 2, "\(played) of \(speech.duration)")
    }

    /// The waiting task's cancellation reaches the playing thread. (How soon a stop is heard is timed above, on the
    /// playing thread itself: a full test run keeps the cooperative pool so busy that times taken here, around an
    /// `await`, say more about the run than about the player.)
    @Test func cancellingThePlayingTaskStopsIt() async throws {
        // Ten seconds of sound, cancelled with no suspension in between: it cannot have played out.
        let tone = SpeechSamples.tone(seconds: 10)
        let playing = Task { try await ALSAPlayer(device: "null").play(tone) }
        playing.cancel()
        #expect(try await playing.value == .interrupted)
    }

    @Test func stoppingWhileTheLastBlocksPlayOutIsInterruptedToo() throws {
        // Shorter than the device's latency: everything is written at once, and the stop comes while it plays.
        let tone = SpeechSamples.tone(seconds: 0.08)
        var asked = 0
        let outcome = try ALSAPlayer(device: "null", latency: .milliseconds(200)).play(tone) {
            asked += 1
            return asked > 1
        }
        #expect(outcome == .interrupted)
    }

    @Test func anUnknownDeviceFailsWithAClearError() {
        let player = ALSAPlayer(device: "kiosk-test-no-such-device")
        let error = #expect(throws: ALSAError.self) {
            _ = try player.play(SpeechSamples.tone(seconds: 0.1)) { false }
        }
        #expect(error?.operation == .open)
        #expect(error?.code == -2)  // -ENOENT
        #expect(error?.device == "kiosk-test-no-such-device")
        #expect(error?.description.contains("no sound device 'kiosk-test-no-such-device'") == true)
        #expect(error?.description.contains("runs without speech") == true)
        #expect(throws: ALSAError.self) { try player.check(sampleRate: 22050) }
        // A card that is not there: the same answer.
        #expect(throws: ALSAError.self) { try ALSAPlayer(device: "plughw:97,0").check(sampleRate: 22050) }
    }

    @Test func theNullDeviceChecksOK() throws {
        try ALSAPlayer(device: "null").check(sampleRate: 22050)
    }

    @Test func manyPlayersAtOnceEachPlay() async throws {
        let tone = SpeechSamples.tone(seconds: 0.3)
        let outcomes = try await withThrowingTaskGroup(of: ALSAPlayer.Outcome.self) { group in
            for volume in [10, 50, 90, 100] {
                group.addTask { try await ALSAPlayer(device: "null", volume: volume).play(tone) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: .finished, count: 4))
    }
}
