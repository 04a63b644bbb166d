public import KioskCore
internal import Synchronization

/// The one place where events reach the station: device loops, timers and the control socket submit events here,
/// and a single consumer hands them to the `StationRunner` one after the other (the runner awaits devices while it
/// carries out actions; a second event must not slip in between).
///
/// Whoever caused an event indirectly (the simulation places a card, the reader reads it) can `expect` the report
/// of the next event of a kind before causing it.
public final class StationLoop: Sendable {
    /// What kind of event a report answers, for waiting on it.
    public enum EventKind: Sendable, Hashable {
        case cardRead, cardRemoved, codeScanned, button, tick, clock, staffCommand, other

        init(_ event: StationEvent) {
            switch event {
            case .cardRead: self = .cardRead
            case .cardRemoved: self = .cardRemoved
            case .codeScanned: self = .codeScanned
            case .buttonPressed, .chosen, .navigated, .speakRequested: self = .button
            case .tick: self = .tick
            case .clockChanged: self = .clock
            case .staffCommand: self = .staffCommand
            default: self = .other
            }
        }
    }

    /// A handled event's report, as observers see it.
    public struct Handled: Sendable {
        public let kind: EventKind
        public let report: StationReport
    }

    private struct Item: Sendable {
        let event: StationEvent
        let reply: (@Sendable (StationReport) -> Void)?
    }

    public let runner: StationRunner
    private let items: AsyncStream<Item>
    private let input: AsyncStream<Item>.Continuation
    private let observers = Mutex<[Int: Observer]>([:])
    private let nextObserver = Atomic<Int>(0)
    private let handledCount = Atomic<Int>(0)

    private struct Observer {
        let kinds: Set<EventKind>
        let continuation: AsyncStream<Handled>.Continuation
    }

    public init(runner: StationRunner) {
        self.runner = runner
        (items, input) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Queues `event` without waiting for it.
    public func submit(_ event: StationEvent) {
        input.yield(Item(event: event, reply: nil))
    }

    /// Queues `event` and returns its report once handled.
    public func handle(_ event: StationEvent) async -> StationReport {
        await withCheckedContinuation { waiter in
            let result = input.yield(Item(event: event, reply: { waiter.resume(returning: $0) }))
            if case .terminated = result { waiter.resume(returning: StationReport()) }
        }
    }

    /// Starts observing reports of `kinds`; take them from the returned stream. Register before causing the event.
    public func expect(_ kinds: Set<EventKind>) -> Expectation {
        let id = nextObserver.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Handled>.makeStream(bufferingPolicy: .bufferingNewest(32))
        observers.withLock { $0[id] = Observer(kinds: kinds, continuation: continuation) }
        return Expectation(loop: self, id: id, stream: stream)
    }

    fileprivate func stopObserving(_ id: Int) {
        observers.withLock { $0.removeValue(forKey: id) }?.continuation.finish()
    }

    /// Consumes events until `finish()`.
    public func run() async {
        for await item in items {
            let report = await runner.handle(item.event)
            handledCount.add(1, ordering: .relaxed)
            item.reply?(report)
            let handled = Handled(kind: EventKind(item.event), report: report)
            let current = observers.withLock { Array($0.values) }
            for observer in current where observer.kinds.contains(handled.kind) {
                observer.continuation.yield(handled)
            }
        }
    }

    /// Ends `run()` after the events already queued.
    public func finish() { input.finish() }

    /// How many events were handled so far (the watchdog checks that this moves).
    public var eventsHandled: Int { handledCount.load(ordering: .relaxed) }

    /// Reports of an expected kind of event.
    public struct Expectation: Sendable {
        fileprivate let loop: StationLoop
        fileprivate let id: Int
        let stream: AsyncStream<Handled>

        /// The next matching report, or nil after `timeout`.
        public func next(timeout: Duration) async -> Handled? {
            let stream = self.stream
            return await withTimeout(timeout) {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()  // ends with nil when cancelled
            } ?? nil
        }

        /// Stops observing.
        public func cancel() { loop.stopObserving(id) }
    }
}
