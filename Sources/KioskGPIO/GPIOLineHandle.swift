internal import CKioskGPIOD
import Glibc
import KioskCore
import KioskPOSIX
import SystemPackage

/// The one owner of an open chip handle and one requested line on it. `OutputLine`, `InputLine`, `ButtonMonitor` and
/// `GPIOIndicator` hold it; the line and chip are released in `deinit`.
///
/// Not thread-safe: exactly one thread (or actor) uses a handle at a time.
final class GPIOLineHandle {
    let pin: GPIOPin
    private let chip: OpaquePointer
    let line: OpaquePointer

    enum Request {
        case output(initial: Bool)
        case bothEdges
    }

    init(_ pin: GPIOPin, consumer: String, request: Request) throws(GPIOError) {
        self.pin = pin
        guard let chip = Self.openChip(pin.chip) else {
            throw GPIOError(.openChip, chip: pin.chip, offset: nil, errno: Errno(rawValue: Glibc.errno))
        }
        guard let line = gpiod_chip_get_line(chip, pin.offset) else {
            let code = Glibc.errno
            gpiod_chip_close(chip)
            throw GPIOError(.getLine, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: code))
        }
        var flags: Int32 = pin.activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        let result: Int32
        let operation: GPIOError.Operation
        switch request {
        case .output(let initial):
            operation = .requestOutput
            result = gpiod_line_request_output_flags(line, consumer, flags, initial ? 1 : 0)
        case .bothEdges:
            operation = .requestEvents
            switch pin.bias {
            case .asIs: break
            case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
            case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
            case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
            }
            result = gpiod_line_request_both_edges_events_flags(line, consumer, flags)
        }
        guard result == 0 else {
            let code = Glibc.errno
            gpiod_chip_close(chip)
            throw GPIOError(operation, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: code))
        }
        self.chip = chip
        self.line = line
    }

    /// The corresponding C functions are `gpiod_chip_open` (a path), `gpiod_chip_open_by_label` (`label:` prefix)
    /// and `gpiod_chip_open_by_name`.
    private static func openChip(_ reference: String) -> OpaquePointer? {
        if reference.hasPrefix("/") { return gpiod_chip_open(reference) }
        if reference.hasPrefix("label:") { return gpiod_chip_open_by_label(String(reference.dropFirst(6))) }
        return gpiod_chip_open_by_name(reference)
    }

    /// The corresponding C function is `gpiod_line_set_value`.
    func set(_ active: Bool) throws(GPIOError) {
        guard gpiod_line_set_value(line, active ? 1 : 0) == 0 else {
            throw GPIOError(.setValue, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: Glibc.errno))
        }
    }

    /// The corresponding C function is `gpiod_line_get_value`.
    func get() throws(GPIOError) -> Bool {
        let value = gpiod_line_get_value(line)
        guard value >= 0 else {
            throw GPIOError(.getValue, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: Glibc.errno))
        }
        return value == 1
    }

    /// The file descriptor that becomes readable when an edge event is queued (`gpiod_line_event_get_fd`).
    var eventDescriptor: Int32 { gpiod_line_event_get_fd(line) }

    /// Waits up to `timeout` for an edge (`gpiod_line_event_wait`); true if one is queued. Retries on EINTR.
    func waitForEdge(timeout: Duration) throws(GPIOError) -> Bool {
        let (seconds, attoseconds) = timeout.components
        var spec = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        let result = SystemCall.retrying { gpiod_line_event_wait(line, &spec) }
        guard result >= 0 else {
            throw GPIOError(.waitEvent, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: Glibc.errno))
        }
        return result == 1
    }

    /// Reads one queued edge (`gpiod_line_event_read`): true for a rising (to active) edge. Retries on EINTR.
    func readEdge() throws(GPIOError) -> Bool {
        var event = gpiod_line_event()
        guard SystemCall.retrying({ gpiod_line_event_read(line, &event) }) == 0 else {
            throw GPIOError(.readEvent, chip: pin.chip, offset: pin.offset, errno: Errno(rawValue: Glibc.errno))
        }
        return event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE)
    }

    deinit {
        gpiod_line_release(line)
        gpiod_chip_close(chip)
    }
}
