internal import Foundation
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// Talks to systemd's service manager (`Type=notify`): readiness, watchdog pings, status text, stopping.
///
/// The protocol is one datagram per message on the AF_UNIX socket named by `$NOTIFY_SOCKET` (a path, or an abstract
/// name when it starts with `@`). Without that variable (not started by systemd) every call does nothing and
/// returns false, so the daemon runs the same way from a terminal.
public struct SystemdNotifier: Sendable {
    /// Where messages go, or nil when the process was not started with `NotifyAccess`.
    public let socketPath: String?
    /// How often systemd expects a ping (`$WATCHDOG_USEC` for this process), or nil without a watchdog.
    public let watchdogTimeout: Duration?

    /// Reads this process's environment.
    public init() { self.init(environment: ProcessInfo.processInfo.environment) }

    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        var timeout: Duration?
        if let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
            // WATCHDOG_PID, when set, names the process the watchdog is meant for.
            if let pid = environment["WATCHDOG_PID"], let value = Int32(pid), value != getpid() {
                timeout = nil
            } else {
                timeout = .microseconds(micros)
            }
        }
        watchdogTimeout = timeout
    }

    /// The interval at which to ping: half the watchdog timeout, as sd_watchdog_enabled(3) recommends.
    public var watchdogPingInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// Start-up finished: the kiosk accepts taps.
    @discardableResult public func ready(status: String? = nil) -> Bool {
        send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// The main loop is alive.
    @discardableResult public func watchdog() -> Bool { send(["WATCHDOG=1"]) }

    /// Shutting down.
    @discardableResult public func stopping() -> Bool { send(["STOPPING=1"]) }

    /// A one-line status for `systemctl status`. Never personal or venue data.
    @discardableResult public func status(_ text: String) -> Bool { send(["STATUS=\(text)"]) }

    /// Sends `assignments` as one datagram. Returns whether it was delivered.
    public func send(_ assignments: [String]) -> Bool {
        guard let socketPath else { return false }
        let message = assignments.joined(separator: "\n")
        guard let address = UnixSocketAddress(socketPath) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let sent = message.utf8CString.withUnsafeBufferPointer { text in
            address.withSocketAddress { socketAddress, length in
                // Blocks while systemd's queue is full: a signal then must not lose the message (READY=1).
                SystemCall.retrying {
                    sendto(descriptor, text.baseAddress, text.count - 1, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        return sent == message.utf8.count
    }
}
