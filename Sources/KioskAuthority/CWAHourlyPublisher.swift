import Foundation
public import KioskCore
import KioskExchange
public import KioskOpenSSL

/// Publishes Corona-Warn-App hourly trace warning packages, in CWA's distribution layout under `publishDirectory`:
/// `twp/country/<region>/hour/index` (a JSON array of the hours that have packages) and
/// `twp/country/<region>/hour/<hour>/index` (that hour's zip: `export.bin` + `export.sig`). `AuthorityServer` serves
/// them as CWA's CDN does, at `/cwa/twp/country/<region>/hour` and `…/hour/<hour>`.
///
/// Two kinds of records wait in a pool (`stateDirectory`) until the next package: health-authority warnings about a
/// venue and a time window (`timeIntervalWarnings`) and accepted CWA protected reports (`checkInProtectedReports`).
/// Each package is a CSPRNG shuffle of the pool, so nothing tells which records arrived together.
public actor CWAHourlyPublisher {
    public let stateDirectory: String
    public let publishDirectory: String
    public let region: String
    let signer: ECDSAPrivateKey
    let crypto: OpenSSLCrypto

    /// The longest window one warning may cover.
    public static let maximumWarningSeconds: Int64 = 14 * 86_400

    public init(
        stateDirectory: String, publishDirectory: String, signer: ECDSAPrivateKey, region: String = "DE",
        crypto: OpenSSLCrypto = OpenSSLCrypto()
    ) throws(CWAPublishError) {
        guard region.count == 2, region.allSatisfy({ $0.isASCII && $0.isUppercase }) else { throw .invalidRegion }
        do {
            for directory in [stateDirectory, publishDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
        } catch {
            throw .storage
        }
        self.stateDirectory = stateDirectory
        self.publishDirectory = publishDirectory
        self.region = region
        self.signer = signer
        self.crypto = crypto
    }

    /// `twp/country/<region>/hour` under the publish directory.
    public nonisolated var hourDirectory: String { publishDirectory + "/twp/country/" + region + "/hour" }

    // MARK: Records

    /// A contact tracer's warning: the venue `locationId`, a time window in UNIX seconds (widened to whole 10-minute
    /// intervals) and a transmission risk level (5 by default, as CWA's host warnings).
    @discardableResult
    public func addHostWarning(
        locationId: [UInt8], start: Int64, end: Int64,
        transmissionRiskLevel: UInt8 = TransmissionRisk.hostWarningLevel
    ) throws(CWAPublishError) -> CWATraceWarning {
        let warning = try Self.warning(
            locationId: locationId, start: start, end: end, transmissionRiskLevel: transmissionRiskLevel,
            crypto: crypto)
        var pool = try loadPool()
        pool.warnings.append(Hex.encode(warning.serialized))
        try savePool(pool)
        return warning
    }

    /// The warning `addHostWarning` pools, without pooling it.
    public static func warning(
        locationId: [UInt8], start: Int64, end: Int64, transmissionRiskLevel: UInt8,
        crypto: some CryptoProvider
    ) throws(CWAPublishError) -> CWATraceWarning {
        guard locationId.count == 32 else { throw .invalidWarning("the location id must be 32 bytes") }
        guard start >= 0, end > start else { throw .invalidWarning("the warning must end after it starts") }
        guard end - start <= maximumWarningSeconds else { throw .invalidWarning("a warning covers at most 14 days") }
        guard (1...8).contains(transmissionRiskLevel) else { throw .invalidWarning("the risk level must be 1 to 8") }
        let first = StayPreparation.floorTo(start, Interval.seconds) / Interval.seconds
        let last = StayPreparation.floorTo(end + Interval.seconds - 1, Interval.seconds) / Interval.seconds
        guard last <= Int64(UInt32.max) else { throw .invalidWarning("the warning lies too far in the future") }
        let hash: [UInt8]
        do { hash = try crypto.sha256(locationId) } catch { throw .crypto }
        return CWATraceWarning(
            locationIdHash: hash, startIntervalNumber: UInt32(first), period: UInt32(last - first),
            transmissionRiskLevel: UInt32(transmissionRiskLevel))
    }

    /// Pools accepted CWA protected reports (real and fake alike: they cannot be told apart, and CWA publishes both).
    /// Reports of the wrong shape are refused, all or nothing.
    public func acceptProtectedReports(_ reports: [CWAProtectedReport]) throws(CWAPublishError) {
        guard reports.allSatisfy(Self.hasReportShape) else { throw .invalidReport }
        var pool = try loadPool()
        pool.reports += reports.map { Hex.encode($0.serialized) }
        try savePool(pool)
    }

    /// Whether `report` has the shape of a CWA protected report (`CWAProtectedReport.hasReportShape`).
    public static func hasReportShape(_ report: CWAProtectedReport) -> Bool { report.hasReportShape }

    /// Pools the protected reports of a CWA `SubmissionPayload`; returns how many.
    @discardableResult
    public func acceptSubmissionPayload(_ bytes: [UInt8]) throws(CWAPublishError) -> Int {
        let reports: [CWAProtectedReport]
        do { reports = try CWAProtectedReport.reports(inSubmissionPayload: bytes) } catch { throw .invalidReport }
        try acceptProtectedReports(reports)
        return reports.count
    }

    /// How many records wait for the next package.
    public func pendingCount() throws(CWAPublishError) -> Int {
        let pool = try loadPool()
        return pool.warnings.count + pool.reports.count
    }

    // MARK: Publishing

    /// Publishes every pooled record as the package of the current hour (or of the hour after the last published
    /// one, if that hour is taken: a published hour never changes), updates the hour index and empties the pool.
    /// Returns nil when nothing is pooled.
    @discardableResult
    public func publish(now: Int64) throws(CWAPublishError) -> CWAPublishedHour? {
        let pool = try loadPool()
        var warnings = pool.warnings.compactMap(Hex.decode).compactMap { try? CWATraceWarning(serialized: $0) }
        var reports = pool.reports.compactMap(Hex.decode).compactMap { try? CWAProtectedReport(serialized: $0) }
        guard !warnings.isEmpty || !reports.isEmpty else { return nil }
        do {
            try ReportBatch.shuffle(&warnings, crypto: crypto)
            try ReportBatch.shuffle(&reports, crypto: crypto)
        } catch {
            throw .crypto
        }
        var hours = try publishedHours()
        let currentHour = UInt32(clamping: max(0, now) / 3600)
        let hour = max(currentHour, hours.last.map { $0 == .max ? $0 : $0 + 1 } ?? 0)
        let package = CWATraceWarningPackage(
            hour: hour, region: region, timeIntervalWarnings: warnings, checkInProtectedReports: reports)
        do {
            let zip = try CWAHourlyPackage.make(package, signer: signer)
            let directory = hourDirectory + "/\(hour)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try AtomicFile.write(zip, named: "index", in: directory)
            hours.append(hour)
            try AtomicFile.write(Array(try JSONEncoder().encode(hours)), named: "index", in: hourDirectory)
            try AtomicFile.write(Array(try JSONEncoder().encode(Pool())), named: Self.poolName, in: stateDirectory)
            return CWAPublishedHour(
                hour: hour, path: directory + "/index", warnings: warnings.count, reports: reports.count)
        } catch {
            throw .storage
        }
    }

    /// The hours published so far, ascending.
    public func publishedHours() throws(CWAPublishError) -> [UInt32] {
        guard let data = FileManager.default.contents(atPath: hourDirectory + "/index") else { return [] }
        guard let hours = try? JSONDecoder().decode([UInt32].self, from: data) else { throw .storage }
        return hours.sorted()
    }

    // MARK: Files

    static let poolName = "cwa-pending.json"

    struct Pool: Codable {
        var warnings: [String] = []
        var reports: [String] = []
    }

    private func loadPool() throws(CWAPublishError) -> Pool {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/" + Self.poolName) else {
            return Pool()
        }
        guard let pool = try? JSONDecoder().decode(Pool.self, from: data) else { throw .storage }
        return pool
    }

    private func savePool(_ pool: Pool) throws(CWAPublishError) {
        do {
            try AtomicFile.write(Array(try JSONEncoder().encode(pool)), named: Self.poolName, in: stateDirectory)
        } catch {
            throw .storage
        }
    }
}

/// One published hour.
public struct CWAPublishedHour: Equatable, Sendable {
    public let hour: UInt32
    /// The zip's path.
    public let path: String
    public let warnings: Int
    public let reports: Int
}

/// Why a CWA warning or report was not pooled or published. Carries no venue or time.
public enum CWAPublishError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidWarning(String)
    case invalidReport
    case invalidRegion
    case crypto
    case storage

    public var description: String {
        switch self {
        case .invalidWarning(let reason): "invalid warning: \(reason)"
        case .invalidReport: "a protected report of the wrong shape"
        case .invalidRegion: "the region must be a two-letter upper-case country code"
        case .crypto: "the crypto library failed"
        case .storage: "the authority's storage failed"
        }
    }
}
