import Glibc
public import KioskCore
import KioskPOSIX
import SystemPackage

/// Where and how the receipt printer is reached.
public struct PrinterDevice: Sendable, Equatable {
    /// `/dev/usb/lp0`, a serial port (`/dev/ttyUSB0`, `/dev/serial0`), or a plain file (appended to) or FIFO.
    public var path: String
    /// The printer answers `DLE EOT` status queries on this port (serial printers and some USB ones). When true,
    /// every job starts with a status query, and a printer that does not answer is reported as not responding.
    public var bidirectional: Bool
    /// Serial speed, for a tty (ignored otherwise).
    public var baudRate: Int
    /// How long the printer may stop taking data before the job is given up (and kept for a retry).
    public var writeTimeout: Duration
    /// How long to wait for the answer to a status query.
    public var statusTimeout: Duration

    public init(
        path: String, bidirectional: Bool = false, baudRate: Int = 9600,
        writeTimeout: Duration = .seconds(10), statusTimeout: Duration = .milliseconds(500)
    ) {
        self.path = path
        self.bidirectional = bidirectional
        self.baudRate = baudRate
        self.writeTimeout = writeTimeout
        self.statusTimeout = statusTimeout
    }

    /// Opens the device, checks its status when it is bidirectional, writes all of `bytes` and closes it again
    /// (printers are unplugged and switched off; a fresh open per job notices that). Blocks for at most about
    /// `statusTimeout + writeTimeout`; call it off the cooperative thread pool (`ReceiptSpooler` does).
    public func send(_ bytes: [UInt8]) throws(PrinterError) {
        let connection = try PrinterConnection(self)
        var failure: PrinterError?
        do throws(PrinterError) {
            if bidirectional {
                let status = try connection.queryStatus()
                if status.paperOut { throw .outOfPaper(path: path) }
                if status.coverOpen { throw .coverOpen(path: path) }
                if status.failed { throw .printerFault(path: path) }
            }
            try connection.writeAll(bytes)
        } catch {
            failure = error
        }
        let closing = connection.close()
        if let failure { throw failure }
        if let closing { throw closing }
    }

    /// Only the status query, for `kiosk selftest`: throws `.notResponding` if the printer does not answer.
    public func status() throws(PrinterError) -> PrinterStatus {
        let connection = try PrinterConnection(self)
        let result: Result<PrinterStatus, PrinterError>
        do throws(PrinterError) {
            result = .success(try connection.queryStatus())
        } catch {
            result = .failure(error)
        }
        _ = connection.close()
        return try result.get()
    }
}

/// The one owner of an open printer file descriptor; closed by `close()` or, failing that, in `deinit`.
struct PrinterConnection: ~Copyable {
    private let fd: Int32
    private let device: PrinterDevice
    private var path: String { device.path }
    private var closed = false

    init(_ device: PrinterDevice) throws(PrinterError) {
        fd = try Self.open(device)
        self.device = device
    }

    /// Opens the device non-blocking; a tty is switched to raw mode at the configured speed.
    private static func open(_ device: PrinterDevice) throws(PrinterError) -> Int32 {
        let mode = device.bidirectional ? O_RDWR : O_WRONLY
        let descriptor = SystemCall.retrying {
            Glibc.open(device.path, mode | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            throw PrinterError.from(Errno(rawValue: Glibc.errno), path: device.path, call: "open")
        }
        // A printer is a character device (USB, serial) or a pipe to one; a plain file would keep every receipt.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let errno = Errno(rawValue: Glibc.errno)
            Glibc.close(descriptor)
            throw PrinterError.from(errno, path: device.path, call: "fstat")
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFCHR || kind == S_IFIFO else {
            Glibc.close(descriptor)
            throw PrinterError.notAPrinter(path: device.path)
        }
        guard isatty(descriptor) == 1 else { return descriptor }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let errno = Errno(rawValue: Glibc.errno)
            Glibc.close(descriptor)
            throw PrinterError.from(errno, path: device.path, call: "tcgetattr")
        }
        cfmakeraw(&settings)
        let speed = Self.speed(device.baudRate)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            let errno = Errno(rawValue: Glibc.errno)
            Glibc.close(descriptor)
            throw PrinterError.from(errno, path: device.path, call: "tcsetattr")
        }
        return descriptor
    }

    private static func speed(_ baud: Int) -> speed_t {
        switch baud {
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        default: speed_t(B9600)
        }
    }

    private static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Waits until `events` is possible on the descriptor or `deadline` (monotonic ms) passes; false on timeout.
    private func wait(for events: Int16, until deadline: Int64, call: String) throws(PrinterError) -> Bool {
        while true {
            let left = deadline - Self.nowMilliseconds()
            if left <= 0 { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            // An interrupted poll is made again with the time left (none left: a zero timeout, as if timed out).
            let ready = SystemCall.retrying {
                poll(&descriptor, 1, Int32(min(max(deadline - Self.nowMilliseconds(), 0), 60_000)))
            }
            if ready < 0 {
                throw PrinterError.from(Errno(rawValue: Glibc.errno), path: path, call: "poll")
            }
            if ready == 0 { continue }
            if descriptor.revents & Int16(POLLNVAL) != 0 {
                throw .failed(path: path, call: call, errno: .badFileDescriptor)
            }
            // POLLERR/POLLHUP: let the following read or write report the errno.
            return true
        }
    }

    /// Writes every byte, waiting up to the device's write timeout whenever the printer stops taking data.
    func writeAll(_ bytes: [UInt8]) throws(PrinterError) {
        var written = 0
        var deadline = Self.nowMilliseconds() + device.writeTimeout.wholeMilliseconds
        while written < bytes.count {
            let result = bytes.withUnsafeBufferPointer { buffer in
                SystemCall.retrying { Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }
            }
            if result > 0 {
                written += result
                deadline = Self.nowMilliseconds() + device.writeTimeout.wholeMilliseconds
                continue
            }
            let code = result < 0 ? Glibc.errno : EAGAIN
            switch code {
            case EAGAIN:
                guard try wait(for: Int16(POLLOUT), until: deadline, call: "write") else {
                    throw .stalled(path: path, written: written, total: bytes.count)
                }
            default:
                throw PrinterError.from(Errno(rawValue: code), path: path, call: "write")
            }
        }
    }

    /// Sends `DLE EOT 2` and `DLE EOT 4` and reads the two answer bytes.
    func queryStatus() throws(PrinterError) -> PrinterStatus {
        if isatty(fd) == 1 { tcflush(fd, TCIFLUSH) }
        try writeAll(PrinterStatus.query)
        var answer: [UInt8] = []
        let deadline = Self.nowMilliseconds() + device.statusTimeout.wholeMilliseconds
        while answer.count < 2 {
            guard try wait(for: Int16(POLLIN), until: deadline, call: "read") else { throw .notResponding(path: path) }
            var buffer = [UInt8](repeating: 0, count: 2 - answer.count)
            let count = buffer.withUnsafeMutableBytes { bytes in
                SystemCall.retrying { Glibc.read(fd, bytes.baseAddress, bytes.count) }
            }
            if count > 0 {
                answer += buffer[0..<count]
            } else if count == 0 {
                throw .notResponding(path: path)
            } else if Glibc.errno != EAGAIN {
                throw PrinterError.from(Errno(rawValue: Glibc.errno), path: path, call: "read")
            }
        }
        guard let status = PrinterStatus(offlineCause: answer[0], paperSensor: answer[1]) else {
            throw .notResponding(path: path)
        }
        return status
    }

    /// Closes the descriptor; returns a delayed write error (EIO on close), if any.
    consuming func close() -> PrinterError? {
        closed = true
        // Not retried (`SystemCall`): after EINTR the descriptor is closed all the same on Linux.
        if Glibc.close(fd) != 0 && Glibc.errno != EINTR {
            return PrinterError.from(Errno(rawValue: Glibc.errno), path: path, call: "close")
        }
        return nil
    }

    deinit {
        if !closed { Glibc.close(fd) }
    }
}

extension PrinterDevice {
    /// The device a configuration names.
    public init(_ configuration: ReceiptPrinterConfiguration) {
        self.init(
            path: configuration.path, bidirectional: configuration.bidirectional,
            baudRate: configuration.baudRate,
            writeTimeout: .milliseconds(max(configuration.writeTimeoutMilliseconds, 100)))
    }
}
