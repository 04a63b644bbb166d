import Foundation
import Testing

@testable import KioskCore

/// The station's expiry after a restart whose clock is not synchronized (docs/PRIVACY.md, "retention with the power
/// off"): while the boot waits for its clock, no expiry and no pruning; after the wait, expiry deletes everything and
/// the warning records and check-out times go with the stays.
@Suite struct RetentionWaitTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func reading(unknownFor seconds: TimeInterval) -> ClockReading {
        ClockReading(
            now: now, isSynchronized: false, floor: now.addingTimeInterval(-86_400), downtimeUnknownFor: seconds)
    }

    @Test func theStationWaitsForItsClockThenForgetsEverything() {
        var state = StationState()
        state.openCheckInEnds = [now.addingTimeInterval(3 * 86_400)]
        state.warnings = [
            WarningRecord(tag: [UInt8](repeating: 1, count: 16), expiryHour: RetentionPolicy.hourNumber(now) + 24 * 10)
        ]
        var housekeeping = Housekeeping(persisted: state)
        for seconds in [0, 60, RetentionPolicy.synchronizationWait - 1] {
            let waiting = reading(unknownFor: seconds)
            #expect(waiting.latest == nil && RetentionPolicy.awaitsSynchronization(waiting))
            #expect(!housekeeping.tick(now: waiting, state: state).contains(.expireNow))
            var pruned = state
            housekeeping.prune(&pruned, now: waiting)
            #expect(pruned == state, "nothing pruned while waiting")
        }
        let waited = reading(unknownFor: RetentionPolicy.synchronizationWait)
        #expect(housekeeping.tick(now: waited, state: state).contains(.expireNow))
        #expect(!housekeeping.tick(now: waited, state: state).contains(.expireNow), "once")
        var pruned = state
        housekeeping.prune(&pruned, now: waited)
        #expect(pruned.warnings.isEmpty && pruned.openCheckInEnds.isEmpty)
        // The floor carried within one boot is the time: only what is due goes.
        let known = ClockReading(now: now, isSynchronized: false, floor: now)
        #expect(known.latest == now && !RetentionPolicy.awaitsSynchronization(known))
        var kept = state
        var fresh = Housekeeping(persisted: state)
        fresh.prune(&kept, now: known)
        #expect(kept.warnings.count == 1)
    }
}
