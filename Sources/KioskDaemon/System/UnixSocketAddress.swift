#if canImport(Glibc)
    internal import Glibc
#endif

/// An AF_UNIX socket address: a path, or an abstract name written with a leading `@` (as `$NOTIFY_SOCKET` may be).
struct UnixSocketAddress {
    private(set) var storage = sockaddr_un()
    /// The address length to pass to `bind`, `connect` or `sendto`.
    let length: socklen_t

    /// Nil when the name does not fit (107 bytes on Linux); `byteCount` then says how long it was.
    init?(_ path: String) {
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` and its length.
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
