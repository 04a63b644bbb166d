public import KioskCore

/// A GPIO line requested as an output (a LED or the buzzer), released when the value goes away.
///
/// The corresponding C functions are `gpiod_chip_open_by_name` (or `gpiod_chip_open`, `gpiod_chip_open_by_label`),
/// `gpiod_chip_get_line` and `gpiod_line_request_output_flags`; `deinit` calls `gpiod_line_release` and
/// `gpiod_chip_close`.
public struct OutputLine: ~Copyable {
    let handle: GPIOLineHandle

    /// Requests `pin` as an output for `consumer` (shown by `gpioinfo`), initially `initial` (active or not).
    public init(_ pin: GPIOPin, consumer: String, initial: Bool = false) throws(GPIOError) {
        handle = try GPIOLineHandle(pin, consumer: consumer, request: .output(initial: initial))
    }

    public var pin: GPIOPin { handle.pin }

    /// Drives the line active (`true`) or inactive; active-low pins are inverted by the kernel.
    /// The corresponding C function is `gpiod_line_set_value`.
    public func set(_ active: Bool) throws(GPIOError) {
        try handle.set(active)
    }

    /// The value last driven, as the kernel reports it. The corresponding C function is `gpiod_line_get_value`.
    public func value() throws(GPIOError) -> Bool {
        try handle.get()
    }
}
