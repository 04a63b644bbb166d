public import KioskCore
internal import Synchronization

/// A `StationStateStore` in memory, with injectable failures, for tests.
public final class InMemoryStationStateStore: StationStateStore {
    private let state = Mutex<(saved: StationState?, failure: StoreError?, saves: Int)>((nil, nil, 0))

    public init(_ saved: StationState? = nil) {
        state.withLock { $0.saved = saved }
    }

    /// Makes every later call throw `error` until `heal()`.
    public func fail(with error: StoreError) { state.withLock { $0.failure = error } }
    public func heal() { state.withLock { $0.failure = nil } }

    /// What was saved last.
    public var saved: StationState? { state.withLock { $0.saved } }
    /// How many saves succeeded.
    public var saveCount: Int { state.withLock { $0.saves } }

    public func loadStationState() throws(StoreError) -> StationState? {
        let (saved, failure, _) = state.withLock { $0 }
        if let failure { throw failure }
        return saved
    }

    public func saveStationState(_ new: StationState) throws(StoreError) {
        let failure: StoreError? = state.withLock { current in
            if let failure = current.failure { return failure }
            current.saved = new
            current.saves += 1
            return nil
        }
        if let failure { throw failure }
    }
}
