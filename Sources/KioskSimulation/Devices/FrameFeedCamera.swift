internal import Foundation
public import KioskCamera
public import KioskCore
internal import Synchronization

/// A camera for the simulated kiosk and tests: frames come from the caller instead of a device, and go through the
/// real libzbar scanner and the same de-duplication as `CameraScanner`'s.
///
/// Either push single frames (`push(_:)`), or set what the camera sees (`show(_:)`, `show(text:)`, `clear()`) and let
/// `run()` scan it once per `frameInterval` on its own thread, as a camera would.
public final class FrameFeedCamera: CodeCamera {
    public let events: AsyncStream<CameraEvent>
    private let continuation: AsyncStream<CameraEvent>.Continuation
    private let frameInterval: Duration
    private let width: Int
    private let height: Int
    private let state: Mutex<Feed>
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)

    private struct Feed: ~Copyable {
        var scanner: ZBarImageScanner?
        var deduplicator: CodeDeduplicator
        var scene: GreyImage?
        var frames = 0
    }

    /// - Parameters:
    ///   - framesToForget: consecutive frames without a code after which showing it again is a new event.
    ///   - frameInterval: how often `run()` scans the current scene.
    ///   - width, height: the size of rendered codes.
    public init(
        framesToForget: Int = 8, frameInterval: Duration = .milliseconds(33), width: Int = 640, height: Int = 480
    ) {
        self.frameInterval = frameInterval
        self.width = width
        self.height = height
        var scanner: ZBarImageScanner?
        do throws(ZBarError) {
            scanner = try ZBarImageScanner()
        } catch {
            scanner = nil  // reported as unavailable by run(); push throws
        }
        state = Mutex(Feed(scanner: scanner.take(), deduplicator: CodeDeduplicator(framesToForget: framesToForget)))
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        continuation.yield(.state(.starting))
    }

    /// Scans one frame now and reports codes that are new. Throws if libzbar cannot scan it (empty or damaged
    /// image, or no scanner).
    @discardableResult
    public func push(_ frame: GreyImage) throws(ZBarError) -> [String] {
        let result: Result<[String], ZBarError> = state.withLock { feed in
            guard let scanner = feed.scanner.take() else { return .failure(.outOfMemory) }
            let scanned: Result<[ScannedCode], ZBarError>
            do throws(ZBarError) {
                scanned = .success(try scanner.scan(frame))
            } catch {
                scanned = .failure(error)
            }
            feed.scanner = consume scanner
            guard case .success(let codes) = scanned else { return scanned.map { _ in [] } }
            feed.frames += 1
            return .success(feed.deduplicator.frame(codes.map(\.text)))
        }
        let new = try result.get()
        for code in new { continuation.yield(.code(code)) }
        return new
    }

    /// A frame of an empty scene: no code in it by construction, so libzbar is spared the scan (an idle simulated
    /// kiosk would otherwise spend a good part of a core on blank frames), but the de-duplication counts the frame.
    private func seeNothing() {
        state.withLock { feed in
            feed.frames += 1
            _ = feed.deduplicator.frame([])
        }
    }

    /// What the camera sees from now on (`run()` scans it every frame).
    public func show(_ frame: GreyImage) { state.withLock { $0.scene = frame } }

    /// Shows `text` as a QR code rendered by libqrencode, as a phone or card held up to the camera would.
    public func show(text: String) throws(QRFrameError) {
        show(try QRFrame.render(text: text, width: width, height: height))
    }

    /// Nothing in view any more.
    public func clear() { state.withLock { $0.scene = nil } }

    /// Frames scanned so far.
    public var framesScanned: Int { state.withLock { $0.frames } }

    /// Scans the current scene every `frameInterval` on a dedicated thread until the task is cancelled; then
    /// finishes `events`. Call once.
    public func run() async {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let available = state.withLock { $0.scanner != nil }
        continuation.yield(
            .state(available ? .running : .unavailable(.failed(device: "frame feed", detail: "libzbar has no memory"))))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let thread = Thread { [self] in
                    while !stopping.load(ordering: .sequentiallyConsistent) {
                        if let scene = state.withLock({ $0.scene }) {
                            _ = try? push(scene)
                        } else {
                            seeNothing()
                        }
                        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(max(1, frameInterval.wholeMilliseconds))))
                    }
                    continuation.finish()
                    done.resume()
                }
                thread.name = "camera-feed"
                thread.start()
            }
        } onCancel: {
            stopping.store(true, ordering: .sequentiallyConsistent)
            wakeUp.signal()
        }
    }
}
