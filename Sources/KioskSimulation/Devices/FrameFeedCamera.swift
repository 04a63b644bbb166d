internal import Foundation
public import KioskCamera
public import KioskCore
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// A camera for the simulated kiosk and tests: frames come from the caller instead of a device, and go through the
/// same per-frame work as `CameraScanner`'s (`FrameScanner`: change detection, libzbar where the frame changed, the
/// de-duplication). Frame times are video times: the n-th frame is taken at n × `frameInterval`.
///
/// Either push single frames (`push(_:)`), or set what the camera sees (`show(_:)`, `show(text:)`,
/// `play(_:)` for a recorded-like `CameraSequence`, `clear()`) and let `run()` take a frame of it once per
/// `frameInterval` on its own thread, as a camera would.
public final class FrameFeedCamera: CodeCamera {
    public let events: AsyncStream<CameraEvent>
    private let continuation: AsyncStream<CameraEvent>.Continuation
    private let frameInterval: Duration
    private let width: Int
    private let height: Int
    private let state: Mutex<Feed>
    private let stopping = Atomic<Bool>(false)
    private let renderNanoseconds = Atomic<Int64>(0)
    private let started = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)

    private struct Feed: ~Copyable {
        var scanner: FrameScanner?
        var scene: Scene?
        var frames = 0
        /// Frames of a live sequence that came while the last one was still being scanned, and were skipped.
        var dropped = 0
    }

    private enum Scene {
        case still(GreyImage)
        /// The sequence and the index of its next frame (the last frame stays in view once it ended).
        case sequence(CameraSequence, next: Int)
        /// A sequence played in real time from `start`, as a camera delivers it: the frame due now is taken, frames
        /// that came while the last was scanned are skipped; `looping` starts it again at its end (sensor noise and
        /// lighting drift go on), else its last frame stays in view.
        case live(CameraSequence, start: ContinuousClock.Instant, looping: Bool, last: Int)
    }

    /// - Parameters:
    ///   - framesToForget: consecutive frames without a code after which showing it again is a new event.
    ///   - frameInterval: how often `run()` scans the current scene.
    ///   - width, height: the size of rendered codes.
    ///   - scanning: when and where frames are scanned (as the real camera's); nil scans every frame whole.
    public init(
        framesToForget: Int = 8, frameInterval: Duration = .milliseconds(33), width: Int = 640, height: Int = 480,
        scanning: ScanPlanner.Configuration? = ScanPlanner.Configuration()
    ) {
        self.frameInterval = frameInterval
        self.width = width
        self.height = height
        var scanner: FrameScanner?
        do throws(ZBarError) {
            scanner = try FrameScanner(framesToForget: framesToForget, planner: scanning)
        } catch {
            scanner = nil  // reported as unavailable by run(); push throws
        }
        state = Mutex(Feed(scanner: scanner))
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        continuation.yield(.state(.starting))
    }

    /// Takes one frame now (the next video frame) and reports codes that are new. Throws if libzbar cannot scan it
    /// (empty or damaged image, or no scanner).
    @discardableResult
    public func push(_ frame: GreyImage) throws(ZBarError) -> [String] {
        let result: Result<[String], ZBarError> = state.withLock { feed in
            guard let scanner = feed.scanner else { return .failure(.outOfMemory) }
            do throws(ZBarError) {
                let outcome = try scanner.frame(frame, at: frameInterval * feed.frames)
                feed.frames += 1
                return .success(outcome.newCodes)
            } catch {
                return .failure(error)
            }
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
            feed.scanner?.emptyFrame()
        }
    }

    /// What the camera sees from now on (`run()` scans it every frame).
    public func show(_ frame: GreyImage) { state.withLock { $0.scene = .still(frame) } }

    /// Plays `sequence` from its first frame, one frame per `frameInterval`; its last frame stays in view after it.
    public func play(_ sequence: CameraSequence) { state.withLock { $0.scene = .sequence(sequence, next: 0) } }

    /// Plays `sequence` in real time, 30 frames a second by the clock, as a camera delivers frames: when scanning
    /// a frame takes longer than a frame's time, the frames that came meanwhile are skipped (`framesDropped`).
    /// Returns when it started. With `looping`, it starts again at its end.
    @discardableResult
    public func playLive(_ sequence: CameraSequence, looping: Bool) -> ContinuousClock.Instant {
        let start = ContinuousClock.now
        state.withLock { $0.scene = .live(sequence, start: start, looping: looping, last: -1) }
        return start
    }

    /// Frames of a live sequence skipped so far because the one before was still being scanned.
    public var framesDropped: Int { state.withLock { $0.dropped } }

    /// Shows `text` as a QR code rendered by libqrencode, as a phone or card held up to the camera would.
    public func show(text: String) throws(QRFrameError) {
        show(try QRFrame.render(text: text, width: width, height: height))
    }

    /// Nothing in view any more.
    public func clear() { state.withLock { $0.scene = nil } }

    /// The frame the camera sees now (a sequence moves on by one frame; a live one to the frame due by the clock),
    /// and, for a live sequence, when its next frame is due (nil: the next frame comes `frameInterval` after this
    /// one was scanned).
    private func nextScene() -> (image: GreyImage?, nextDue: ContinuousClock.Instant?) {
        let now = ContinuousClock.now
        let scene = state.withLock { feed -> (Scene?, index: Int, due: ContinuousClock.Instant?) in
            let scene = feed.scene
            switch scene {
            case .sequence(let sequence, let next):
                feed.scene = .sequence(sequence, next: min(next + 1, sequence.frameCount - 1))
            case .live(let sequence, let start, let looping, let last):
                let elapsed = Int((now - start) / CameraSequence.frameInterval)
                if last >= 0, elapsed > last + 1 { feed.dropped += elapsed - last - 1 }
                feed.scene = .live(sequence, start: start, looping: looping, last: elapsed)
                let index = looping ? elapsed % sequence.frameCount : min(elapsed, sequence.frameCount - 1)
                return (scene, index, start + CameraSequence.frameInterval * (elapsed + 1))
            default: break
            }
            return (scene, 0, nil)
        }
        switch scene.0 {
        case nil: return (nil, nil)
        case .still(let image): return (image, nil)
        case .sequence(let sequence, let next): return (rendered(sequence, next), nil)
        case .live(let sequence, _, _, _): return (rendered(sequence, scene.index), scene.due)
        }
    }

    /// A sequence's frame, rendered here (noise, drift and the code drawn in software), its CPU time counted apart:
    /// a board's camera delivers its frames without the kiosk's CPU, so the Pi-budget harness subtracts this.
    private func rendered(_ sequence: CameraSequence, _ index: Int) -> GreyImage {
        let before = Self.threadCPUNanoseconds()
        let image = sequence.frame(index).image
        renderNanoseconds.add(Self.threadCPUNanoseconds() - before, ordering: .relaxed)
        return image
    }

    private static func threadCPUNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// CPU time spent rendering sequence frames so far (the simulation's own work, not a camera's), in seconds.
    public var renderCPUSeconds: Double { Double(renderNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Frames taken so far.
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
                        let (scene, due) = nextScene()
                        if let scene {
                            _ = try? push(scene)
                        } else {
                            seeNothing()
                        }
                        let wait = due.map { $0 - ContinuousClock.now } ?? frameInterval
                        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(max(1, wait.wholeMilliseconds))))
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
