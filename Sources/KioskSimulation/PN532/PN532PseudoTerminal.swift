internal import CKioskLinux
internal import Foundation
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Why the emulator's pseudo-terminal could not be set up.
public enum PseudoTerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    case openFailed(step: String, errno: Int32)
    case linkFailed(errno: Int32)

    public var description: String {
        switch self {
        case .openFailed(let step, let code): "could not create a pseudo-terminal (\(step) failed, errno \(code))"
        case .linkFailed(let code): "could not create the link to the pseudo-terminal (errno \(code))"
        }
    }
}

/// Serves a `PN532Emulator` on a pseudo-terminal, so that libnfc's `pn532_uart` driver can open the slave side as
/// if it were the serial port of a real PN532. One thread reads the master side and writes the chip's answers.
///
/// The slave side stays open in this process as well: without that, the master reads EIO whenever libnfc closes it.
public final class PN532PseudoTerminal: @unchecked Sendable {
    /// Path of the slave side (`/dev/pts/N`).
    public let slavePath: String
    /// The symlink to the slave side, if one was requested.
    public let linkPath: String?
    public let emulator: PN532Emulator
    private let master: Int32
    private let slave: Int32
    private let wake: (read: Int32, write: Int32)
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// If set, replies are paced as on a serial line at this rate (10 bits per byte); nil sends them at once.
    public let baudRate: Int?

    /// Creates the pseudo-terminal (raw mode) and optionally a symlink to its slave side at `linkPath`.
    public init(emulator: PN532Emulator, linkPath: String? = nil, baudRate: Int? = nil) throws(PseudoTerminalError) {
        self.emulator = emulator
        self.baudRate = baudRate
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw .openFailed(step: "posix_openpt", errno: errno) }
        guard grantpt(master) == 0, unlockpt(master) == 0 else {
            let code = errno
            close(master)
            throw .openFailed(step: "grantpt/unlockpt", errno: code)
        }
        var name = [CChar](repeating: 0, count: 128)
        guard ptsname_r(master, &name, name.count) == 0 else {
            let code = errno
            close(master)
            throw .openFailed(step: "ptsname_r", errno: code)
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            let code = errno
            close(master)
            throw .openFailed(step: "open slave", errno: code)
        }
        var attributes = termios()
        tcgetattr(slave, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(slave, TCSANOW, &attributes)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            let code = errno
            close(slave)
            close(master)
            throw .openFailed(step: "pipe", errno: code)
        }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        if let linkPath {
            unlink(linkPath)
            guard symlink(path, linkPath) == 0 else {
                let code = errno
                close(slave)
                close(master)
                close(fds[0])
                close(fds[1])
                throw .linkFailed(errno: code)
            }
        }
        self.master = master
        self.slave = slave
        self.slavePath = path
        self.linkPath = linkPath
        self.wake = (fds[0], fds[1])
        let wakeFD = fds[1]
        emulator.onChange {
            var byte: UInt8 = 1
            _ = write(wakeFD, &byte, 1)
        }
    }

    /// Starts serving on a dedicated thread.
    public func start() {
        let thread = Thread { [self] in
            self.serve()
            self.finished.signal()
        }
        thread.name = "pn532-emulator"
        started.store(true, ordering: .sequentiallyConsistent)
        thread.start()
    }

    /// Stops the serving thread and waits for it.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        if started.load(ordering: .sequentiallyConsistent) { finished.wait() }
    }

    deinit {
        stop()
        emulator.onChange(nil)
        if let linkPath { unlink(linkPath) }
        close(wake.read)
        close(wake.write)
        close(slave)
        close(master)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .sequentiallyConsistent) {
            var fds = [
                pollfd(fd: master, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            // An interrupted poll is made again with the time left until the emulator's next deadline.
            let ready = SystemCall.retrying { poll(&fds, 2, pollTimeout()) }
            if ready < 0 { return }
            if fds[1].revents & Int16(POLLIN) != 0 {
                while SystemCall.retrying({ read(wake.read, &buffer, buffer.count) }) > 0 {}
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let count = SystemCall.retrying { read(master, &buffer, buffer.count) }
                if count > 0 { send(emulator.receive(Array(buffer[0..<count]))) }
            }
            send(emulator.tick())
        }
    }

    /// Milliseconds until the emulator's next deadline (at most a second, so that `stop()` is noticed).
    private func pollTimeout() -> Int32 {
        guard let deadline = emulator.deadline else { return 1000 }
        let left = ContinuousClock.now.duration(to: deadline)
        let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(1000, ms + 1)))
    }

    private func send(_ bytes: [UInt8]) {
        if let baudRate, !bytes.isEmpty { usleep(UInt32(bytes.count * 10 * 1_000_000 / baudRate)) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                SystemCall.retrying { write(master, buffer.baseAddress, buffer.count) }
            }
            if written < 0 {
                if errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
