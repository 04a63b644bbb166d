import Foundation
import KioskCore
import KioskOpenSSL
import KioskSystem
import KioskTesting
import Synchronization
import Testing

@Suite struct ExpiryLoopTests {
    let crypto = OpenSSLCrypto()
    let venue = StayVenue(locationId: [UInt8](repeating: 3, count: 32), description: "Gym", address: "",
                          autoCheckout: AutoCheckoutRule(maximumStay: 3600))

    @Test func runsAtStartAndRepeatsUntilCancelled() async throws {
        let store = InMemoryCheckInStore()
        let desk = CheckInDesk(store: store, crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000))
        _ = desk.tap(try CardSecret.generate(kind: .visitor, crypto: crypto), at: venue, clock: clock.read())
        let results = Mutex<[ExpiryLoop.Result]>([])
        let loop = ExpiryLoop(desk: desk, clock: clock, interval: .milliseconds(20))
        let task = Task { await loop.run { result in results.withLock { $0.append(result) } } }
        // The first run happens at once: nothing is due yet. (Polling with a generous deadline: no timing asserted.)
        try await waitUntil { results.withLock { !$0.isEmpty } }
        #expect(results.withLock { $0.first } == .expired(count: 0))
        #expect(try store.counts().stays == 1)
        // The clock moves 16 days on (the kiosk was off): the next run deletes the stay.
        clock.advance(by: 16 * 86_400)
        try await waitUntil { results.withLock { $0.contains(.expired(count: 1)) } }
        task.cancel()
        await task.value
        #expect(try store.counts().stays == 0)
        #expect(results.withLock { $0.contains(.expired(count: 1)) })
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func unsynchronizedClockAndStoreFailureAreReportedNotThrown() throws {
        let store = InMemoryCheckInStore()
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_790_000_000), isSynchronized: false)
        let loop = ExpiryLoop(desk: CheckInDesk(store: store, crypto: crypto), clock: clock)
        #expect(loop.runOnce() == .skippedClockNotSynchronized)
        clock.setSynchronized(true)
        store.fail(with: .readOnly)
        #expect(loop.runOnce() == .failed(.readOnly))
        store.heal()
        #expect(loop.runOnce() == .expired(count: 0))
    }
}
