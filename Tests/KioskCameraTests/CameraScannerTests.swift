import Foundation
import KioskCamera
import KioskCore
import Logging
import Testing

/// The real libzbar video path without any camera: this machine has no V4L2 devices.
@Suite struct CameraScannerTests {
    static let logger = Logger(label: "test.camera", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func missingDeviceIsNoCamera() {
        #expect(throws: CameraUnavailableReason.noCamera(device: "/dev/video-none-here")) {
            try ZBarVideo(device: "/dev/video-none-here")
        }
    }

    @Test func aFileIsNotACamera() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-camera-\(getpid())").path
        _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: CameraUnavailableReason.self) { try ZBarVideo(device: path) }
    }

    @Test func failuresAreReportedAndBounded() async {
        let configuration = CameraScanner.Configuration(
            device: "/dev/video-none-here",
            backoff: RetryBackoff(initial: .milliseconds(5), maximum: .milliseconds(20)),
            maximumConsecutiveFailures: 4)
        let camera = CameraScanner(configuration: configuration, logger: Self.logger)
        await camera.run()
        var events: [CameraEvent] = []
        for await event in camera.events { events.append(event) }
        let attempt: [CameraEvent] = [
            .state(.starting), .state(.unavailable(.noCamera(device: "/dev/video-none-here"))),
        ]
        #expect(events == attempt + attempt + attempt + attempt)
    }

    // The retry wait is an hour: only a cancelled wait lets the test end within its time limit.
    @Test(.timeLimit(.minutes(1))) func cancellationStopsTheRetryWait() async throws {
        let configuration = CameraScanner.Configuration(
            device: "/dev/video-none-here", backoff: RetryBackoff(initial: .seconds(3600), maximum: .seconds(3600)))
        let camera = CameraScanner(configuration: configuration, logger: Self.logger)
        let runner = Task { await camera.run() }
        var events = camera.events.makeAsyncIterator()
        #expect(await events.next() == .state(.starting))
        #expect(await events.next() == .state(.unavailable(.noCamera(device: "/dev/video-none-here"))))
        runner.cancel()
        await runner.value
        #expect(await events.next() == nil)
    }
}
