import Foundation
import Glibc
import KioskCore
import KioskPrinter
import Synchronization

/// A fresh temporary directory for one test, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/kiosk-printer-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

func readWholeFile(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
}

/// A pseudo-terminal standing in for a serial printer: the printer code opens the slave side (through a symlink, as
/// udev would provide `/dev/kiosk-printer`), the test plays the printer on the master side on its own thread.
final class FakeSerialPrinter: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Answers status queries at the start of a job with this status, then takes the job.
        case answer(PrinterStatus)
        /// Never answers status queries (switched off), but takes data.
        case silent
        /// Takes this many bytes, then disappears (the master side closes: the slave sees EIO, like an unplugged
        /// USB-serial adapter).
        case unplugAfter(Int)
    }

    let master: Int32
    let slavePath: String
    private let keepSlaveOpen: Int32
    private let behaviour: Behaviour
    private let state = Mutex<(received: [UInt8], running: Bool)>(([], true))
    private let done = DispatchSemaphore(value: 0)
    private var stopPipe: [Int32] = [-1, -1]

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard master >= 0 else { throw POSIXError(.ENODEV) }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        // TIOCSPTLCK and TIOCGPTN (the same numbers on x86_64 and arm64): what unlockpt and ptsname do.
        guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        slavePath = "/dev/pts/\(number)"
        // Holding the slave open keeps the master readable while the printer code opens and closes it per job.
        keepSlaveOpen = open(slavePath, O_RDWR | O_NOCTTY)
        var settings = termios()
        tcgetattr(keepSlaveOpen, &settings)
        cfmakeraw(&settings)
        tcsetattr(keepSlaveOpen, TCSANOW, &settings)
        guard pipe(&stopPipe) == 0 else { throw POSIXError(.EMFILE) }
        let thread = Thread { [self] in run() }
        thread.start()
    }

    var received: [UInt8] { state.withLock { $0.received } }

    /// Stops the printer thread and closes everything.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe[1], &byte, 1)
        done.wait()
        close(stopPipe[0])
        close(stopPipe[1])
        close(keepSlaveOpen)
    }

    private func run() {
        defer { done.signal() }
        var inQueryPhase = true
        var pending: [UInt8] = []
        var masterOpen = true
        while true {
            var fds = [pollfd(fd: stopPipe[0], events: Int16(POLLIN), revents: 0)]
            if masterOpen { fds.append(pollfd(fd: master, events: Int16(POLLIN), revents: 0)) }
            guard poll(&fds, nfds_t(fds.count), 1000) >= 0 else { continue }
            if fds[0].revents != 0 { break }
            guard masterOpen, fds.count > 1, fds[1].revents & Int16(POLLIN) != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { continue }
            let chunk = Array(buffer[0..<count])
            state.withLock { $0.received += chunk }
            switch behaviour {
            case .unplugAfter(let limit):
                if received.count >= limit {
                    close(master)
                    masterOpen = false
                }
            case .silent:
                break
            case .answer(let status):
                guard inQueryPhase else { break }
                pending += chunk
                while pending.count >= 3, pending[0] == 0x10, pending[1] == 0x04 {
                    let answer = status.answerBytes[pending[2] == 0x02 ? 0 : 1]
                    var byte = answer
                    _ = write(master, &byte, 1)
                    pending.removeFirst(3)
                }
                if let first = pending.first, first != 0x10 { inQueryPhase = false }
            }
        }
        if masterOpen { close(master) }
    }
}
