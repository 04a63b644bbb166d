public import SystemPackage

/// A libgpiod call failed. Carries the call, the chip and line it was about, and the `errno` libgpiod left; the
/// description says what a field worker can do about it.
public struct GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which step failed.
    public enum Operation: String, Sendable {
        /// `gpiod_chip_open` / `_by_name` / `_by_label`.
        case openChip
        /// `gpiod_chip_get_line`.
        case getLine
        /// `gpiod_line_request_output_flags`.
        case requestOutput
        /// `gpiod_line_request_both_edges_events_flags`.
        case requestEvents
        /// `gpiod_line_set_value`.
        case setValue
        /// `gpiod_line_get_value`.
        case getValue
        /// `gpiod_line_event_wait` or `poll` on the event descriptors.
        case waitEvent
        /// `gpiod_line_event_read`.
        case readEvent
        /// Starting the button thread's wake-up pipe.
        case startMonitor
    }

    public let operation: Operation
    public let chip: String
    public let offset: UInt32?
    public let errno: Errno

    public init(_ operation: Operation, chip: String, offset: UInt32?, errno: Errno) {
        self.operation = operation
        self.chip = chip
        self.offset = offset
        self.errno = errno
    }

    public var description: String {
        let line = offset.map { "line \($0) on GPIO chip '\(chip)'" } ?? "GPIO chip '\(chip)'"
        switch (operation, errno) {
        case (.openChip, .noSuchFileOrDirectory):
            return "GPIO chip '\(chip)' not found: this board has no such GPIO controller, so the kiosk runs without"
                + " lights, buzzer and buttons (check the chip name in the configuration; `gpiodetect` lists the chips)"
        case (.openChip, .permissionDenied), (.requestOutput, .permissionDenied), (.requestEvents, .permissionDenied):
            return "no permission to use \(line): the kiosk's user needs access to /dev/gpiochip* (group 'gpio')"
        case (.openChip, .operationNotSupportedByDevice), (.openChip, .inappropriateIOCTLForDevice):
            return
                "'\(chip)' is not a GPIO chip (check the chip name in the configuration; `gpiodetect` lists the chips)"
        case (.getLine, .invalidArgument):
            return
                "\(line) does not exist (`gpioinfo` lists the lines of each chip; check the offset in the configuration)"
        case (.requestOutput, .resourceBusy), (.requestEvents, .resourceBusy):
            return "\(line) is already in use by another program or by another role in the configuration"
        default:
            return "GPIO \(operation.rawValue) failed for \(line): \(errno.description)"
        }
    }
}
