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
            .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red], milliseconds: 10)], hold: [.red]),
        ])
        let indicator = RecordingIndicator(table: table)
        await indicator.show(.refused)
        #expect(await indicator.states == [[.red], [.red]])
    }
}
