import Foundation
import KioskCore
import KioskDaemon
import KioskSimulation
import Testing

/// The simulated clock never runs to where dates stop fitting the kiosk's numbers (a huge `advance` trapped the
/// daemon once, and every restart after it, because the offset was saved first).
@Suite struct SimulatedClockSourceTests {
    static func file() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sim-clock-\(UUID().uuidString).json").path
    }

    @Test func advanceStopsAtTheBoundAndIgnoresWhatIsNotAnAmount() {
        let clock = SimulatedClockSource(file: nil)
        for amount: TimeInterval in [-5, 0, .nan, .infinity, -.infinity] { clock.advance(by: amount) }
        #expect(clock.offset == 0)
        clock.advance(by: 1e300)
        #expect(clock.offset == SimulatedTime.maximumOffset)
        clock.advance(by: 86_400)
        #expect(clock.offset == SimulatedTime.maximumOffset)
        let seconds = clock.read().now.timeIntervalSince1970
        #expect(seconds.isFinite && Int64(exactly: seconds.rounded(.down)) != nil)
        #expect(RetentionPolicy.dayNumber(clock.read().now) > RetentionPolicy.dayNumber(Date()))
    }

    @Test func aSavedOffsetBeyondTheBoundIsBroughtBackAtStart() throws {
        let path = Self.file()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for saved in ["1e300", "-7200"] {
            try Data(#"{"offsetSeconds": \#(saved), "synchronized": true}"#.utf8).write(to: URL(fileURLWithPath: path))
            let clock = SimulatedClockSource(file: path)
            #expect(clock.offset >= 0 && clock.offset <= SimulatedTime.maximumOffset, "\(saved)")
        }
        // A moved clock comes back where it was.
        let moved = SimulatedClockSource(file: path)
        moved.advance(by: 3600)
        #expect(SimulatedClockSource(file: path).offset == moved.offset)
    }
}
