public import KioskCore
internal import Synchronization

/// The published warnings of the kiosk's whole region, kept when `warnings.keepRegion` is on besides what each client
/// keeps for its own venue: a diary card carries stays from any venue of the region, and they are matched at its
/// tap. The clients (`WarningsClient`, `CWAWarningsClient`) hand it every record of each package they accepted —
/// after their own signature check and parse, so there is one decision about a package and one parser — and it keeps
/// them in a `RegionWarningIndex`, dropping what is older than the longest maximum age matching may use. The records
/// are public (the authority publishes them); nothing personal is kept here.
///
/// **In the file, not in memory.** The records lie in a file of their own (`region-warnings.bin`, in the warnings
/// state directory, `RegionWarningIndex+Stored.swift`), sorted; the index in memory holds a compact key per record
/// (8 bytes) and reads a record from the file only when a lookup's key is among them (`RegionWarningsFile`, a
/// descriptor kept open). Records added by a sync are merged into the file by a rewrite that streams the old file
/// and the new records, sorted, into a new file (`AtomicFile.Writer`: the old file stays until the new one is whole),
/// before a client writes which packages it took; a sync adding many records merges them each time
/// `defaultPendingLimit` wait, so that they are never all held at once. A lookup whose read fails throws: nothing was
/// checked.
///
/// **A restart.** Packages are read once and removed, and a USB stick's leave with the stick, so neither what the
/// clients keep on disk (their venue's records only) nor a new download could give the region back in every case: at
/// start the compact keys are read from the file a piece at a time (a file of version 1, which held the index whole,
/// is converted once), and records past the retention are dropped from it. When the file is missing or unreadable
/// the index starts empty and `startedEmpty` is true: the clients then forget which packages and hours they took, so
/// that the next sync downloads again what the authority still publishes.
public final class RegionWarnings: Sendable {
    public static let fileName = "region-warnings.bin"
    /// How many records may wait to be merged into the file before the next package is taken (about 7.6 MiB of
    /// CKPR/1 records, and as much again while they are sorted).
    static let defaultPendingLimit = 100_000

    /// How long records are kept: the longest maximum age published parameters may set (`maxCheckInAgeInDays`,
    /// 1–14), so that a change of parameters loses nothing; matching applies the parameters in force.
    public static let retention: PresenceTracingParameters = {
        var parameters = PresenceTracingParameters.cwaProduction
        parameters.maxCheckInAgeInDays = 14
        return parameters
    }()

    let directory: String
    /// The time (UNIX seconds) records are judged by.
    let now: @Sendable () -> Int64
    let pendingLimit: Int
    private let kept: Mutex<RegionWarningIndex>
    /// Records of packages accepted since the last merge.
    private let pending = Mutex(Pending())
    /// Held for a whole merge or prune (a rewrite of the file), so that they do not interleave; `kept` stays
    /// readable.
    private let writing = Mutex(())
    /// Whether no stored index was found at start (none written yet, or unreadable).
    public let startedEmpty: Bool

    /// Records waiting to be merged, and whether some that were taken to be merged early could not be written.
    private struct Pending: Sendable {
        var builder: RegionWarningIndex.Builder?
        var lost = false
    }

    /// Reads the stored index from `stateDirectory`, if there is one, and drops from it what is past the retention.
    public convenience init(stateDirectory: String, now: @escaping @Sendable () -> Int64) {
        self.init(stateDirectory: stateDirectory, now: now, pendingLimit: Self.defaultPendingLimit)
    }

    init(stateDirectory: String, now: @escaping @Sendable () -> Int64, pendingLimit: Int) {
        directory = stateDirectory
        self.now = now
        self.pendingLimit = pendingLimit
        let restored = Self.restore(in: stateDirectory, now: now())
        startedEmpty = restored == nil
        kept = Mutex(restored ?? RegionWarningIndex())
        // Failing, the records stay until the next prune: matching judges their age itself.
        try? prune(now: now())
    }

    /// The index over the stored file; nil when there is none or it is not a stored index. A file of version 1 is
    /// read whole, built, and written again as the current version (kept in memory when that fails).
    private static func restore(in directory: String, now: Int64) -> RegionWarningIndex? {
        guard let file = try? RegionWarningsFile(path: directory + "/" + fileName) else { return nil }
        switch try? RegionWarningIndex.stored(in: file) {
        case .index(let index)?:
            return index
        case .version1(let builder)?:
            let built = builder.build(now: now, parameters: retention)
            return (try? replaceFile(in: directory, with: built.rewriting(now: now, parameters: retention))) ?? built
        case nil:
            return nil
        }
    }

    /// The region's records for matching (a copy that shares the index's keys and file).
    public var index: RegionWarningIndex { kept.withLock { $0 } }

    /// Adds every record of a CKPW/1 package a client accepted (`WarningPackageReader.Result.all`).
    public func add(ckprRecords records: ContiguousArray<UInt8>, publishedAt: Int64) {
        gather { $0.add(ckprRecordBytes: records, publishedAt: publishedAt) }
    }

    /// Adds every record of a CWA hourly package a client accepted, published at its hour.
    public func add(cwa package: CWATraceWarningPackage) {
        gather {
            $0.add(
                cwaWarnings: package.timeIntervalWarnings, reports: package.checkInProtectedReports,
                publishedAt: Int64(package.hour) * 3600)
        }
    }

    /// Merges the records added since the last merge into the file and the index; nothing when none were added.
    /// The clients call it before they write which packages they took; it throws when any record they added since
    /// the last commit could not be written.
    public func commit() throws(WarningsSyncError) {
        try mergePending()
    }

    /// Drops records past the retention at `now` (UNIX seconds), from the file and the index: a rewrite of the file
    /// when, and only when, it holds such records (they age by whole days: at most one rewrite a day).
    public func prune(now: Int64) throws(WarningsSyncError) {
        try writing.withLock { (_: inout Void) throws(WarningsSyncError) in
            let current = index
            guard current.holdsRecords(pastAgeAt: now, parameters: Self.retention) else { return }
            let pruned = try Self.replaceFile(
                in: directory, with: current.rewriting(now: now, parameters: Self.retention))
            kept.withLock { $0 = pruned }
        }
    }

    /// Adds records to those waiting; merges them once `pendingLimit` wait (a failure is told by the next commit).
    private func gather(_ adding: (inout RegionWarningIndex.Builder) -> Void) {
        let waiting = pending.withLock { pending in
            var builder = pending.builder ?? RegionWarningIndex.Builder()
            pending.builder = nil
            adding(&builder)
            pending.builder = builder
            return builder.count
        }
        guard waiting >= pendingLimit else { return }
        do { try mergePending() } catch { pending.withLock { $0.lost = true } }
    }

    private func mergePending() throws(WarningsSyncError) {
        try writing.withLock { (_: inout Void) throws(WarningsSyncError) in
            let taken = pending.withLock { pending in
                defer { pending = Pending() }
                return pending
            }
            guard !taken.lost else { throw .storage }
            guard let added = taken.builder else { return }
            let merged = try Self.replaceFile(
                in: directory, with: index.rewriting(adding: added, now: now(), parameters: Self.retention))
            kept.withLock { $0 = merged }
        }
    }

    /// Writes `rewrite` as the stored file, atomically (the file it reads from stays until the new one is whole), and
    /// returns the index over the new file.
    private static func replaceFile(in directory: String, with rewrite: RegionWarningIndex.Rewrite)
        throws(WarningsSyncError) -> RegionWarningIndex
    {
        var rewrite = rewrite
        do {
            let output = try AtomicFile.Writer(named: fileName, in: directory)
            while let piece = try rewrite.next() { try output.append(piece) }
            try output.commit()
            return try rewrite.index(over: try RegionWarningsFile(path: directory + "/" + fileName))
        } catch {
            throw .storage
        }
    }
}
