/// The station's counts as the metrics endpoint shows them: per whole UTC day, published once the day is over, so a
/// scraper, however often it reads, learns how many taps a day had and never when one happened. The store's size is
/// sampled at the hourly expiry run, in whole MiB, so no number moves at a tap or at a holder's own deletion.
struct DailyTally: Sendable, Equatable {
    private var day: Int64?
    private var atDayStart = StationCounters()
    private var sampledAtExpiryRun: Int?
    /// The counts of the last day that ended while the kiosk ran (since the start, for the first), or nil before one
    /// has.
    private(set) var previousDay: StationCounters?
    /// The store's size at the last expiry run, rounded up to whole MiB.
    private(set) var storeBytes: Int?

    /// Takes the counters as they are at `now` (UNIX seconds).
    mutating func update(_ counters: StationCounters, now: Int64) {
        let today = now >= 0 ? now / 86_400 : (now + 1) / 86_400 - 1
        guard let day else {
            self.day = today
            atDayStart = counters
            return
        }
        guard today != day else { return }
        previousDay = counters.since(atDayStart)
        atDayStart = counters
        self.day = today
    }

    /// Samples the store's size when an expiry run has happened since the last sample (or at the first call).
    mutating func sampleStore(expiryRuns: Int, bytes: () -> Int) {
        guard sampledAtExpiryRun != expiryRuns else { return }
        sampledAtExpiryRun = expiryRuns
        let mebibyte = 1 << 20
        storeBytes = (bytes() + mebibyte - 1) / mebibyte * mebibyte
    }
}

extension StationCounters {
    /// What was counted since `earlier`.
    func since(_ earlier: StationCounters) -> StationCounters {
        var counts = StationCounters()
        counts.taps = taps - earlier.taps
        counts.checkIns = checkIns - earlier.checkIns
        counts.checkOuts = checkOuts - earlier.checkOuts
        counts.alreadyRegistered = alreadyRegistered - earlier.alreadyRegistered
        for (reason, count) in refusals { counts.refusals[reason] = count - earlier.refusals[reason, default: 0] }
        counts.expiryRuns = expiryRuns - earlier.expiryRuns
        counts.expiredStays = expiredStays - earlier.expiredStays
        counts.prints = prints - earlier.prints
        counts.printFailures = printFailures - earlier.printFailures
        counts.enrolments = enrolments - earlier.enrolments
        return counts
    }
}
