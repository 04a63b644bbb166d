public import KioskCore

/// A source of QR codes for the check-in desk: a real camera (`CameraScanner`) or frames fed in by a simulation
/// (`FrameFeedCamera`). `run()` produces `events` until the calling task is cancelled; then `events` finishes.
public protocol CodeCamera: Sendable {
    var events: AsyncStream<CameraEvent> { get }
    func run() async
}
