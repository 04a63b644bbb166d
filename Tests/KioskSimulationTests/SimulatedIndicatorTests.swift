import Foundation
import KioskCore
import KioskSimulation
import Testing

/// The simulated kiosk's lights keep the board's timing on the simulated clock, without ever sleeping.
@Suite struct SimulatedIndicatorTests {
    @Test func aPatternPlaysForItsLengthUnlessANewerOneReplacesIt() async throws {
        let start = Date(timeIntervalSince1970: 1_772_445_600)
        let clock = ManualClockSource(now: start)
        let lights = SimulatedIndicator(clock: clock)
        let asked = ContinuousClock.now
        await lights.show(.warningPending)
        #expect(ContinuousClock.now - asked < .milliseconds(500))  // returned at once: the simulation never sleeps
        let warning = FeedbackTable.default[.warningPending].duration
        #expect(await lights.playing?.ends == start.addingTimeInterval(warning.fractionalMilliseconds / 1000))

        clock.advance(by: 0.2)
        await lights.show(.accepted)
        let played = await lights.played.played
        #expect(played.map(\.pattern) == [.warningPending, .accepted])
        #expect(played[0].stopped == start.addingTimeInterval(0.2) && played[0].wasCutShort)
        #expect(await lights.playing?.pattern == .accepted)

        clock.advance(by: 1.5)
        #expect(await lights.playing == nil)  // played out; `current` still names it (its hold state stays)
        #expect(await lights.current == .accepted)
        await lights.clear()
        #expect(await lights.current == nil)
        #expect(await lights.played.cleared)
    }
}
