public import Foundation
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// A stand-in for a printer's device file: a named pipe at `path` whose reading end a thread of its own drains, as a
/// printer takes the bytes it is sent. (A plain file is refused as a printer: it would keep every receipt.)
public final class PipePrinter: Sendable {
    public let path: String
    private let reader: Int32
    private let state = Mutex<(bytes: [UInt8], stopped: Bool)>(([], false))
    private let done = DispatchSemaphore(value: 0)

    /// Creates the pipe at `path` (which must not exist) and starts taking bytes.
    public init(path: String) throws {
        self.path = path
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let thread = Thread { [self] in self.drain() }
        thread.start()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var poller = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        while !state.withLock({ $0.stopped }) {
            guard poll(&poller, 1, 20) > 0 else { continue }
            let count = read(reader, &buffer, buffer.count)
            if count > 0 {
                state.withLock { $0.bytes += buffer[0..<count] }
            } else if count == 0 {
                usleep(5000)  // no writer at the moment
            }
        }
        done.signal()
    }

    /// Everything received so far, once the pipe has been quiet for `quiet` (the writer may still be flushing).
    public func received(quiet: Duration = .milliseconds(100)) -> [UInt8] {
        var last = -1
        while true {
            let now = state.withLock { $0.bytes.count }
            if now == last { return state.withLock { $0.bytes } }
            last = now
            usleep(UInt32(quiet.components.seconds * 1_000_000 + quiet.components.attoseconds / 1_000_000_000_000))
        }
    }

    /// Stops taking bytes and removes the pipe.
    public func stop() {
        state.withLock { $0.stopped = true }
        done.wait()
        close(reader)
        unlink(path)
    }
}
