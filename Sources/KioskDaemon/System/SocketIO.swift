internal import KioskCore
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// Blocking socket reads and writes shared by the control socket and the local HTTP server.
enum SocketIO {
    enum Failure: Error {
        /// The socket's send or receive timeout passed.
        case timedOut
        case system(call: String, errno: Int32)
    }

    /// Sets the receive and send timeouts (at least a second).
    static func setTimeout(_ descriptor: Int32, seconds: Int) {
        var value = timeval(tv_sec: max(1, seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next bytes (empty at the end of the stream), or nil after a timeout or an error.
    static func readSome(_ descriptor: Int32) -> [UInt8]? {
        try? read(descriptor)
    }

    /// The next bytes (empty at the end of the stream), or nil after an error or once `deadline` has passed: the
    /// receive timeout is set to what is left of it before each read, so a trickle of bytes cannot stretch it.
    static func readSome(_ descriptor: Int32, before deadline: ContinuousClock.Instant) -> [UInt8]? {
        let left = deadline - .now
        guard left > .zero else { return nil }
        let microseconds = max(1000, left.wholeNanoseconds / 1000)
        var value = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        return try? read(descriptor)
    }

    /// The next bytes, empty at the end of the stream.
    static func read(_ descriptor: Int32) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { bytes in
            SystemCall.retrying { Glibc.read(descriptor, bytes.baseAddress, bytes.count) }
        }
        if count >= 0 { return Array(buffer[0..<count]) }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
        throw .system(call: "read", errno: errno)
    }

    /// Writes all of `bytes` (no SIGPIPE if the peer has gone).
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
                throw .system(call: "write", errno: errno)
            }
            offset += count
        }
    }
}
