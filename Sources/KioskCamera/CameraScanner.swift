internal import Foundation
public import KioskCore
public import Logging
internal import Synchronization

/// The kiosk's camera: a dedicated thread owns the `ZBarVideo` and hands each frame to a `FrameScanner`, which scans
/// it for QR codes only where something changed (`ScanPlanner`) and reports each code once while it is held in view
/// (`CodeDeduplicator`), plus state changes. When the camera is missing, busy, denied
/// or unplugged it reports `.unavailable` with the reason and tries again after a growing delay (`RetryBackoff`).
public final class CameraScanner: CodeCamera {
    public struct Configuration: Sendable, Equatable {
        /// The V4L2 device, e.g. `/dev/video0`.
        public var device: String
        public var width: Int
        public var height: Int
        /// Consecutive frames without a code after which it counts as gone (showing it again is a new event).
        public var framesToForget: Int
        public var backoff: RetryBackoff
        /// Give up after this many consecutive failed attempts (nil: never, as the kiosk does).
        public var maximumConsecutiveFailures: Int?
        /// Stop after this many frames (nil: never); for tests and probes.
        public var frameLimit: Int?
        /// When and where frames are scanned; nil scans every frame whole.
        public var scanning: ScanPlanner.Configuration?

        public init(
            device: String = "/dev/video0", width: Int = 640, height: Int = 480, framesToForget: Int = 8,
            backoff: RetryBackoff = RetryBackoff(), maximumConsecutiveFailures: Int? = nil,
            frameLimit: Int? = nil, scanning: ScanPlanner.Configuration? = ScanPlanner.Configuration()
        ) {
            self.device = device
            self.width = width
            self.height = height
            self.framesToForget = framesToForget
            self.backoff = backoff
            self.maximumConsecutiveFailures = maximumConsecutiveFailures
            self.frameLimit = frameLimit
            self.scanning = scanning
        }
    }

    public let events: AsyncStream<CameraEvent>
    private let continuation: AsyncStream<CameraEvent>.Continuation
    public let configuration: Configuration
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)

    public init(configuration: Configuration = Configuration(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Runs the camera thread until the task is cancelled (or a configured limit is reached), then finishes
    /// `events`. Cancellation stops the thread within one frame interval (or at once while it waits to retry).
    /// Call once.
    public func run() async {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let thread = Thread { [self] in
                    self.loop()
                    self.continuation.finish()
                    done.resume()
                }
                thread.name = "camera"
                thread.start()
            }
        } onCancel: {
            stop()
        }
    }

    /// Asks the camera thread to stop (also what cancelling `run()` does).
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func loop() {
        let scanner: FrameScanner
        do {
            scanner = try FrameScanner(framesToForget: configuration.framesToForget, planner: configuration.scanning)
        } catch {
            logger.error("QR scanner unavailable", metadata: ["camera.error": "\(error.message)"])
            continuation.yield(.state(.unavailable(.failed(device: configuration.device, detail: error.message))))
            return
        }
        var backoff = configuration.backoff
        var frames = 0
        var failures = 0
        while !isStopping {
            continuation.yield(.state(.starting))
            let failure: CameraUnavailableReason
            do throws(CameraUnavailableReason) {
                let video = try ZBarVideo(
                    device: configuration.device, width: configuration.width,
                    height: configuration.height)
                logger.debug(
                    "Camera streaming",
                    metadata: ["camera.width": "\(video.width)", "camera.height": "\(video.height)"])
                continuation.yield(.state(.running))
                scanner.restart()
                backoff.succeeded()
                failures = 0
                while !isStopping {
                    if let limit = configuration.frameLimit, frames >= limit { return }
                    let outcome = try video.nextFrame(scanning: scanner)
                    frames += 1
                    for code in outcome?.newCodes ?? [] {
                        logger.debug("QR code in view", metadata: ["camera.code.bytes": "\(code.utf8.count)"])
                        continuation.yield(.code(code))
                    }
                }
                return
            } catch {
                failure = error
            }
            if isStopping { return }
            failures += 1
            logger.warning("Camera unavailable", metadata: ["camera.reason": "\(failure.name)"])
            continuation.yield(.state(.unavailable(failure)))
            if let maximum = configuration.maximumConsecutiveFailures, failures >= maximum { return }
            let delay = backoff.failed()
            _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(max(1, delay.wholeMilliseconds))))
        }
    }
}
