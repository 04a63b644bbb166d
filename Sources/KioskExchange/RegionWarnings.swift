internal import Foundation
public import KioskCore
internal import Synchronization

/// The published warnings of the kiosk's whole region, kept when `warnings.keepRegion` is on besides what each client
/// keeps for its own venue: a diary card carries stays from any venue of the region, and they are matched at its
/// tap. The clients (`WarningsClient`, `CWAWarningsClient`) hand it every record of each package they accepted —
/// after their own signature check and parse, so there is one decision about a package and one parser — and it keeps
/// them in a `RegionWarningIndex`, dropping what is older than the longest maximum age matching may use. The records
/// are public (the authority publishes them); nothing personal is kept here.
///
/// **A restart.** Packages are read once and removed, and a USB stick's leave with the stick, so neither what the
/// clients keep on disk (their venue's records only) nor a new download could give the region back in every case.
/// The index is therefore written to a file of its own (`region-warnings.bin`, `RegionWarningIndex.stored`, in the
/// warnings state directory, atomically), before a client writes which packages it took, and read back at start.
/// When the file is missing or unreadable the index starts empty and `startedEmpty` is true: the clients then forget
/// which packages and hours they took, so that the next sync downloads again what the authority still publishes.
public final class RegionWarnings: Sendable {
    public static let fileName = "region-warnings.bin"

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
    private let kept: Mutex<RegionWarningIndex>
    /// Records of packages accepted since the last commit.
    private let pending = Mutex<RegionWarningIndex.Builder?>(nil)
    /// Held for a whole commit or prune (merge and write), so that they do not interleave; `kept` stays readable.
    private let writing = Mutex<Int64>(Int64.min)
    /// Whether no stored index was found at start (none written yet, or unreadable).
    public let startedEmpty: Bool

    /// Reads the stored index from `stateDirectory`, if there is one.
    public init(stateDirectory: String, now: @escaping @Sendable () -> Int64) {
        directory = stateDirectory
        self.now = now
        let restored = Self.restore(from: stateDirectory + "/" + Self.fileName)
        startedEmpty = restored == nil
        kept = Mutex((restored ?? RegionWarningIndex.Builder()).build(now: now(), parameters: Self.retention))
    }

    /// The builder of a stored index's bytes; nil when there is no file or it is not a stored index. The file's
    /// bytes are let go before the records are sorted.
    private static func restore(from path: String) -> RegionWarningIndex.Builder? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { RegionWarningIndex.Builder(stored: $0) }
    }

    /// The region's records for matching (a copy that shares the index's storage).
    public var index: RegionWarningIndex { kept.withLock { $0 } }

    /// Adds every record of a CKPW/1 package a client accepted (`WarningPackageReader.Result.all`).
    func add(ckprRecords records: ContiguousArray<UInt8>, publishedAt: Int64) {
        pending.withLock { builder in
            var added = builder ?? RegionWarningIndex.Builder()
            added.add(ckprRecordBytes: records, publishedAt: publishedAt)
            builder = added
        }
    }

    /// Adds every record of a CWA hourly package a client accepted, published at its hour.
    func add(cwa package: CWATraceWarningPackage) {
        pending.withLock { builder in
            var added = builder ?? RegionWarningIndex.Builder()
            added.add(
                cwaWarnings: package.timeIntervalWarnings, reports: package.checkInProtectedReports,
                publishedAt: Int64(package.hour) * 3600)
            builder = added
        }
    }

    /// Merges the records added since the last commit into the index and writes it; nothing when none were added.
    /// The clients call it before they write which packages they took.
    public func commit() throws(WarningsSyncError) {
        try writing.withLock { (_: inout Int64) throws(WarningsSyncError) in
            guard
                let added = pending.withLock({ builder in
                    defer { builder = nil }
                    return builder
                })
            else { return }
            let merged = index.merging(added, now: now(), parameters: Self.retention)
            kept.withLock { $0 = merged }
            try write(merged)
        }
    }

    /// Drops records past the retention at `now` (UNIX seconds), from memory and from the file; at most once a UTC
    /// day, as records age by whole days. The first prune after start writes the file in any case: what was read
    /// back at start was pruned already, but only in memory.
    public func prune(now: Int64) throws(WarningsSyncError) {
        try writing.withLock { (prunedDay: inout Int64) throws(WarningsSyncError) in
            let day = StayPreparation.floorTo(now, 86_400) / 86_400
            guard day > prunedDay else { return }
            let first = prunedDay == Int64.min
            prunedDay = day
            var pruned = index
            let before = (pruned.ckprRecordCount, pruned.cwaWarningCount, pruned.cwaReportCount)
            pruned.prune(now: now, parameters: Self.retention)
            guard (pruned.ckprRecordCount, pruned.cwaWarningCount, pruned.cwaReportCount) != before || first
            else { return }
            kept.withLock { $0 = pruned }
            try write(pruned)
        }
    }

    private func write(_ index: RegionWarningIndex) throws(WarningsSyncError) {
        do { try AtomicFile.write(index.stored, named: Self.fileName, in: directory) } catch { throw .storage }
    }
}
