/// Receipts handed to the printer and not answered yet, by kind: kept only to offer a failed one again to the person
/// it was printed for. A child of the station: it says which job an answer was for, the parent decides what follows.
struct PrintQueue: Sendable {
    private var jobs: [PrintJob.Kind: PrintJob] = [:]

    /// `.print(job)`, remembering the job until the printer answers.
    mutating func print(_ job: PrintJob, crypto: any CryptoProvider) -> StationAction {
        if var earlier = jobs.updateValue(job, forKey: job.kind) { earlier.wipe(using: crypto) }
        return .print(job)
    }

    /// The printer answered for `kind`: the job it was, if it is still known (the caller wipes it).
    mutating func answered(_ kind: PrintJob.Kind) -> PrintJob? { jobs.removeValue(forKey: kind) }

    /// Forgets every job not answered yet (wiping what they hold).
    mutating func wipe(using crypto: any CryptoProvider) {
        for var job in jobs.values { job.wipe(using: crypto) }
        jobs = [:]
    }
}
