#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The one place that decides what to do when a system call is interrupted by a signal: call it again.
///
/// A blocking call (`read`, `write`, `poll`, `accept`, `open` of a FIFO or tty, `fsync` on some file systems, …)
/// returns -1 with `errno` set to `EINTR` when a signal handler installed without `SA_RESTART` runs on its thread
/// (and `poll` does so even with `SA_RESTART`). Nothing failed; the call is simply made again.
///
/// ```swift
/// let count = SystemCall.retrying { read(descriptor, buffer.baseAddress, buffer.count) }
/// guard count >= 0 else { throw Failure(errno: errno) }  // errno is still the failed call's
/// ```
///
/// Not every call may be retried:
/// - **`close` must never be retried on Linux.** The descriptor is released even when `close` reports `EINTR`; a
///   second `close` could close a descriptor another thread has been given meanwhile. Call `close` once.
/// - `connect` interrupted by a signal goes on connecting in the background; calling it again fails with
///   `EALREADY`. Wait for it with `poll` instead.
/// - A call with a relative timeout (`poll`) restarts with the timeout it is given: compute the time left inside
///   `body` when a deadline matters.
///
/// This mirrors swift-system's `valueOrErrno(retryOnInterrupt:)` (`Sources/System/Util.swift`).
public enum SystemCall {
    /// Calls `body` until it returns something other than -1 with `errno` == `EINTR`, and returns that result.
    ///
    /// On a failure (-1 with any other `errno`), `errno` is left as the failing call set it, so the caller reads it
    /// right after this returns. Use it for calls returning `int` (`open`, `poll`, `accept`, `fsync`, `flock`, …)
    /// and `ssize_t` (`read`, `write`, `send`, …).
    ///
    /// - Parameter body: makes the system call once; it may compute its arguments (a timeout left) each time.
    /// - Returns: the first result that is not an interruption.
    public static func retrying<Result: FixedWidthInteger & SignedInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            // Read errno at once: nothing may run between the call and this check that could change it.
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }
}
