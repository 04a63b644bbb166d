import Foundation
public import KioskCore
import KioskExchange
public import KioskOpenSSL

/// The health authority's books: verification codes it issued, records it accepted and not yet published, and the
/// signed CKPW/1 packages it published with their index. Everything lives in two directories: `stateDirectory`
/// (private) and `publishDirectory` (what a static web server or CDN serves).
///
/// It never stores or logs where an upload came from, and it never keeps records of one upload together: pending
/// records are pooled, and each package is a CSPRNG shuffle of the pool. A package that carries people's reports mixes
/// at least `minimumMix` contributions (uploads, or receipts and files a test centre took): with fewer pending, the
/// authority adds made-up contributions — CKPB/1 batches with no real report, from its CSPRNG, laid out as a kiosk lays
/// out its decoys — so a package never tells that it holds one person's reports. Packages are published on the
/// authority's schedule (`kiosk-authority publish` from an hourly timer, docs/authority-deployment.md), never at an
/// upload.
public actor WarningPublisher {
    public let stateDirectory: String
    public let publishDirectory: String
    /// The fewest contributions a package with people's reports mixes (made-up ones fill the rest).
    public static let minimumMix = 3
    let signer: ECDSAPrivateKey
    let crypto: OpenSSLCrypto

    public init(
        stateDirectory: String, publishDirectory: String, signer: ECDSAPrivateKey,
        crypto: OpenSSLCrypto = OpenSSLCrypto()
    ) throws {
        for directory in [stateDirectory, publishDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        self.stateDirectory = stateDirectory
        self.publishDirectory = publishDirectory
        self.signer = signer
        self.crypto = crypto
    }

    // MARK: Verification codes

    /// Issues a single-use code valid until `now + lifetime` seconds; only its SHA-256 is stored.
    public func issueCode(now: Int64, lifetime: Int64 = 3 * 86_400) throws -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ23456789")  // no 0/O, 1/I/L, U
        var code = ""
        while code.count < 10 {
            for byte in try crypto.randomBytes(count: 16)
            where Int(byte) < 256 - 256 % alphabet.count && code.count < 10 {
                code.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        var codes = try loadCodes()
        codes[try codeKey(code)] = now + lifetime
        try saveCodes(codes.filter { $0.value > now })
        return String(code.prefix(5)) + "-" + String(code.suffix(5))
    }

    /// Accepts an uploaded batch if `code` is valid, unexpired and unused; the code is spent either way once it
    /// matched.
    public func acceptUpload(_ batch: ReportBatch, code typed: String, now: Int64) throws(AcceptError) {
        guard let code = ReportUploader.normalizedCode(typed) else { throw .wrongCode }
        do {
            var codes = try loadCodes()
            let key = try codeKey(code)
            guard let expiry = codes[key] else { throw AcceptError.wrongCode }
            codes[key] = nil
            try saveCodes(codes)
            guard expiry > now else { throw AcceptError.expiredCode }
            try appendPending(batch.records, contributions: 1)
        } catch let error as AcceptError {
            throw error
        } catch {
            throw .storage
        }
    }

    /// Accepts what a test centre read from one person's exported file or scanned receipt (staff vouch for the holder):
    /// one contribution, however many codes the receipt had.
    public func acceptFromTestCentre(_ batches: [ReportBatch]) throws(AcceptError) {
        do { try appendPending(batches.flatMap(\.records), contributions: batches.isEmpty ? 0 : 1) } catch {
            throw .storage
        }
    }

    /// Accepts one batch from a test centre (one contribution).
    public func acceptFromTestCentre(_ batch: ReportBatch) throws(AcceptError) {
        try acceptFromTestCentre([batch])
    }

    /// A contact tracer's warning for the "On-Device" mode of the Off-Device Venue Check-Ins specification: a venue (its `locationId`) and a time window,
    /// sealed as CKPR/1 records (one per UTC day) with risk level 5 by default, as Corona-Warn-App's host warnings.
    public func addTracerWarning(
        locationId: [UInt8], start: Int64, end: Int64,
        transmissionRiskLevel: UInt8 = TransmissionRisk.hostWarningLevel
    ) throws -> Int {
        guard locationId.count == 32, end > start else { throw AcceptError.invalidWarning }
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        var records = [[UInt8]]()
        let window = StayPreparation.Window(
            start: StayPreparation.floorTo(start, Interval.seconds),
            end: StayPreparation.floorTo(end + Interval.seconds - 1, Interval.seconds))
        for piece in StayPreparation.splitAtMidnightUTC(window) {
            let startInterval = UInt32(piece.start / Interval.seconds)
            let period = UInt16((piece.end - piece.start) / Interval.seconds)
            guard period > 0 else { continue }
            let report = PresenceReport(
                startIntervalNumber: startInterval, period: period, transmissionRiskLevel: transmissionRiskLevel,
                reportType: .confirmedTest, infectiousness: .standard)
            records.append(try CKPR.seal(report, keys: keys))
        }
        try appendPending(records, contributions: 0)
        return records.count
    }

    // MARK: Publishing

    /// Publishes every pending record as one signed package (shuffled), with made-up contributions when fewer than
    /// `minimumMix` people's contributions are pending (a contact tracer's warnings alone need none: they are nobody's),
    /// updates the signed index, and empties the pool. Returns nil when nothing is pending.
    @discardableResult
    public func publish(now: Int64) throws -> PublishedPackage? {
        var records = try loadPending()
        guard !records.isEmpty else { return nil }
        let contributions = loadContributions()
        if contributions > 0 {
            for _ in contributions..<max(contributions, Self.minimumMix) {
                records += try ReportBatch.assemble([], crypto: crypto).records
            }
        }
        try ReportBatch.shuffle(&records, crypto: crypto)
        let package = try WarningPackage(createdAt: UInt64(max(0, now)), records: records)
        let bytes = package.bytes
        var index = try loadIndex()
        let sequence = (index.packages.map(\.sequence).max() ?? 0) + 1
        let name = String(format: "ckpw-%08d.bin", sequence)
        let entry = PublishedPackage(
            sequence: sequence, file: name, signature: name + ".sig", createdAt: now,
            count: records.count, sha256: Hex.encode(try crypto.sha256(bytes)))
        try AtomicFile.write(bytes, named: name, in: publishDirectory)
        try AtomicFile.write(try signer.signature(for: bytes), named: entry.signature, in: publishDirectory)
        index.packages.append(entry)
        try writeIndex(index)
        try AtomicFile.write([], named: Self.pendingName, in: stateDirectory)
        try AtomicFile.write(Array("0\n".utf8), named: Self.contributionsName, in: stateDirectory)
        return entry
    }

    /// Publishes `parameters` (nil: none, so kiosks use CWA's production values) in the signed index; checked first
    /// as a kiosk checks them.
    public func setParameters(_ parameters: PresenceTracingParameters.Published?) throws {
        if let parameters { _ = try PresenceTracingParameters.cwaProduction.applying(parameters) }
        var index = try loadIndex()
        index.presenceTracingParameters = parameters
        try writeIndex(index)
    }

    /// Writes the index and its signature (sorted keys, so the signed bytes are reproducible).
    private func writeIndex(_ index: WarningIndexFile) throws {
        let indexBytes = Array(try JSONEncoder.sorted.encode(index))
        try AtomicFile.write(
            try signer.signature(for: indexBytes), named: WarningIndexFile.signatureName, in: publishDirectory)
        try AtomicFile.write(indexBytes, named: WarningIndexFile.name, in: publishDirectory)
    }

    /// How many records wait for the next package.
    public func pendingCount() throws -> Int { try loadPending().count }

    /// How many people's contributions (uploads, test-centre batches) wait for the next package.
    public func pendingContributions() -> Int { loadContributions() }

    // MARK: Files

    static let pendingName = "pending.records"
    static let contributionsName = "pending.contributions"
    static let codesName = "codes.json"

    /// Adds records to the pool and counts the contributions they came in. The count is written first: a crash
    /// between the two writes counts one too many, so the next package mixes in fewer made-up ones — never records
    /// without their count.
    private func appendPending(_ records: [[UInt8]], contributions: Int) throws {
        var pool = try loadPending()
        pool += records
        if contributions > 0 {
            try AtomicFile.write(
                Array("\(loadContributions() + contributions)\n".utf8), named: Self.contributionsName,
                in: stateDirectory)
        }
        try AtomicFile.write(pool.flatMap { $0 }, named: Self.pendingName, in: stateDirectory)
    }

    /// The pending contributions: 0 when there is no count (nothing accepted since the last package); 1 when the count
    /// cannot be read, so that made-up contributions are mixed in rather than left out.
    private func loadContributions() -> Int {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/" + Self.contributionsName) else {
            return 0
        }
        let count = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        return count.map { max(0, $0) } ?? 1
    }

    private func loadPending() throws -> [[UInt8]] {
        let path = stateDirectory + "/" + Self.pendingName
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let bytes = [UInt8](data)
        guard bytes.count % CKPR.recordLength == 0 else { throw AcceptError.storage }
        return stride(from: 0, to: bytes.count, by: CKPR.recordLength).map { Array(bytes[$0..<$0 + CKPR.recordLength]) }
    }

    private func codeKey(_ code: String) throws -> String {
        Hex.encode(try crypto.sha256(Array(("kiosk-verification-code:" + code).utf8)))
    }

    private func loadCodes() throws -> [String: Int64] {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/" + Self.codesName) else { return [:] }
        return try JSONDecoder().decode([String: Int64].self, from: data)
    }

    private func saveCodes(_ codes: [String: Int64]) throws {
        try AtomicFile.write(Array(try JSONEncoder.sorted.encode(codes)), named: Self.codesName, in: stateDirectory)
    }

    private func loadIndex() throws -> WarningIndexFile {
        guard let data = FileManager.default.contents(atPath: publishDirectory + "/" + WarningIndexFile.name) else {
            return WarningIndexFile(version: 1, packages: [])
        }
        return try JSONDecoder().decode(WarningIndexFile.self, from: data)
    }
}

/// `index.json`, beside `index.json.sig`: the packages published so far, oldest first.
public struct WarningIndexFile: Codable, Equatable, Sendable {
    public static let name = "index.json"
    public static let signatureName = "index.json.sig"
    public var version: Int
    public var packages: [PublishedPackage]
    /// The risk criteria kiosks apply when matching (absent: CWA's production values).
    public var presenceTracingParameters: PresenceTracingParameters.Published?

    public init(
        version: Int, packages: [PublishedPackage],
        presenceTracingParameters: PresenceTracingParameters.Published? = nil
    ) {
        self.version = version
        self.packages = packages
        self.presenceTracingParameters = presenceTracingParameters
    }
}

/// One published package in the index.
public struct PublishedPackage: Codable, Equatable, Sendable {
    public let sequence: Int
    public let file: String
    public let signature: String
    public let createdAt: Int64
    public let count: Int
    public let sha256: String
}

/// Why an upload or a warning was not accepted.
public enum AcceptError: Error, Equatable, Sendable, CustomStringConvertible {
    case wrongCode
    case expiredCode
    case invalidWarning
    case storage

    public var description: String {
        switch self {
        case .wrongCode: "unknown or already used verification code"
        case .expiredCode: "expired verification code"
        case .invalidWarning: "a warning needs a 32-byte location id and an end after its start"
        case .storage: "the authority's storage failed"
        }
    }
}

extension JSONEncoder {
    /// Stable output: sorted keys, so the signed index bytes are reproducible.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
