internal import Foundation
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Why the control socket cannot be used.
public enum ControlSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path does not fit in a socket address (108 bytes on Linux).
    case pathTooLong(Int)
    /// Another process already answers on this socket.
    case alreadyInUse
    /// Nothing answers on this socket: the kiosk is not running (with this state directory).
    case notRunning
    /// The kiosk did not answer in time.
    case timedOut
    /// The request or the answer is larger than allowed.
    case messageTooLarge
    /// A system call failed.
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .pathTooLong(let count):
            "the control socket path is \(count) bytes, more than a socket address holds (107); use a shorter state directory"
        case .alreadyInUse: "a kiosk is already running with this state directory"
        case .notRunning: "no kiosk is running with this state directory (start one with `kiosk run --simulate`)"
        case .timedOut: "the kiosk did not answer in time"
        case .messageTooLarge: "the message is too large"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// A local control socket: one request line in, one answer line out, per connection (AF_UNIX stream, mode 0600).
///
/// The simulated kiosk is driven through it (`kiosk simulate …`), and `kiosk status` reads the daemon's state from
/// it. Each connection is served on its own thread (`SocketListener`: at most `maximumConnections` at once, more are
/// closed at once with an answer that says so); a request must arrive whole within `requestDeadline`; the handler
/// runs as async code.
public final class ControlSocketServer: Sendable {
    public typealias Handler = @Sendable (String) async -> String
    /// The largest request accepted.
    public static let maximumMessage = 1 << 20
    /// The largest answer a client reads: answers list what the kiosk did (every package of a USB stick, every
    /// receipt of a simulated day) and may be far larger than any request.
    public static let maximumAnswer = 64 << 20
    /// Connections served at once.
    public static let maximumConnections = 16
    /// The time a client has to send its whole request line, from the moment it is accepted.
    public static let requestDeadline: Duration = .seconds(10)

    public let path: String
    private let listener: SocketListener

    /// Binds and listens at `path`. A stale socket file (nothing answering) is replaced. `trouble` hears when
    /// accepting fails and when it works again (for the log).
    public init(
        path: String, requestDeadline: Duration = ControlSocketServer.requestDeadline,
        trouble: @escaping @Sendable (String) -> Void = { _ in }, handler: @escaping Handler
    ) throws(ControlSocketError) {
        self.path = path
        let address = try Self.address(path)
        if FileManager.default.fileExists(atPath: path) {
            if (try? Self.connect(path)).map({ close($0) }) != nil { throw .alreadyInUse }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "bind", errno: code)
        }
        chmod(path, 0o600)
        guard listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "listen", errno: code)
        }
        listener = SocketListener(
            listener: descriptor, name: "control", limits: .init(connections: Self.maximumConnections, perPeer: nil),
            trouble: trouble,
            refuse: { connection in
                Self.setTimeout(connection, seconds: 1)
                _ = try? Self.writeAll(connection, Array(Self.busyAnswer.utf8))
            },
            serve: { Self.serve($0, deadline: .now + requestDeadline, handler: handler) })
    }

    /// What a connection beyond `maximumConnections` is told before it is closed (a JSON line, as answers are).
    static let busyAnswer =
        #"{"ok":false,"lines":["The kiosk is busy: too many control connections at once."],"steps":[]}"# + "\n"

    /// Starts accepting connections on a thread of its own.
    public func start() { listener.start() }

    /// Stops accepting, removes the socket file and waits for the accepting thread to end.
    public func stop() {
        listener.stop()
        unlink(path)
    }

    /// False while accepting has kept failing (`SocketListener.isAccepting`).
    public var isAccepting: Bool { listener.isAccepting }

    /// Connections being served now (for tests: a slot is taken once this counts it).
    var connectionsServed: Int { listener.served }

    private static func serve(_ connection: Int32, deadline: ContinuousClock.Instant, handler: @escaping Handler) {
        setTimeout(connection, seconds: 10)
        guard let request = try? Self.readLine(connection, limit: Self.maximumMessage, before: deadline) else { return }
        let answer = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let text = await handler(request)
            answer.withLock { $0 = text }
            done.signal()
        }
        done.wait()
        let reply = (answer.withLock { $0 } ?? "") + "\n"
        _ = try? Self.writeAll(connection, Array(reply.utf8))
    }

    // MARK: Client

    /// `send` on a thread of its own, for async callers (a blocking call must not hold one of the few threads that
    /// run async code, which the server's handler may need).
    public static func request(_ request: String, to path: String, timeout: Duration = .seconds(30))
        async throws(ControlSocketError) -> String
    {
        let result = await withCheckedContinuation {
            (waiter: CheckedContinuation<Result<String, ControlSocketError>, Never>) in
            let thread = Thread {
                do throws(ControlSocketError) {
                    waiter.resume(returning: .success(try send(request, to: path, timeout: timeout)))
                } catch {
                    waiter.resume(returning: .failure(error))
                }
            }
            thread.name = "control-client"
            thread.start()
        }
        return try result.get()
    }

    /// Sends one request line and returns the answer line. Blocks the calling thread.
    public static func send(_ request: String, to path: String, timeout: Duration = .seconds(30))
        throws(ControlSocketError) -> String
    {
        let descriptor = try connect(path)
        defer { close(descriptor) }
        setTimeout(descriptor, seconds: Int(timeout.components.seconds))
        let line = request.replacingOccurrences(of: "\n", with: " ") + "\n"
        do {
            try writeAll(descriptor, Array(line.utf8))
        } catch {
            // A kiosk that turns the connection away (too many at once) answers and closes before reading: its
            // answer is still there to read.
            guard case .system(_, EPIPE) = error, let answer = try? readLine(descriptor, limit: maximumAnswer),
                !answer.isEmpty
            else { throw error }
            return answer
        }
        return try readLine(descriptor, limit: maximumAnswer)
    }

    private static func connect(_ path: String) throws(ControlSocketError) -> Int32 {
        let address = try address(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        let connected = address.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            if code == ENOENT || code == ECONNREFUSED { throw .notRunning }
            throw .system(call: "connect", errno: code)
        }
        return descriptor
    }

    private static func address(_ path: String) throws(ControlSocketError) -> UnixSocketAddress {
        guard let address = UnixSocketAddress(path) else { throw .pathTooLong(path.utf8.count) }
        return address
    }

    /// One line, read in full by `deadline` when one is given (a trickle of bytes cannot stretch it).
    private static func readLine(_ descriptor: Int32, limit: Int, before deadline: ContinuousClock.Instant? = nil)
        throws(ControlSocketError) -> String
    {
        var received = [UInt8]()
        while true {
            let chunk: [UInt8]
            if let deadline {
                guard let read = SocketIO.readSome(descriptor, before: deadline) else { throw .timedOut }
                chunk = read
            } else {
                do { chunk = try SocketIO.read(descriptor) } catch { throw error.controlSocketError }
            }
            if chunk.isEmpty { break }
            // Only the new bytes are searched for the line's end: a long answer is read in linear time.
            if let end = chunk.firstIndex(of: UInt8(ascii: "\n")) {
                received += chunk[..<end]
                break
            }
            received += chunk
            if received.count > limit { throw .messageTooLarge }
        }
        return String(decoding: received, as: UTF8.self)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(ControlSocketError) {
        do { try SocketIO.writeAll(descriptor, bytes) } catch { throw error.controlSocketError }
    }

    private static func setTimeout(_ descriptor: Int32, seconds: Int) {
        SocketIO.setTimeout(descriptor, seconds: seconds)
    }
}

extension SocketIO.Failure {
    var controlSocketError: ControlSocketError {
        switch self {
        case .timedOut: .timedOut
        case .system(let call, let code): .system(call: call, errno: code)
        }
    }
}
