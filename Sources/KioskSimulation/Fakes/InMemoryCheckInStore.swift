public import KioskCore
internal import Synchronization

/// A check-in store in memory, for fast tests of the core and the daemon. Same contract as `SQLiteCheckInStore`
/// (the contract suite runs against both), without durability. `failNextWrites` simulates a store fault.
public final class InMemoryCheckInStore: CheckInStore {
    private struct State {
        var rows: [[UInt8]: StoredStay] = [:]  // keyed by handle · id
        var injectedFailure: StoreError?
        var commits = 0
        var reads = 0
        var salt: [UInt8]?
        var profiles: [[UInt8]: [UInt8]] = [:]
        var blocked: Set<[UInt8]> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Every following mutating call throws `error` until `heal()`.
    public func fail(with error: StoreError) { state.withLock { $0.injectedFailure = error } }
    public func heal() { state.withLock { $0.injectedFailure = nil } }
    /// Changes the stored profiles' bytes in place (a damaged or altered store), for tests of what the kiosk does
    /// with a profile it cannot open.
    public func alterProfiles(_ change: (inout [UInt8]) -> Void) {
        state.withLock { state in
            for key in state.profiles.keys { change(&state.profiles[key]!) }
        }
    }
    /// Number of successful commits (`commit`, `deleteAll`, `expire`, `wipe`).
    public var commitCount: Int { state.withLock { $0.commits } }
    /// Number of reads of a card's stays (`stays(handle:)`).
    public var readCount: Int { state.withLock { $0.reads } }
    /// Every row, for inspection.
    public var allRows: [StoredStay] { state.withLock { Array($0.rows.values) } }

    public func stays(handle: [UInt8]) throws(StoreError) -> [StoredStay] {
        state.withLock { state in
            state.reads += 1
            return state.rows.values.filter { $0.handle == handle }
        }
    }

    public func commit(handle: [UInt8], upserts: [StoredStay], deletions: [[UInt8]]) throws(StoreError) {
        precondition(upserts.allSatisfy { $0.handle == handle }, "a commit writes rows of one card only")
        try mutate { state in
            for row in upserts { state.rows[handle + row.id] = row }
            for id in deletions { state.rows[handle + id] = nil }
            return ()
        }
    }

    public func deleteAll(handle: [UInt8]) throws(StoreError) -> Int {
        try mutate { state in
            let keys = state.rows.filter { $0.value.handle == handle }.map(\.key)
            for key in keys { state.rows[key] = nil }
            state.profiles[handle] = nil
            return keys.count
        }
    }

    public func profile(handle: [UInt8]) throws(StoreError) -> [UInt8]? {
        state.withLock { $0.profiles[handle] }
    }

    public func saveProfile(handle: [UInt8], sealed: [UInt8]) throws(StoreError) {
        try mutate { state in state.profiles[handle] = sealed }
    }

    public func isBlocked(handle: [UInt8]) throws(StoreError) -> Bool {
        state.withLock { $0.blocked.contains(handle) }
    }

    public func block(handle: [UInt8]) throws(StoreError) -> Int {
        try mutate { state in
            let keys = state.rows.filter { $0.value.handle == handle }.map(\.key)
            for key in keys { state.rows[key] = nil }
            state.profiles[handle] = nil
            state.blocked.insert(handle)
            return keys.count
        }
    }

    public func expire(throughHour hour: Int64) throws(StoreError) -> Int {
        try mutate { state in
            let keys = state.rows.filter { $0.value.expiryHour <= hour }.map(\.key)
            for key in keys { state.rows[key] = nil }
            return keys.count
        }
    }

    public func wipe() throws(StoreError) {
        try mutate { state in
            state.rows.removeAll()
            state.profiles.removeAll()
            state.blocked.removeAll()
        }
    }

    public func counts() throws(StoreError) -> StoreCounts {
        state.withLock { state in
            var byHour = [Int64: Int]()
            for row in state.rows.values { byHour[row.expiryHour, default: 0] += 1 }
            return StoreCounts(
                stays: state.rows.count, cards: Set(state.rows.values.map(\.handle)).count,
                staysByExpiryHour: byHour)
        }
    }

    public func handleSalt(orStore fresh: [UInt8]) throws(StoreError) -> [UInt8] {
        if let salt = state.withLock({ $0.salt }) { return salt }
        return try mutate { state in
            if state.salt == nil { state.salt = fresh }
            return state.salt!
        }
    }

    private func mutate<T>(_ body: (inout State) -> T) throws(StoreError) -> T {
        let result: Result<T, StoreError> = state.withLock { state in
            if let failure = state.injectedFailure { return .failure(failure) }
            let value = body(&state)
            state.commits += 1
            return .success(value)
        }
        return try result.get()
    }
}
