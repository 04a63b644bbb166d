internal import Foundation
internal import KioskCore
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// The accept loop of the control socket and the local HTTP server: accepts on a listening socket on a thread of its
/// own, serves each connection on a thread of its own, and bounds how many are served at once, overall and per peer
/// address. Beyond a bound, `refuse` answers the connection at once (the HTTP server says 503).
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
        /// Connections served at once for one peer address (IP); nil: no such bound (a Unix socket's peers have none).
        var perPeer: Int?
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
            guard state.served < limits.connections else { return false }
            if let peer, let perPeer = limits.perPeer {
                guard state.byPeer[peer, default: 0] < perPeer else { return false }
                state.byPeer[peer, default: 0] += 1
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
        return (descriptor, peerAddress(storage))
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
