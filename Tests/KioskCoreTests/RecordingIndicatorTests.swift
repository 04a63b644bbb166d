import Foundation
import KioskCore
import KioskSimulation
import Testing

@Suite struct RecordingIndicatorTests {
    @Test func recordsPatternsAndWhatTheLightsDid() async {
        let indicator = RecordingIndicator()
        await indicator.show(.accepted)
        await indicator.show(.clockNotSet)
        #expect(await indicator.patterns == [.accepted, .clockNotSet])
        #expect(await indicator.lit == [.amber])
        #expect(await indicator.states.contains([.green, .buzzer]))
        await indicator.clear()
        #expect(await indicator.calls == [.show(.accepted), .show(.clockNotSet), .clear])
        #expect(await indicator.lit.isEmpty)
    }

    @Test func usesTheConfiguredTable() async throws {
        let table = try FeedbackTable.default.overriding(with: [
            .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red], milliseconds: 10)], hold: [.red])
        ])
        let indicator = RecordingIndicator(table: table)
        await indicator.show(.refused)
        #expect(await indicator.states == [[.red], [.red]])
    }

    /// The recording keeps the lights' timing: when a pattern ends, and that a newer one cut it short (its later
    /// states never happen).
    @Test func recordsWhenAPatternEndsAndWhenANewerOneReplacedIt() async throws {
        let start = Date(timeIntervalSince1970: 1_772_445_600)
        let clock = ManualClockSource(now: start)
        let indicator = RecordingIndicator(clock: clock)
        await indicator.show(.accepted)  // green + buzzer 120 ms, green 1380 ms
        let accepted = try #require(await indicator.playing)
        #expect(accepted.pattern == .accepted && accepted.started == start)
        #expect(accepted.ends == start.addingTimeInterval(1.5))

        clock.advance(by: 0.1)
        await indicator.show(.refused)
        let replaced = try #require(await indicator.history.played.first)
        #expect(replaced.stopped == start.addingTimeInterval(0.1) && replaced.wasCutShort)
        #expect(await indicator.playing?.pattern == .refused)
        // Only the first step of `accepted` was reached; `refused` follows in full.
        #expect(await indicator.states == [[.green, .buzzer], [.red, .buzzer], [.red], []])

        clock.advance(by: 1.5)
        #expect(await indicator.playing == nil)
        #expect(await indicator.history.played.last?.wasCutShort == false)
    }

    /// Patterns shown together follow each other; a newer `show` stops the one playing and the one still to come.
    @Test func patternsShownTogetherFollowEachOtherUntilReplaced() async throws {
        let start = Date(timeIntervalSince1970: 1_772_445_600)
        let clock = ManualClockSource(now: start)
        let indicator = RecordingIndicator(clock: clock)
        await indicator.show([.accepted, .warningPending])
        let played = await indicator.history.played
        #expect(played.map(\.pattern) == [.accepted, .warningPending])
        #expect(played[1].started == start.addingTimeInterval(1.5) && played[1].ends == start.addingTimeInterval(3))
        #expect(await indicator.playing?.pattern == .accepted)
        clock.advance(by: 2)
        #expect(await indicator.playing?.pattern == .warningPending)

        clock.advance(by: 0.5)
        await indicator.show(.refused)
        let after = await indicator.history.played
        #expect(after[0].stopped == nil)  // played out
        #expect(after[1].stopped == start.addingTimeInterval(2.5) && after[1].wasCutShort)
        #expect(await indicator.playing?.pattern == .refused)
        #expect(await indicator.lit.isEmpty)  // `refused` holds nothing; the warning's amber hold never came
        #expect(await indicator.patterns == [.accepted, .warningPending, .refused])
    }

    @Test func aPatternReplacedBeforeItStartedNeverPlays() async throws {
        let start = Date(timeIntervalSince1970: 1_772_445_600)
        let clock = ManualClockSource(now: start)
        let indicator = RecordingIndicator(clock: clock)
        await indicator.show([.accepted, .warningPending])
        clock.advance(by: 0.5)
        await indicator.clear()
        let played = await indicator.history.played
        #expect(played[0].stopped == start.addingTimeInterval(0.5))
        #expect(played[1].stopped == played[1].started && played[1].wasCutShort)
        clock.advance(by: 2)
        #expect(await indicator.playing == nil)
        // What the lights did: accepted's two steps (buzzer off at 120 ms), then dark.
        #expect(await indicator.states == [[.green, .buzzer], [.green], []])
    }
}
