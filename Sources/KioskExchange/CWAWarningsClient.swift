import Foundation
public import KioskCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// Fetches Corona-Warn-App hourly trace warning packages, in CWA's distribution layout: `<base>/hour` lists the
/// hours that have packages (a JSON array of hours since the epoch, or `{"oldest": h, "latest": h}`), and
/// `<base>/hour/<h>` is that hour's zip (empty when the hour has nothing). `<base>` is e.g.
/// `https://svc90.main.px.t-online.de/version/v1/twp/country/DE`.
///
/// Like the CKPW/1 path (`WarningsClient`): the index is asked for with `If-None-Match`, only hours not seen yet are
/// fetched, every zip's signature is verified under the configured key before `export.bin` is parsed, and only
/// records about this kiosk's venues (by `locationIdHash`) are kept. State lives in one file, written atomically,
/// so a restart fetches nothing twice.
public actor CWAWarningsClient {
    public let baseURL: String
    let verifier: any StreamingSignatureVerifier
    let statePath: String
    let timeout: Duration
    let maximumArchiveSize: Int
    let maximumExportSize: Int
    public private(set) var state: CWAWarningsState
    /// The kept records, filed by `locationIdHash` for matching at a tap.
    public private(set) var warnings: CWAWarningSet
    /// The region's records, when the kiosk keeps them (`warnings.keepRegion`): every record of each hour taken is
    /// handed to it, besides the venue's kept here.
    public let region: RegionWarnings?
    /// Runs between an hour's signature check and its parse: tests rewrite the stick's file there.
    package var onVerified: @Sendable () -> Void = {}

    package func setOnVerified(_ hook: @escaping @Sendable () -> Void) { onVerified = hook }

    /// Hours listed beyond this many are ignored (the newest are taken): a hostile index cannot make the kiosk
    /// fetch forever. CWA keeps 14 days.
    public static let maximumHoursPerIndex = 24 * 21
    /// What one sync may write at most, all hours together (each hour is bounded by `maximumArchiveSize` too): hours
    /// left over are fetched by the next sync. The index is not signed, so a hostile server could otherwise list 504
    /// hours of the largest allowed size and have one sync write gigabytes to the SD card.
    public static let defaultMaximumBytesPerSync = 128 * 1024 * 1024
    /// Free space the state directory keeps beyond a download (the check-in database must still be written).
    public static let reservedFreeBytes = 32 * 1024 * 1024
    let maximumBytesPerSync: Int
    /// The time in seconds since the epoch (the kiosk's clock): hours after the next one are not fetched.
    let now: @Sendable () -> Int64
    /// Free bytes in a directory, or nil when unknown (`statvfs`); for tests.
    let freeBytes: @Sendable (String) -> Int?

    /// `maximumArchiveSize` bounds each zip, downloaded or read from a stick (`warnings.maxPackageBytes`);
    /// `maximumExportSize` bounds its `export.bin` once inflated (`warnings.maxInflatedBytes`: a zip bomb stops there).
    /// `region` keeps the region's records too; when it found none stored, the hours taken before are forgotten, to
    /// be fetched again for it.
    public init(
        baseURL: String, verifier: any StreamingSignatureVerifier, stateDirectory: String,
        timeout: Duration = .seconds(30), maximumArchiveSize: Int = CWAHourlyPackage.defaultMaximumArchiveSize,
        maximumExportSize: Int = CWAHourlyPackage.defaultMaximumExportSize,
        maximumBytesPerSync: Int = CWAWarningsClient.defaultMaximumBytesPerSync,
        now: @escaping @Sendable () -> Int64 = CWAWarningsClient.systemTime,
        freeBytes: @escaping @Sendable (String) -> Int? = CWAWarningsClient.freeBytes(in:),
        region: RegionWarnings? = nil
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.verifier = verifier
        self.statePath = stateDirectory
        self.timeout = timeout
        self.maximumArchiveSize = maximumArchiveSize
        self.maximumExportSize = maximumExportSize
        self.maximumBytesPerSync = maximumBytesPerSync
        self.now = now
        self.freeBytes = freeBytes
        var state = (try? CWAWarningsState.load(from: stateDirectory)) ?? CWAWarningsState()
        if let region, region.startedEmpty {
            state.seenHours = []
            state.indexETag = nil
        }
        self.region = region
        self.state = state
        self.warnings = state.makeSet()
    }

    /// What a sync did, for the status page and metrics; no record content.
    public struct SyncReport: Equatable, Sendable {
        public var indexUnchanged = false
        /// Hours fetched and taken (empty hours included).
        public var hoursFetched = 0
        public var recordsKept = 0
        /// Packages refused, with the reason (bad signature, truncated, oversized…).
        public var rejected: [String] = []
    }

    /// Fetches what is new. `interestingHashes` are the `locationIdHash`es of the venues this kiosk holds stays for.
    public func sync(interestingHashes: Set<[UInt8]>) async throws(WarningsSyncError) -> SyncReport {
        try await sync(interestingHashes: interestingHashes, from: .remote)
    }

    /// Loads a copy of the distribution layout from a local folder, e.g. a USB stick: `directory` is what `<base>`
    /// is on the server, with each resource as a file named `index` (`<directory>/hour/index` lists the hours,
    /// `<directory>/hour/<h>/index` is that hour's zip), as `CWAHourlyPublisher` writes it. The same checks as a
    /// download (every zip verified under the configured key, its hour checked, hours seen before skipped); only the
    /// transport differs. Throws `.noMedium` when the folder holds no hour index.
    public func sync(interestingHashes: Set<[UInt8]>, fromDirectory directory: String) async throws(WarningsSyncError)
        -> SyncReport
    {
        guard LocalWarningsFiles.isRegularFile(directory + "/hour/index") else { throw .noMedium }
        return try await sync(interestingHashes: interestingHashes, from: .directory(directory))
    }

    private func sync(interestingHashes: Set<[UInt8]>, from source: WarningsFileSource) async throws(WarningsSyncError)
        -> SyncReport
    {
        var report = SyncReport()
        let (status, body, etag) = try await get(
            "/hour", ifNoneMatch: source.isRemote ? state.indexETag : nil, limit: 1024 * 1024,
            from: source)
        if status == 304 {
            report.indexUnchanged = true
            return report
        }
        guard status == 200 else { throw .server(status) }
        // The index is not signed: hours after the next one cannot have been published yet and are not looked at
        // (so listed future hours cannot push the real ones out of the bound), and the newest are fetched first.
        let latest = UInt32(clamping: max(0, now() / 3600 + 1))
        guard let hours = Self.hours(inIndex: body, notAfter: latest) else { throw .malformedIndex }
        var written = 0
        for hour in hours.suffix(Self.maximumHoursPerIndex).reversed() where !state.seenHours.contains(hour) {
            // What one sync writes is bounded, and never eats the space the database needs: what is left waits for
            // the next sync (the index's ETag is not kept, so it is asked for again).
            guard written + maximumArchiveSize <= maximumBytesPerSync else {
                report.rejected.append(
                    "hour \(hour) and older: left for the next sync (one sync writes at most \(maximumBytesPerSync) bytes)"
                )
                break
            }
            if let free = freeBytes(statePath), free < maximumArchiveSize + Self.reservedFreeBytes {
                report.rejected.append(
                    "hour \(hour) and older: not fetched, only \(free / (1024 * 1024)) MiB free in the state directory")
                break
            }
            // The zip goes to a file in the state directory (downloaded, or copied from the folder) and is read from
            // there in chunks, never held whole.
            let path = downloadPath
            let hourStatus: Int
            switch source {
            case .remote:
                do {
                    hourStatus = try await StreamedPackageFile.download(
                        baseURL + "/hour/\(hour)", to: path, limit: maximumArchiveSize, timeout: timeout)
                } catch {
                    report.rejected.append("hour \(hour): \(error)")
                    continue
                }
            case .directory(let directory):
                // A private copy first: what is verified and parsed is what the kiosk alone can write.
                do {
                    try StreamedPackageFile.privateCopy(
                        of: directory + "/hour/\(hour)/index", to: path, limit: maximumArchiveSize)
                    hourStatus = 200
                } catch .oversized {
                    report.rejected.append("hour \(hour): \(CWAPackageError.oversized)")
                    continue
                } catch {
                    hourStatus = 404
                }
            }
            guard hourStatus == 200 else {
                report.rejected.append("hour \(hour): " + source.unavailable(hourStatus))
                continue
            }
            defer { unlink(path) }
            written += LocalWarningsFiles.check(path, limit: maximumArchiveSize).size
            // CWA publishes an empty file for an hour without warnings.
            if LocalWarningsFiles.check(path, limit: maximumArchiveSize).size == 0 {
                state.seenHours.insert(hour)
                report.hoursFetched += 1
                continue
            }
            do {
                let package = try CWAHourlyPackage.open(
                    path: path, verifier: verifier, keepingLocationIdHashes: region == nil ? interestingHashes : nil,
                    expectedHour: hour,
                    maximumArchiveSize: maximumArchiveSize, maximumExportSize: maximumExportSize,
                    onVerified: onVerified)
                report.recordsKept += keep(package, interestingHashes: interestingHashes)
                state.seenHours.insert(hour)
                report.hoursFetched += 1
            } catch {
                report.rejected.append("hour \(hour): \(error)")
            }
        }
        // Remember the index only when every hour in it was taken: otherwise the next sync must look again. A
        // folder's copy says nothing about the server's index.
        if source.isRemote { state.indexETag = report.rejected.isEmpty ? etag : nil }
        try persist()
        return report
    }

    /// Loads hourly packages that staff brought on a USB stick: every `*.zip` in `directory`.
    public func loadFromDirectory(_ directory: String, interestingHashes: Set<[UInt8]>) throws(WarningsSyncError)
        -> SyncReport
    {
        var report = SyncReport()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { throw .noMedium }
        for name in names.sorted() where name.hasSuffix(".zip") {
            let path = directory + "/" + name
            // A stick's file names are anyone's text: never echoed raw to a screen or a terminal.
            let shown = OutsideText.neutralized(name)
            switch LocalWarningsFiles.check(path, limit: maximumArchiveSize).refusal {
            case nil: break
            case .oversized?:
                report.rejected.append("\(shown): \(CWAPackageError.oversized)")
                continue
            default:
                report.rejected.append("\(shown): not a readable file")
                continue
            }
            do {
                try StreamedPackageFile.privateCopy(of: path, to: downloadPath, limit: maximumArchiveSize)
            } catch {
                report.rejected.append("\(shown): \(error)")
                continue
            }
            defer { unlink(downloadPath) }
            do {
                let package = try CWAHourlyPackage.open(
                    path: downloadPath, verifier: verifier,
                    keepingLocationIdHashes: region == nil ? interestingHashes : nil,
                    maximumArchiveSize: maximumArchiveSize, maximumExportSize: maximumExportSize,
                    onVerified: onVerified)
                report.recordsKept += keep(package, interestingHashes: interestingHashes)
                report.hoursFetched += 1
            } catch {
                report.rejected.append("\(shown): \(error)")
            }
        }
        try persist()
        return report
    }

    /// How long a kept record may concern a stay the kiosk still holds: a stay is kept 14 days after its end, and
    /// a record published at an hour concerns stays that ended before it.
    public static let recordRetention: Int64 = 15 * 86_400

    /// Drops kept records about venues no longer interesting, and records that can no longer concern a stay the kiosk
    /// holds (`now` minus `recordRetention`): health-authority warnings by their window's end, protected reports by
    /// the hour of the package they came in. Hours seen longer ago than an index lists are forgotten too.
    public func retain(locationIdHashes hashes: Set<[UInt8]>, now: Int64) throws(WarningsSyncError) {
        warnings.retain(locationIdHashes: hashes)
        let cutoff = now - Self.recordRetention
        let nowHour = UInt32(clamping: max(0, now / 3600))
        var hours = state.reportHours ?? [:]
        warnings.drop(warningsEndingBefore: cutoff) { report in
            let hex = Hex.encode(report.serialized)
            // A report kept before hours were recorded starts its time now.
            let hour = hours[hex] ?? nowHour
            hours[hex] = hour
            return Int64(hour) * 3600 < cutoff
        }
        state.reportHours = hours
        let oldestListed = Int64(nowHour) - Int64(Self.maximumHoursPerIndex)
        state.seenHours = state.seenHours.filter { Int64($0) >= oldestListed }
        try persist()
    }

    /// The system's time in seconds since the epoch.
    public static func systemTime() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// Free bytes for an unprivileged writer in the file system of `directory`, or nil when it cannot be asked. The
    /// corresponding C function is `statvfs`.
    public static func freeBytes(in directory: String) -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }

    /// The hours an index lists, ascending: a JSON array of integers, or CWA's `{"oldest": h, "latest": h}`; hours
    /// after `notAfter` are left out (a range ends there).
    package static func hours(inIndex body: [UInt8], notAfter: UInt32 = .max) -> [UInt32]? {
        if let list = try? JSONDecoder().decode([UInt32].self, from: Data(body)) {
            return Array(Set(list.filter { $0 <= notAfter })).sorted()
        }
        struct Range: Decodable {
            let oldest: UInt32?
            let latest: UInt32?
        }
        guard let range = try? JSONDecoder().decode(Range.self, from: Data(body)) else { return nil }
        guard let oldest = range.oldest, let listed = range.latest else { return [] }
        guard oldest <= listed else { return nil }
        let latest = min(listed, notAfter)
        guard oldest <= latest else { return [] }
        return Array(max(oldest, latest - min(latest, UInt32(maximumHoursPerIndex - 1)))...latest)
    }

    /// Where an hour's zip is downloaded to while it is checked and read (the state directory, removed after).
    private var downloadPath: String { statePath + "/cwa-hour.download" }

    /// Keeps the package's records about the kiosk's venues (and hands the region every record, when it is kept).
    private func keep(_ package: CWATraceWarningPackage, interestingHashes: Set<[UInt8]>) -> Int {
        region?.add(cwa: package)
        let kept = package.keeping(locationIdHashes: interestingHashes)
        var hours = state.reportHours ?? [:]
        for report in kept.checkInProtectedReports where hours[Hex.encode(report.serialized)] == nil {
            hours[Hex.encode(report.serialized)] = package.hour
        }
        state.reportHours = hours
        return warnings.add(warnings: kept.timeIntervalWarnings, reports: kept.checkInProtectedReports)
    }

    private func persist() throws(WarningsSyncError) {
        // The region's records are written before the hours they came in are marked as taken.
        try region?.commit()
        state.warnings = warnings.warningsByHash.values.flatMap { $0.map { Hex.encode($0.serialized) } }.sorted()
        state.reports = warnings.reportsByHash.values.flatMap { $0.map { Hex.encode($0.serialized) } }.sorted()
        let kept = Set(state.reports)
        state.reportHours = state.reportHours?.filter { kept.contains($0.key) }
        do { try state.save(to: statePath) } catch { throw .storage }
    }

    private func get(
        _ path: String, ifNoneMatch etag: String?, limit: Int,
        from source: WarningsFileSource
    ) async throws(WarningsSyncError) -> (Int, [UInt8], String?) {
        switch source {
        case .remote: try await boundedGet(baseURL + path, ifNoneMatch: etag, limit: limit, timeout: timeout)
        // On disk every resource is a file named `index` in a folder of the resource's name.
        case .directory(let directory): try LocalWarningsFiles.get(directory + path + "/index", limit: limit)
        }
    }
}

/// What the CWA warnings client remembers between syncs.
public struct CWAWarningsState: Codable, Equatable, Sendable {
    public var indexETag: String?
    public var seenHours: Set<UInt32> = []
    /// Kept `TraceTimeIntervalWarning`s, hex-encoded protobuf.
    public var warnings: [String] = []
    /// Kept `CheckInProtectedReport`s, hex-encoded protobuf.
    public var reports: [String] = []
    /// The hour of the package each kept report came in (by its hex), to let it go when it can no longer concern a
    /// stay the kiosk holds. Absent in a state written before it was kept.
    public var reportHours: [String: UInt32]?

    public init() {}

    static let fileName = "cwa-warnings.json"

    func makeSet() -> CWAWarningSet {
        CWAWarningSet(
            warnings: warnings.compactMap(Hex.decode).compactMap { try? CWATraceWarning(serialized: $0) },
            reports: reports.compactMap(Hex.decode).compactMap { try? CWAProtectedReport(serialized: $0) })
    }

    static func load(from directory: String) throws -> CWAWarningsState {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else {
            return CWAWarningsState()
        }
        return try JSONDecoder().decode(CWAWarningsState.self, from: data)
    }

    func save(to directory: String) throws {
        try AtomicFile.write(Array(try JSONEncoder().encode(self)), named: Self.fileName, in: directory)
    }
}
