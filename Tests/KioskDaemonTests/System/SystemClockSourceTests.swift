import Foundation
import KioskCore
import KioskDaemon
import Testing

@Suite struct SystemClockSourceTests {
    /// A marker path in a fresh temporary directory, not created yet.
    static func markerPath() -> String {
        NSTemporaryDirectory() + "kiosk-timesync-\(UUID().uuidString)"
    }

    /// (source, marker exists, what the kernel says, synchronized)
    static let cases: [(SystemClockSource.Source, Bool, Bool?, Bool)] = [
        (.timesyncd, false, true, false),
        (.timesyncd, true, false, true),
        (.timesyncd, true, nil, true),
        (.adjtimex, true, false, false),
        (.adjtimex, false, true, true),
        (.adjtimex, true, nil, false),
        (.auto, false, false, false),
        (.auto, false, nil, false),
        (.auto, true, false, true),
        (.auto, false, true, true),
    ]

    @Test(arguments: cases)
    func eachSourceDecidesByItsOwnReading(
        _ source: SystemClockSource.Source, _ marker: Bool, _ kernel: Bool?,
        _ expected: Bool
    ) throws {
        let path = Self.markerPath()
        if marker { #expect(FileManager.default.createFile(atPath: path, contents: nil)) }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = SystemClockSource(source: source, markerPath: path, kernel: { kernel })
        #expect(clock.source == source)
        #expect(
            clock.read().isSynchronized == expected, "\(source) marker: \(marker) kernel: \(String(describing: kernel))"
        )
    }

    @Test func timesyncdFollowsTheMarkerAsItComesAndGoes() throws {
        let path = Self.markerPath()
        let clock = SystemClockSource(source: .timesyncd, markerPath: path, kernel: { true })
        #expect(clock.read().isSynchronized == false)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(clock.read().isSynchronized == true)
        try FileManager.default.removeItem(atPath: path)
        #expect(clock.read().isSynchronized == false)
    }

    @Test func adjtimexReadsWhatThisMachinesKernelReports() throws {
        // ntp_adjtime in read-only mode works for any user.
        guard let kernel = SystemClockSource.kernelSynchronized() else {
            Issue.record("ntp_adjtime failed")
            return
        }
        // The marker exists but adjtimex does not look at it.
        let path = Self.markerPath()
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reading = SystemClockSource(source: .adjtimex, markerPath: path).read()
        #expect(reading.isSynchronized == kernel)
        #expect(abs(reading.now.timeIntervalSinceNow) < 5)
        // auto with the marker present is synchronized whatever the kernel says.
        #expect(SystemClockSource(source: .auto, markerPath: path).read().isSynchronized)
    }

}
