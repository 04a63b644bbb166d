import Foundation
import KioskCore
import KioskSystem
import Testing

@Suite struct SystemClockSourceTests {
    @Test func timesyncMarkerDecidesWhenTheKernelIsNotAsked() throws {
        let marker = NSTemporaryDirectory() + "kiosk-timesync-\(UUID().uuidString)"
        let source = SystemClockSource(markerPath: marker, consultKernel: false)
        #expect(source.read().isSynchronized == false)
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: marker) }
        #expect(source.read().isSynchronized == true)
    }

    @Test func readsTheKernelStateAndTheWallClock() throws {
        // ntp_adjtime in read-only mode works for any user.
        guard let kernel = SystemClockSource.kernelSynchronized() else {
            Issue.record("ntp_adjtime failed")
            return
        }
        let reading = SystemClockSource(markerPath: nil).read()
        #expect(reading.isSynchronized == kernel)
        #expect(abs(reading.now.timeIntervalSinceNow) < 5)
    }

    @Test func eitherSourceSuffices() throws {
        let marker = NSTemporaryDirectory() + "kiosk-timesync-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: marker) }
        #expect(SystemClockSource(markerPath: marker, consultKernel: true).read().isSynchronized)
    }
}
