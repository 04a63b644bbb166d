import Foundation
import Glibc
public import KioskCore
import KioskPOSIX
import Synchronization
import SystemPackage

/// Watches the kiosk's buttons: requests each line for both-edge events, reads edges on a dedicated thread (never on
/// the cooperative pool), debounces them in software and delivers `ButtonEvent`s on `events`.
///
/// The thread sleeps in `poll` on the lines' event descriptors plus a wake-up pipe, so `stop()` ends it at once; the
/// edge reads are `gpiod_line_event_read`. If reading fails (a chip removed at run time), the stream finishes and
/// `failure` says why.
public final class ButtonMonitor: Sendable {
    /// Debounced presses and releases, in order. Finishes after `stop()` or a read failure.
    public let events: AsyncStream<ButtonEvent>

    private let worker: Worker
    private let state = Mutex<State>(.idle)

    private enum State { case idle, running, stopped }

    /// Requests every button line (`activeLow` and `bias` from its `GPIOPin`). Throws if a chip or line cannot be had,
    /// before anything runs; lines already requested are released again.
    public init(buttons: [ButtonRole: GPIOPin], debounce: Duration = .milliseconds(30), consumer: String = "kiosk")
        throws(GPIOError)
    {
        var lines: [(ButtonRole, GPIOLineHandle)] = []
        for role in ButtonRole.allCases {
            guard let pin = buttons[role] else { continue }
            lines.append((role, try GPIOLineHandle(pin, consumer: consumer, request: .bothEdges)))
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw GPIOError(
                .startMonitor, chip: lines.first?.1.pin.chip ?? "-", offset: nil,
                errno: Errno(rawValue: Glibc.errno))
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        var debouncers: [ButtonDebouncer] = []
        for (_, handle) in lines {
            debouncers.append(ButtonDebouncer(interval: debounce, initialLevel: (try? handle.get()) ?? false))
        }
        let (stream, continuation) = AsyncStream<ButtonEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        events = stream
        worker = Worker(
            lines: lines, debouncers: debouncers, wakeRead: pipeEnds[0], wakeWrite: pipeEnds[1],
            continuation: continuation)
    }

    /// Starts the reader thread. Call once.
    public func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        precondition(shouldStart, "ButtonMonitor.start() called twice or after stop()")
        let worker = self.worker
        let thread = Thread { worker.run() }
        thread.name = "kiosk-buttons"
        thread.start()
    }

    /// Stops the reader thread and waits for it to end (a few microseconds: it is woken through a pipe), then finishes
    /// `events`. Safe to call more than once.
    public func stop() {
        let previous = state.withLock { state -> State in
            let old = state
            state = .stopped
            return old
        }
        switch previous {
        case .running:
            worker.wake()
            worker.finished.wait()
            worker.finished.signal()
        case .idle:
            worker.continuation.finish()
        case .stopped:
            break
        }
    }

    /// Why the reader thread ended on its own, if it did.
    public var failure: GPIOError? { worker.failure.withLock { $0 } }

    deinit {
        stop()
        worker.closePipe()
    }
}

/// The reader thread's state. After `start()` only that thread touches the line handles and debouncers.
private final class Worker: @unchecked Sendable {
    let lines: [(ButtonRole, GPIOLineHandle)]
    var debouncers: [ButtonDebouncer]
    let wakeRead: Int32
    let wakeWrite: Int32
    let continuation: AsyncStream<ButtonEvent>.Continuation
    let finished = DispatchSemaphore(value: 0)
    let failure = Mutex<GPIOError?>(nil)

    init(
        lines: [(ButtonRole, GPIOLineHandle)], debouncers: [ButtonDebouncer], wakeRead: Int32, wakeWrite: Int32,
        continuation: AsyncStream<ButtonEvent>.Continuation
    ) {
        self.lines = lines
        self.debouncers = debouncers
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.continuation = continuation
    }

    func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    func closePipe() {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Milliseconds until the earliest debounce deadline (0 if one has passed), or -1 (none: wait for an edge).
    private func pollTimeout() -> Int32 {
        let now = Self.monotonicNanoseconds()
        return debouncers.compactMap(\.deadlineNanoseconds).min().map { deadline in
            deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
        } ?? -1
    }

    func run() {
        defer {
            continuation.finish()
            finished.signal()
        }
        var descriptors = lines.map { pollfd(fd: $0.1.eventDescriptor, events: Int16(POLLIN), revents: 0) }
        descriptors.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        while true {
            // An interrupted poll is made again with the time left until the next debounce deadline.
            let ready = descriptors.withUnsafeMutableBufferPointer { pollDescriptors in
                SystemCall.retrying { poll(pollDescriptors.baseAddress, nfds_t(pollDescriptors.count), pollTimeout()) }
            }
            if ready < 0 {
                let code = Glibc.errno
                failure.withLock {
                    $0 = GPIOError(
                        .waitEvent, chip: lines.first?.1.pin.chip ?? "-", offset: nil,
                        errno: Errno(rawValue: code))
                }
                return
            }
            if descriptors[descriptors.count - 1].revents != 0 { return }
            for index in lines.indices where descriptors[index].revents != 0 {
                if descriptors[index].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                    && descriptors[index].revents & Int16(POLLIN) == 0
                {
                    failure.withLock {
                        $0 = GPIOError(
                            .readEvent, chip: lines[index].1.pin.chip, offset: lines[index].1.pin.offset,
                            errno: .ioError)
                    }
                    return
                }
                do {
                    let rising = try lines[index].1.readEdge()
                    debouncers[index].edge(to: rising, atNanoseconds: Self.monotonicNanoseconds())
                } catch {
                    failure.withLock { $0 = error }
                    return
                }
            }
            let settledAt = Self.monotonicNanoseconds()
            for index in lines.indices {
                if let pressed = debouncers[index].settle(atNanoseconds: settledAt) {
                    continuation.yield(ButtonEvent(button: lines[index].0, pressed: pressed))
                }
            }
        }
    }
}
