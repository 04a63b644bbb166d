public import KioskCore

/// A GPIO line requested for edge events on both edges (a button), released when the value goes away.
///
/// The corresponding C function for the request is `gpiod_line_request_both_edges_events_flags`. For buttons use
/// `ButtonMonitor`, which adds debounce and a reader thread; this type is the single-line building block.
public struct InputLine: ~Copyable {
    let handle: GPIOLineHandle

    public init(_ pin: GPIOPin, consumer: String) throws(GPIOError) {
        handle = try GPIOLineHandle(pin, consumer: consumer, request: .bothEdges)
    }

    public var pin: GPIOPin { handle.pin }

    /// The line's current logical level. The corresponding C function is `gpiod_line_get_value`.
    public func value() throws(GPIOError) -> Bool {
        try handle.get()
    }

    /// Blocks up to `timeout` for an edge; true if one is queued. The corresponding C function is
    /// `gpiod_line_event_wait`.
    public func waitForEdge(timeout: Duration) throws(GPIOError) -> Bool {
        try handle.waitForEdge(timeout: timeout)
    }

    /// Reads the next queued edge, blocking if none is: true for a rising (to active) edge. The corresponding C
    /// function is `gpiod_line_event_read`.
    public func readEdge() throws(GPIOError) -> Bool {
        try handle.readEdge()
    }
}
