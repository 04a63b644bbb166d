import Foundation
import KioskCore
import KioskSimulation
import Testing

/// The idle screen shows where to tap a card and where to show the printed code: drawn (a card and a code, each with
/// an arrow to its side, `ScreenModel.Guide`) and in words, on the side the venue configured (`screen.readerSide`,
/// `screen.cameraSide`), in the language chosen.
@Suite struct IdleGuideTests {
    @Test func theIdleScreenPointsToTheReaderAndTheCamera() {
        var harness = MachineHarness()
        // Not set up yet: the screen says so, and points nowhere.
        #expect(harness.machine.screen(now: harness.now).guide == nil)
        harness.bind()
        // Staff's "bound" message has had its time.
        harness.clock.advance(by: 60)
        let idle = harness.machine.screen(now: harness.now)
        #expect(idle.kind == "idle")
        #expect(idle.guide == ScreenModel.Guide(reader: .right, camera: .above))
        #expect(
            idle.lines == [
                "Tap your card on the reader to the right to check in or out.",
                "Or show your QR card to the camera above.",
            ])

        var configuration = StationConfiguration(staffCode: "STAFF-2026-secret", timeZone: StationFixtures.zone)
        (configuration.screen.readerSide, configuration.screen.cameraSide) = (.left, .below)
        var left = MachineHarness(configuration: configuration)
        left.bind()
        left.clock.advance(by: 60)
        #expect(left.machine.screen(now: left.now).guide == ScreenModel.Guide(reader: .left, camera: .below))
        left.run(.chosen("language"))
        left.run(.chosen("language:it"))
        #expect(
            left.machine.screen(now: left.now).lines == [
                "Avvicini la tessera al lettore a sinistra per entrare o uscire.",
                "Oppure mostri la tessera QR alla fotocamera in basso.",
            ])
        // A tap's message replaces it for a while: no arrows beside "Checked in".
        left.run(.cardRead(.card(StationFixtures.card())))
        #expect(left.machine.screen(now: left.now).guide == nil)
    }
}
