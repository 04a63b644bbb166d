import Foundation
public import KioskCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// Fetches the health authority's warnings: the signed index first (with `If-None-Match`), then only the packages
/// not seen yet, each verified against the configured key before a byte of it is read. Only records that could
/// concern this kiosk's venues are kept, so memory and disk stay small however large the feed: a package is never
/// held whole — it is downloaded into a file in the state directory (at most `maximumPackageSize` bytes), streamed
/// through SHA-256 to check its signature, read again in chunks keeping only the records under the kiosk's tags
/// (`WarningPackageReader`), and removed.
///
/// State (the index's ETag, the packages seen, the records kept) lives in one file, written atomically.
public actor WarningsClient {
    public let baseURL: String
    let verifier: any StreamingSignatureVerifier
    let statePath: String
    let timeout: Duration
    let maximumPackageSize: Int
    public private(set) var state: WarningsState
    /// The kept records, indexed by tag, for matching at a tap: rebuilt when the records change, never per tap.
    public private(set) var index: WarningIndex
    /// The region's records, when the kiosk keeps them (`warnings.keepRegion`): every record of each package taken
    /// is handed to it, besides the venue's kept here.
    public let region: RegionWarnings?
    /// Runs between a package's signature check and its parse: tests rewrite the stick's file there.
    package var onVerified: @Sendable () -> Void = {}

    package func setOnVerified(_ hook: @escaping @Sendable () -> Void) { onVerified = hook }

    /// `baseURL` is where `index.json` lives (e.g. `https://warnings.example/warnings`). `maximumPackageSize` bounds
    /// each package, downloaded or read from a stick (`warnings.maxPackageBytes`). `region` keeps the region's
    /// records too; when it found none stored, the packages taken before are forgotten, to be fetched again for it.
    public init(
        baseURL: String, verifier: any StreamingSignatureVerifier, stateDirectory: String,
        timeout: Duration = .seconds(30), maximumPackageSize: Int = WarningPackage.defaultMaximumSize,
        region: RegionWarnings? = nil
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.verifier = verifier
        self.statePath = stateDirectory
        self.timeout = timeout
        self.maximumPackageSize = maximumPackageSize
        var state = (try? WarningsState.load(from: stateDirectory)) ?? WarningsState()
        if let region, region.startedEmpty {
            state.seenPackages = []
            state.indexETag = nil
        }
        self.region = region
        self.state = state
        self.index = state.makeIndex()
    }

    /// What a sync did, for the status page and metrics; no record content.
    public struct SyncReport: Equatable, Sendable {
        public var indexUnchanged = false
        public var packagesFetched = 0
        public var recordsKept = 0
        /// Packages refused, with the reason (bad signature, truncated, oversized…).
        public var rejected: [String] = []
    }

    /// Fetches what is new. `interestingTags` are the CKPR/1 tags of this kiosk's venues on the days it holds stays.
    public func sync(interestingTags: Set<[UInt8]>) async throws(WarningsSyncError) -> SyncReport {
        try await sync(interestingTags: interestingTags, from: .remote)
    }

    /// Loads a copy of what the authority publishes (`index.json`, `index.json.sig` and the packages beside them)
    /// from a local folder, e.g. a USB stick: the same checks as a download (signed index, every package verified
    /// under the configured key before it is read, packages seen before skipped), only the transport differs.
    /// Throws `.noMedium` when the folder holds no `index.json`.
    public func sync(interestingTags: Set<[UInt8]>, fromDirectory directory: String) async throws(WarningsSyncError)
        -> SyncReport
    {
        guard LocalWarningsFiles.isRegularFile(directory + "/index.json") else { throw .noMedium }
        return try await sync(interestingTags: interestingTags, from: .directory(directory))
    }

    private func sync(interestingTags: Set<[UInt8]>, from source: WarningsFileSource) async throws(WarningsSyncError)
        -> SyncReport
    {
        var report = SyncReport()
        let (status, body, etag) = try await get(
            "/" + "index.json", ifNoneMatch: source.isRemote ? state.indexETag : nil,
            limit: 4 * 1024 * 1024, from: source)
        if status == 304 {
            report.indexUnchanged = true
            return report
        }
        guard status == 200 else { throw .server(status) }
        let (signatureStatus, signature, _) = try await get(
            "/index.json.sig", ifNoneMatch: nil, limit: 1024, from: source)
        guard signatureStatus == 200, verifier.isValidSignature(signature, for: body) else { throw .badIndexSignature }
        guard let index = PublishedIndex(body: body) else { throw .malformedIndex }
        // The authority's risk criteria, signed with the index: none published means CWA's; invalid ones are refused
        // and the previous ones stay.
        switch PublishedIndex.parameters(in: body) {
        case .absent: state.parameters = nil
        case .published(let published):
            do throws(PublishedParametersError) {
                state.parameters = try PresenceTracingParameters.cwaProduction.applying(published)
            } catch {
                report.rejected.append("presence-tracing parameters: \(error) (the previous ones are kept)")
            }
        case .malformed:
            report.rejected.append(
                "presence-tracing parameters: not in the documented form (the previous ones are kept)")
        }
        for entry in index.packages.sorted(by: { $0.sequence < $1.sequence })
        where !state.seenPackages.contains(entry.sequence) {
            guard entry.file.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }),
                entry.signature.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" })
            else {
                report.rejected.append("package \(entry.sequence): unsafe file name")
                continue
            }
            let (sigStatus, packageSignature, _) = try await get(
                "/" + entry.signature, ifNoneMatch: nil, limit: 1024, from: source)
            let packageStatus: Int
            // The package goes to a file in the state directory (downloaded, or copied from the folder) and is read
            // from there: what is verified and parsed is what the kiosk alone can write.
            let path = downloadPath
            switch source {
            case .remote:
                do {
                    packageStatus =
                        sigStatus == 200
                        ? try await StreamedPackageFile.download(
                            baseURL + "/" + entry.file, to: path, limit: maximumPackageSize, timeout: timeout) : 0
                } catch {
                    report.rejected.append("package \(entry.sequence): \(error)")
                    continue
                }
            case .directory(let directory):
                do {
                    try StreamedPackageFile.privateCopy(
                        of: directory + "/" + entry.file, to: path, limit: maximumPackageSize)
                    packageStatus = 200
                } catch .oversized(let limit) {
                    report.rejected.append("package \(entry.sequence): \(PackageFileFailure.oversized(limit: limit))")
                    continue
                } catch {
                    packageStatus = 404
                }
            }
            guard packageStatus == 200, sigStatus == 200 else {
                // Not there yet (a CDN still filling): try again at the next sync.
                report.rejected.append(
                    "package \(entry.sequence): " + source.unavailable(sigStatus == 200 ? packageStatus : sigStatus))
                continue
            }
            defer { unlink(path) }
            do throws(PackageFileFailure) {
                let package = try StreamedPackageFile.readCKPW(
                    path, signature: packageSignature, verifier: verifier, limit: maximumPackageSize,
                    keepingTags: interestingTags, gatheringAll: region != nil, onVerified: onVerified)
                region?.add(ckprRecords: package.all, publishedAt: Int64(clamping: package.createdAt))
                report.recordsKept += state.add(package.kept, keepingTags: interestingTags)
                report.packagesFetched += 1
                state.seenPackages.insert(entry.sequence)
            } catch {
                report.rejected.append("package \(entry.sequence): \(error)")
            }
        }
        // Remember the index only when every package in it was taken: otherwise the next sync must look again. A
        // folder's copy says nothing about the server's index.
        if source.isRemote { state.indexETag = report.rejected.isEmpty ? etag : nil }
        try persist()
        return report
    }

    /// Loads packages that staff brought on a USB stick: every `*.bin` with a `*.bin.sig` beside it in `directory`.
    public func loadFromDirectory(_ directory: String, interestingTags: Set<[UInt8]>) throws(WarningsSyncError)
        -> SyncReport
    {
        var report = SyncReport()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { throw .noMedium }
        // CrowdNotifier event files (`crowdnotifier-v3.bin`, …) lie beside the packages; their own client reads them.
        for name in names.sorted() where name.hasSuffix(".bin") && !Self.isCrowdNotifierFile(name) {
            let path = directory + "/" + name
            // A stick's file names are anyone's text: never echoed raw to a screen or a terminal.
            let shown = OutsideText.neutralized(name)
            switch LocalWarningsFiles.check(path, limit: maximumPackageSize).refusal {
            case nil: break
            case .oversized?:
                report.rejected.append("\(shown): larger than a package may be")
                continue
            default:
                report.rejected.append("\(shown): not a readable file")
                continue
            }
            guard case .bytes(let signature) = LocalWarningsFiles.read(path + ".sig", limit: 1024) else {
                report.rejected.append("\(shown): no signature beside it")
                continue
            }
            defer { unlink(downloadPath) }
            do throws(PackageFileFailure) {
                // Read from a private copy: what is verified and parsed is what the kiosk alone can write.
                try StreamedPackageFile.privateCopy(of: path, to: downloadPath, limit: maximumPackageSize)
                let package = try StreamedPackageFile.readCKPW(
                    downloadPath, signature: signature, verifier: verifier, limit: maximumPackageSize,
                    keepingTags: interestingTags, gatheringAll: region != nil, onVerified: onVerified)
                region?.add(ckprRecords: package.all, publishedAt: Int64(clamping: package.createdAt))
                report.recordsKept += state.add(package.kept, keepingTags: interestingTags)
                report.packagesFetched += 1
            } catch .oversized {
                report.rejected.append("\(shown): larger than a package may be")
            } catch .unreadable {
                report.rejected.append("\(shown): not a readable file")
            } catch {
                report.rejected.append("\(shown): \(error)")
            }
        }
        try persist()
        return report
    }

    /// Whether `name` is one of the CrowdNotifier event files published beside the packages.
    public static func isCrowdNotifierFile(_ name: String) -> Bool {
        CrowdNotifierEvent.Form.allCases.contains { name == CrowdNotifierEventPackage.fileName($0) }
    }

    /// The presence-tracing parameters matching uses: those the authority published with its signed index, CWA's
    /// production values when it publishes none.
    public var parameters: PresenceTracingParameters { state.parameters ?? .cwaProduction }

    /// Drops kept records whose tags no longer matter (their stays expired).
    public func retain(tags: Set<[UInt8]>) throws(WarningsSyncError) {
        state.retain(tags: tags)
        try persist()
    }

    /// Seconds to wait before the next attempt after `failures` failed syncs in a row: 1 min doubling to 1 h.
    public static func backoff(afterFailures failures: Int) -> Int64 {
        guard failures > 0 else { return 0 }
        return min(3600, 60 << min(failures - 1, 6))
    }

    /// Where a package is downloaded to while it is checked and read: in the state directory (the kiosk's own,
    /// mode 0700), one at a time, removed as soon as it is read (and replaced by the next download if a power cut
    /// left it).
    private var downloadPath: String { statePath + "/ckpw-package.download" }

    private func persist() throws(WarningsSyncError) {
        index = state.makeIndex()
        // The region's records are written before the packages they came in are marked as taken.
        try region?.commit()
        do { try state.save(to: statePath) } catch { throw .storage }
    }

    private func get(
        _ path: String, ifNoneMatch etag: String?, limit: Int,
        from source: WarningsFileSource
    ) async throws(WarningsSyncError) -> (Int, [UInt8], String?) {
        switch source {
        case .remote: try await boundedGet(baseURL + path, ifNoneMatch: etag, limit: limit, timeout: timeout)
        case .directory(let directory): try LocalWarningsFiles.get(directory + path, limit: limit)
        }
    }
}

/// The published index as the client reads it (the same shape the authority writes).
package struct PublishedIndex: Decodable {
    package struct Entry: Decodable {
        package let sequence: Int
        package let file: String
        package let signature: String
    }
    package let packages: [Entry]

    /// The index of a (signature-checked) `index.json`'s bytes; nil when they are not one.
    package init?(body: [UInt8]) {
        guard let index = try? JSONDecoder().decode(PublishedIndex.self, from: Data(body)) else { return nil }
        self = index
    }

    package enum Parameters {
        case absent
        case published(PresenceTracingParameters.Published)
        case malformed
    }

    /// The `presenceTracingParameters` member of the index's bytes.
    package static func parameters(in body: [UInt8]) -> Parameters {
        struct Holder: Decodable { let presenceTracingParameters: PresenceTracingParameters.Published? }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let member = object["presenceTracingParameters"], !(member is NSNull)
        else { return .absent }
        guard let holder = try? JSONDecoder().decode(Holder.self, from: Data(body)),
            let published = holder.presenceTracingParameters
        else { return .malformed }
        return .published(published)
    }
}

/// What the warnings client remembers between syncs.
public struct WarningsState: Codable, Equatable, Sendable {
    public var indexETag: String?
    public var seenPackages: Set<Int> = []
    /// Kept records, hex-encoded.
    public var records: [String] = []
    /// The risk criteria last published with a signed index; nil: none (CWA's production values apply).
    public var parameters: PresenceTracingParameters?

    public init() {}

    static let fileName = "warnings.json"

    mutating func add(_ new: [[UInt8]], keepingTags tags: Set<[UInt8]>) -> Int {
        var known = Set(records)
        var kept = 0
        for record in new where record.count == CKPR.recordLength && tags.contains(Array(record[0..<CKPR.tagLength])) {
            let hex = Hex.encode(record)
            if known.insert(hex).inserted {
                records.append(hex)
                kept += 1
            }
        }
        return kept
    }

    mutating func retain(tags: Set<[UInt8]>) {
        records = records.filter { hex in
            Hex.decode(hex).map { tags.contains(Array($0.prefix(CKPR.tagLength))) } ?? false
        }
    }

    func makeIndex() -> WarningIndex {
        var index = WarningIndex()
        let all = records.compactMap(Hex.decode)
        index.add(all, keepingTags: Set(all.map { Array($0.prefix(CKPR.tagLength)) }))
        return index
    }

    static func load(from directory: String) throws -> WarningsState {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else {
            return WarningsState()
        }
        return try JSONDecoder().decode(WarningsState.self, from: data)
    }

    func save(to directory: String) throws {
        try AtomicFile.write(Array(try JSONEncoder().encode(self)), named: Self.fileName, in: directory)
    }
}

/// Why a sync did not complete. Messages carry no record content.
public enum WarningsSyncError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreachable
    case server(Int)
    case badIndexSignature
    case malformedIndex
    case oversized
    case noMedium
    case storage

    public var description: String {
        switch self {
        case .unreachable: "the warnings server cannot be reached"
        case .server(let status): "the warnings server answered \(status)"
        case .badIndexSignature: "the warnings index is not signed by the configured authority key"
        case .malformedIndex: "the warnings index is malformed"
        case .oversized: "a warnings file is larger than allowed"
        case .noMedium: "no warnings folder found on the USB stick"
        case .storage: "the warnings state could not be saved"
        }
    }
}
