import Foundation
import KioskCore
import KioskLogTesting
import Logging
import Testing

@testable import KioskSpeech

/// The board's speaker: espeak-ng into ALSA on a thread of its own, interrupted by a newer utterance or a stop, and
/// failing soft without a sound device.
@Suite struct BoardSpeakerTests {
    let long = Utterance(text: SpeechSamples.long(.en), language: .en)

    /// What a person at the kiosk hears, timed on a thread of the test's own (the cooperative pool of a full test
    /// run may wake a sleeping test many seconds late).
    struct Heard: Sendable {
        var returnedAfter: Duration
        var speakingAtOnce: Bool
        var speakingLater: Bool
        /// From the stop (or the newer utterance) until the speaker's thread fell quiet.
        var quietAfter: Duration?
    }

    static func sayThenInterrupt(
        _ speaker: BoardSpeaker, after pause: Duration, with interruption: @escaping @Sendable () -> Void
    ) async -> Heard {
        await SpeechSamples.onThread {
            let started = ContinuousClock.now
            speaker.say(Utterance(text: SpeechSamples.veryLong(), language: .en))
            let returnedAfter = ContinuousClock.now - started
            let speakingAtOnce = speaker.isSpeaking
            Thread.sleep(forTimeInterval: pause / .seconds(1))
            let speakingLater = speaker.isSpeaking
            let interrupted = ContinuousClock.now
            interruption()
            let deadline = interrupted + .seconds(20)
            while speaker.isSpeaking && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
            return Heard(
                returnedAfter: returnedAfter, speakingAtOnce: speakingAtOnce, speakingLater: speakingLater,
                quietAfter: speaker.isSpeaking ? nil : speaker.quietSince.map { $0 - interrupted })
        }
    }

    @Test func stopIsPromptWhileSpeaking() async throws {
        let log = CapturedLog()
        let speaker = BoardSpeaker(player: ALSAPlayer(device: "null"), logger: log.logger())
        #expect(speaker.check() == "ok")
        let heard = await Self.sayThenInterrupt(speaker, after: .milliseconds(500)) { speaker.stop() }
        #expect(heard.returnedAfter < .milliseconds(100))  // say only hands the utterance over
        #expect(heard.speakingAtOnce)
        #expect(heard.speakingLater)  // an utterance of a minute and more is still playing
        // Heard to stop within a block or two; the bound is generous, and far below the utterance's length.
        #expect(try #require(heard.quietAfter) < .seconds(1), "\(String(describing: heard.quietAfter))")
        #expect(speaker.lastError == nil)
        #expect(log.lines.isEmpty)
    }

    /// After a stop (the visitor who asked has left) the speaker's thread lets go of espeak-ng and alsa-lib, and the
    /// next utterance loads them again and is spoken. (Whether the libraries are mapped is checked on a kiosk
    /// process of its own, `SimulatedKioskTests/espeakIsLoadedOnlyWhileAPersonAsksForSpeech`: in this process
    /// other tests speak at the same time.)
    @Test func aStopLetsGoOfTheLibrariesAndTheNextUtteranceLoadsThem() async throws {
        let log = CapturedLog()
        let speaker = BoardSpeaker(player: ALSAPlayer(device: "null"), logger: log.logger())
        let outcome = await SpeechSamples.onThread { () -> (Int, Int, Bool) in
            func waitQuiet() {
                let deadline = ContinuousClock.now + .seconds(60)
                while speaker.isSpeaking && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
            }
            speaker.say(Utterance(text: "Hello.", language: .en))
            waitQuiet()
            let before = speaker.mailbox.releases
            speaker.stop()
            let deadline = ContinuousClock.now + .seconds(60)
            while speaker.mailbox.releases == before && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            let after = speaker.mailbox.releases
            speaker.say(Utterance(text: "Again.", language: .en))
            waitQuiet()
            return (before, after, speaker.quietSince != nil)
        }
        #expect(outcome.0 == 0 && outcome.1 == 1)
        #expect(outcome.2)
        #expect(speaker.lastError == nil)
        #expect(log.lines.isEmpty)
    }

    @Test func aNewerUtteranceInterruptsTheOlder() async throws {
        let speaker = BoardSpeaker(player: ALSAPlayer(device: "null"), logger: CapturedLog().logger())
        let heard = await Self.sayThenInterrupt(speaker, after: .milliseconds(300)) {
            speaker.say(Utterance(text: "Danke.", language: .de))
        }
        #expect(heard.speakingLater)
        // The short one (under a second) plays to its end; the long one no longer.
        #expect(try #require(heard.quietAfter) < .seconds(5), "\(String(describing: heard.quietAfter))")
        #expect(try #require(heard.quietAfter) > .milliseconds(300))
    }

    @Test func withoutASoundDeviceItLogsOnceAndGoesOn() async throws {
        let log = CapturedLog()
        let speaker = BoardSpeaker(player: ALSAPlayer(device: "kiosk-test-no-such-device"), logger: log.logger())
        #expect(speaker.check().hasPrefix("unavailable: no sound device 'kiosk-test-no-such-device'"))
        let secret = Utterance(text: "Maria Rossi, your stay at Café Luna matches a warning", language: .en)
        for _ in 0..<3 {
            speaker.say(secret)
            #expect(await SpeechSamples.eventually { !speaker.isSpeaking })
        }
        #expect(speaker.lastError?.contains("no sound device") == true)
        let lines = log.lines
        #expect(lines.count == 1, "\(lines)")
        #expect(log.entries.first?.level == .error && lines.first?.hasPrefix("Speech unavailable") == true)
        for word in ["Maria", "Rossi", "Luna", "warning"] {
            #expect(!lines.joined().contains(word), "the log quotes the utterance: \(lines)")
        }
    }

    @Test func atVolumeZeroNothingIsPlayed() async throws {
        let log = CapturedLog()
        // Even a device that does not exist is never opened.
        let speaker = BoardSpeaker(
            player: ALSAPlayer(device: "kiosk-test-no-such-device", volume: 0), logger: log.logger())
        #expect(speaker.check() == "muted (volume 0)")
        speaker.say(long)
        #expect(await SpeechSamples.eventually(within: .seconds(2)) { !speaker.isSpeaking })
        #expect(log.lines.isEmpty && speaker.lastError == nil)
    }

    @Test func aSpeakerThatGoesAwayEndsItsThread() async throws {
        var speaker: BoardSpeaker? = BoardSpeaker(player: ALSAPlayer(device: "null"), logger: CapturedLog().logger())
        speaker?.say(long)
        try await Task.sleep(for: .milliseconds(200))
        // The thread holds the mailbox alone once the speaker is gone; the mailbox goes when the thread has ended.
        weak let mailbox = speaker?.mailbox
        #expect(mailbox != nil)
        speaker = nil
        #expect(await SpeechSamples.eventually { mailbox == nil })
    }
}
