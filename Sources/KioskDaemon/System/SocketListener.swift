internal import Foundation
internal import KioskCore
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The accept loop of the control socket and the local HTTP server: accepts on a listening socket on a thread of its
/// own, serves each connection on a thread of its own, and bounds how many are served at once, overall and per peer.
/// Beyond a bound, `refuse` answers the connection at once (the HTTP server says 503).
///
/// A peer is its IP address, except on loopback, where every local client has the same address (and may pick any of
/// 127.0.0.0/8): there a peer is the user that owns the connecting socket, as the kernel's table of TCP sockets says
/// (`loopbackOwner`). So slow clients of one user cannot take the kiosk's own browser's slots (it runs as the desktop
/// user), however often they reconnect. And a peer with fewer than `Limits.reserved` connections is served even when
/// every slot is taken, up to three times the bound: several users' clients filling the slots still leave the page
/// its own.
///
/// An accept that fails does not end the loop: running out of file descriptors or memory (`EMFILE`, `ENFILE`,
/// `ENOBUFS`, `ENOMEM`) passes when connections close, so the loop says so once through `trouble`, waits (50 ms,
/// doubling to a second) and tries again, and says so again when it accepts once more. `isAccepting` turns false
/// while accept has failed for `unhealthyAfter` without a pause, so the watchdog can stop vouching for a kiosk whose
/// inputs died.
final class SocketListener: Sendable {
    /// The result of one accept: the connection (or -1 with `errno`), and the peer's address when it has one.
    typealias Accept = @Sendable (Int32) -> (descriptor: Int32, peer: String?)

    struct Limits: Sendable {
        /// Connections served at once.
        var connections: Int
        /// Connections served at once for one peer (an IP address, or a local user on loopback); nil: no such bound
        /// (a Unix socket's peers have none).
        var perPeer: Int?
        /// Connections a peer is always served, past `connections` (up to three times it): nil, none.
        var reserved: Int? = nil
    }

    /// How long accept may keep failing before `isAccepting` says no.
    static let unhealthyAfter: Duration = .seconds(30)
    private let unhealthyAfter: Duration

    let name: String
    private let listener: Int32
    private let limits: Limits
    private let accept: Accept
    private let serve: @Sendable (Int32) -> Void
    private let refuse: @Sendable (Int32) -> Void
    private let trouble: @Sendable (String) -> Void
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let state = Mutex<(served: Int, byPeer: [String: Int], failingSince: ContinuousClock.Instant?)>(
        (0, [:], nil))

    /// `listener`: a bound, listening socket, owned from here on (closed by `stop`).
    init(
        listener: Int32, name: String, limits: Limits, accept: @escaping Accept = SocketListener.systemAccept,
        unhealthyAfter: Duration = SocketListener.unhealthyAfter, trouble: @escaping @Sendable (String) -> Void,
        refuse: @escaping @Sendable (Int32) -> Void, serve: @escaping @Sendable (Int32) -> Void
    ) {
        self.listener = listener
        self.unhealthyAfter = unhealthyAfter
        self.name = name
        self.limits = limits
        self.accept = accept
        self.trouble = trouble
        self.refuse = refuse
        self.serve = serve
    }

    /// Starts accepting on a thread of its own.
    func start() {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            acceptLoop()
            finished.signal()
        }
        thread.name = name + "-accept"
        thread.start()
    }

    /// Stops accepting, waits for the accepting thread and closes the listening socket (connections being served
    /// finish on their own).
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        wakeUp.signal()
        if started.load(ordering: .sequentiallyConsistent) { finished.wait() }
        close(listener)
    }

    /// False while accept has kept failing for `unhealthyAfter` or more.
    var isAccepting: Bool {
        guard let since = state.withLock({ $0.failingSince }) else { return true }
        return ContinuousClock.now - since < unhealthyAfter
    }

    /// Connections being served now.
    var served: Int { state.withLock { $0.served } }

    private func acceptLoop() {
        var pause: Duration = .milliseconds(50)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let (connection, peer) = accept(listener)
            if connection < 0 {
                let code = errno
                if stopped.load(ordering: .sequentiallyConsistent) { return }
                if code == ECONNABORTED || code == EPROTO || code == EINTR { continue }
                let first = state.withLock { state in
                    defer { if state.failingSince == nil { state.failingSince = .now } }
                    return state.failingSince == nil
                }
                if first { trouble("\(name): accept failed (\(String(cString: strerror(code)))); trying again") }
                _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(pause.wholeMilliseconds)))
                pause = min(pause * 2, .seconds(1))
                continue
            }
            pause = .milliseconds(50)
            if state.withLock({ $0.failingSince }) != nil {
                state.withLock { $0.failingSince = nil }
                trouble("\(name): accepting again")
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            guard admit(peer) else {
                refuse(connection)
                close(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                close(connection)
                release(peer)
            }
            thread.name = name + "-connection"
            thread.start()
        }
    }

    private func admit(_ peer: String?) -> Bool {
        state.withLock { state in
            let held = peer.map { state.byPeer[$0, default: 0] } ?? 0
            let inReserve = peer != nil && held < (limits.reserved ?? 0) && state.served < 3 * limits.connections
            guard state.served < limits.connections || inReserve else { return false }
            if let peer, let perPeer = limits.perPeer {
                guard held < perPeer else { return false }
                state.byPeer[peer] = held + 1
            }
            state.served += 1
            return true
        }
    }

    private func release(_ peer: String?) {
        state.withLock { state in
            state.served -= 1
            if let peer, limits.perPeer != nil {
                state.byPeer[peer, default: 1] -= 1
                if state.byPeer[peer] == 0 { state.byPeer[peer] = nil }
            }
        }
    }

    /// `accept`, with the peer's IP address for IPv4 and IPv6 connections. The corresponding C function is `accept`.
    static func systemAccept(_ listener: Int32) -> (descriptor: Int32, peer: String?) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let descriptor = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                SystemCall.retrying { Glibc.accept(listener, address, &length) }
            }
        }
        guard descriptor >= 0 else { return (descriptor, nil) }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &localLength) }
        }
        if named == 0, let owner = loopbackOwner(peer: storage, local: local) { return (descriptor, "uid \(owner)") }
        return (descriptor, peerAddress(storage))
    }

    /// The user owning the socket that connected from `peer` to `local`, when both are on loopback: the `uid` of the
    /// row of `/proc/net/tcp` (or `tcp6`) whose local address is `peer` and remote address `local`. Nil for other
    /// addresses, or when the table cannot be read.
    static func loopbackOwner(peer: sockaddr_storage, local: sockaddr_storage) -> UInt32? {
        guard let peerKey = tableAddress(peer), let localKey = tableAddress(local) else { return nil }
        guard let table = readProcFile(peerKey.table) else { return nil }
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, …
            guard fields.count > 7, fields[1] == peerKey.text, fields[2] == localKey.text else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// A file of /proc, read to its end (its size says 0; the kernel hands it out a page at a time). The
    /// corresponding C functions are `open` and `read`.
    private static func readProcFile(_ path: String) -> String? {
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < 16 * 1024 * 1024 {
            let count = buffer.withUnsafeMutableBytes { chunk in
                SystemCall.retrying { Glibc.read(descriptor, chunk.baseAddress, chunk.count) }
            }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An address as the kernel's socket table writes it (`0100007F:1F90`: each 32-bit word of the address as it
    /// lies in memory, in hex, then the port), and the table it is in; nil unless it is a loopback address.
    private static func tableAddress(_ storage: sockaddr_storage) -> (text: String, table: String)? {
        var storage = storage
        func hex(_ value: UInt32, _ width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            guard UInt32(bigEndian: address.sin_addr.s_addr) >> 24 == 127 else { return nil }
            return (
                hex(address.sin_addr.s_addr, 8) + ":" + hex(UInt32(UInt16(bigEndian: address.sin_port)), 4),
                "/proc/net/tcp"
            )
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            let isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let isMappedLoopback =
                bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
            guard isLoopback || isMappedLoopback else { return nil }
            let words = stride(from: 0, to: 16, by: 4).map { index in
                bytes[index..<index + 4].withUnsafeBytes { hex($0.loadUnaligned(as: UInt32.self), 8) }
            }
            return (
                words.joined() + ":" + hex(UInt32(UInt16(bigEndian: address.sin6_port)), 4), "/proc/net/tcp6"
            )
        default:
            return nil
        }
    }

    static func peerAddress(_ storage: sockaddr_storage) -> String? {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }.sin_addr
            guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { return nil }
        case AF_INET6:
            var address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }.sin6_addr
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(cString: text)
    }
}
