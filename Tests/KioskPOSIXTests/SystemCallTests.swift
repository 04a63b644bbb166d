import Foundation
import Glibc
import KioskPOSIX
import Synchronization
import Testing

/// `SystemCall.retrying` against real interruptions: a thread blocked in `read` on a pipe is sent SIGUSR1, whose
/// handler is installed without `SA_RESTART`, so the kernel ends the read with EINTR instead of restarting it.
/// Serialized: both signal tests install the process's SIGUSR1 handler.
@Suite(.serialized) struct SystemCallTests {
    @Test func aReadInterruptedByASignalIsMadeAgainAndReturnsTheData() throws {
        try withNoRestartSignalHandler {
            let pipe = try PipeEnds()
            let reader = BlockedRead(descriptor: pipe.read, retrying: true)
            reader.start()
            // Signal until the first read has come back interrupted and the helper has made the second one.
            let interrupted = reader.signal(until: { reader.attempts.load(ordering: .sequentiallyConsistent) >= 2 })
            usleep(50_000)
            let stillBlocked = !reader.hasFinished
            let message = Array("hello".utf8)
            #expect(write(pipe.write, message, message.count) == message.count)
            let outcome = reader.finish()
            #expect(interrupted, "the read was never interrupted by the signal")
            #expect(stillBlocked, "the helper returned after an interruption instead of reading again")
            #expect(outcome?.result == message.count)
            #expect(outcome?.bytes == message)
        }
    }

    /// The control: without the helper, the same signal ends the same read with -1 and EINTR. If this failed, the
    /// test above would prove nothing.
    @Test func aBareReadInterruptedByTheSameSignalFailsWithEINTR() throws {
        try withNoRestartSignalHandler {
            let pipe = try PipeEnds()
            let reader = BlockedRead(descriptor: pipe.read, retrying: false)
            reader.start()
            let ended = reader.signal(until: { reader.hasFinished })
            let message = Array("unblock".utf8)
            _ = write(pipe.write, message, message.count)
            let outcome = reader.finish()
            #expect(ended)
            #expect(outcome?.result == -1)
            #expect(outcome?.errno == EINTR)
            #expect(reader.attempts.load(ordering: .sequentiallyConsistent) == 1)
        }
    }

    @Test func aFailureIsReturnedOnceWithItsErrno() throws {
        let pipe = try PipeEnds()
        var calls = 0
        var byte: UInt8 = 0
        // Reading from the write end of a pipe fails with EBADF (an `Int`, ssize_t, result).
        let count = SystemCall.retrying {
            calls += 1
            return read(pipe.write, &byte, 1)
        }
        let readErrno = errno
        #expect(count == -1)
        #expect(readErrno == EBADF)
        #expect(calls == 1)

        // A pipe cannot be synced: EINVAL (an `Int32`, int, result).
        calls = 0
        let synced = SystemCall.retrying {
            calls += 1
            return fsync(pipe.read)
        }
        let syncErrno = errno
        #expect(synced == -1)
        #expect(syncErrno == EINVAL)
        #expect(calls == 1)
    }

    @Test func onlyMinusOneWithEINTRIsMadeAgain() {
        var calls = 0
        let result = SystemCall.retrying { () -> Int32 in
            calls += 1
            errno = EINTR
            return calls < 3 ? -1 : 7
        }
        #expect(result == 7)
        #expect(calls == 3)

        // A result that is not -1 is returned at once, whatever errno an earlier call left.
        calls = 0
        let zero = SystemCall.retrying { () -> Int in
            calls += 1
            errno = EINTR
            return 0
        }
        #expect(zero == 0)
        #expect(calls == 1)
    }

    @Test func aSuccessfulReadIsReturnedAtOnce() throws {
        let pipe = try PipeEnds()
        let message = Array("abc".utf8)
        #expect(write(pipe.write, message, message.count) == message.count)
        var calls = 0
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = buffer.withUnsafeMutableBytes { bytes in
            SystemCall.retrying {
                calls += 1
                return read(pipe.read, bytes.baseAddress, bytes.count)
            }
        }
        #expect(count == 3)
        #expect(Array(buffer.prefix(3)) == message)
        #expect(calls == 1)
    }
}

/// Runs `body` with a no-op SIGUSR1 handler installed without `SA_RESTART`, then puts the previous handler back.
private func withNoRestartSignalHandler(_ body: () throws -> Void) throws {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    var previous = sigaction()
    try #require(sigaction(SIGUSR1, &action, &previous) == 0)
    defer { sigaction(SIGUSR1, &previous, nil) }
    try body()
}

/// Both ends of a pipe, closed when the value goes away.
private final class PipeEnds {
    let read: Int32
    let write: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        (read, write) = (ends[0], ends[1])
    }

    deinit {
        close(read)
        close(write)
    }
}

/// A thread that makes one blocking `read` from `descriptor`, bare or through `SystemCall.retrying`, and then stays
/// alive (so that `pthread_kill` never targets a finished thread) until `finish()`.
private final class BlockedRead: Sendable {
    struct Outcome: Sendable {
        var result: Int
        var errno: Int32
        var bytes: [UInt8]
    }

    let descriptor: Int32
    let retrying: Bool
    /// How many times `read` was called.
    let attempts = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    private let thread = Mutex<pthread_t?>(nil)
    private let outcome = Mutex<Outcome?>(nil)
    private let started = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    init(descriptor: Int32, retrying: Bool) {
        self.descriptor = descriptor
        self.retrying = retrying
    }

    func start() {
        let worker = Thread { [self] in
            // A thread inherits its creator's signal mask, and the threads that run the tests block SIGUSR1.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            thread.withLock { $0 = pthread_self() }
            started.signal()
            var buffer = [UInt8](repeating: 0, count: 16)
            let result = buffer.withUnsafeMutableBytes { bytes in
                let once = { [self] in
                    attempts.add(1, ordering: .sequentiallyConsistent)
                    return Glibc.read(descriptor, bytes.baseAddress, bytes.count)
                }
                return retrying ? SystemCall.retrying(once) : once()
            }
            let code = errno
            outcome.withLock { $0 = Outcome(result: result, errno: code, bytes: Array(buffer.prefix(max(result, 0)))) }
            finished.signal()
            release.wait()
        }
        worker.start()
        started.wait()
    }

    /// Whether the read has returned.
    var hasFinished: Bool { outcome.withLock { $0 != nil } }

    /// Sends SIGUSR1 to the thread every 10 ms until `done()` holds; false if it still did not after 5 s.
    func signal(until done: () -> Bool) -> Bool {
        guard let target = thread.withLock({ $0 }) else { return false }
        for _ in 0..<500 {
            if done() { return true }
            pthread_kill(target, SIGUSR1)
            usleep(10_000)
        }
        return done()
    }

    /// Waits (at most 5 s) for the read to end, lets the thread end, and returns what the read returned.
    func finish() -> Outcome? {
        let ended = finished.wait(timeout: .now() + .seconds(5)) == .success
        release.signal()
        return ended ? outcome.withLock { $0 } : nil
    }
}
