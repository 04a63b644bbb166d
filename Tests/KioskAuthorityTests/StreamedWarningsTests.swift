import Foundation
import Hummingbird
import HummingbirdTesting
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskZip
import Testing

/// The warnings clients stream packages through a file in the state directory: over real HTTP on loopback, a
/// package is cut at the configured bound (an endless one too), a zip bomb is stopped at the inflated bound, a
/// package whose signature fails leaves nothing kept, and no download is left behind.
@Suite struct StreamedWarningsTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_000

    func sealed(_ locationId: [UInt8]) throws -> [UInt8] {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        return try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
    }

    static func temporaryRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        return root
    }

    /// What the authority serves under `/warnings`: a signed index naming package 1, and `package` for it (a fixed
    /// body, or nil: one that never ends).
    static func serve(
        key: ECDSAPrivateKey, package: [UInt8]?, packageSignature: [UInt8],
        _ body: @escaping @Sendable (_ base: String) async throws -> Void
    ) async throws {
        let index = Array(#"{"packages":[{"sequence":1,"file":"p1.bin","signature":"p1.bin.sig"}]}"#.utf8)
        let indexSignature = try key.signature(for: index)
        let router = Router()
        router.get("/warnings/index.json") { _, _ in Self.answer(index) }
        router.get("/warnings/index.json.sig") { _, _ in Self.answer(indexSignature) }
        router.get("/warnings/p1.bin.sig") { _, _ in Self.answer(packageSignature) }
        router.get("/warnings/p1.bin") { _, _ in
            guard let package else {
                return Response(
                    status: .ok,
                    body: ResponseBody { writer in
                        let chunk = ByteBuffer(repeating: 0x41, count: 64 * 1024)
                        while true { try await writer.write(chunk) }
                    })
            }
            return Self.answer(package)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body("http://127.0.0.1:\(port)/warnings")
        }
    }

    static func answer(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The files of the kiosk's warnings folder after a sync: the state alone, no download left.
    static func files(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test func aLargePackageIsReadInChunksKeepingOnlyItsOwnRecords() async throws {
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let mine = try sealed(venue)
        var records = try (0..<20_000).map { _ in try crypto.randomBytes(count: CKPR.recordLength) }
        records.insert(mine, at: 12_345)
        let package = try WarningPackage(createdAt: 1, records: records).bytes
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto))
        try await Self.serve(key: key, package: package, packageSignature: try key.signature(for: package)) { base in
            let client = WarningsClient(
                baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk",
                maximumPackageSize: package.count)
            let report = try await client.sync(interestingTags: tags)
            #expect(report.rejected.isEmpty)
            #expect(report.packagesFetched == 1 && report.recordsKept == 1)
            #expect(await client.index.records(tagged: Array(mine.prefix(16))) == [mine])
            #expect(Self.files(root + "/kiosk") == ["warnings.json"])
        }
    }

    @Test func anEndlessPackageIsCutAtTheBoundWithAClearReasonAndNothingIsLeft() async throws {
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        try await Self.serve(key: key, package: nil, packageSignature: try key.signature(for: [1])) { base in
            let client = WarningsClient(
                baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk",
                timeout: .seconds(120), maximumPackageSize: 1 << 20)
            let report = try await client.sync(interestingTags: [])
            #expect(
                report.rejected == [
                    "package 1: larger than the configured bound of 1048576 bytes (warnings.maxPackageBytes): "
                        + "stopped there, nothing kept"
                ])
            #expect(report.packagesFetched == 0)
            #expect(await client.state.seenPackages.isEmpty)
            #expect(Self.files(root + "/kiosk") == ["warnings.json"])
        }
    }

    @Test func aPackageWhoseSignatureFailsLeavesNothingKeptAndNoFile() async throws {
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let package = try WarningPackage(createdAt: 1, records: [try sealed(venue)]).bytes
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto))
        // Signed by someone else, and (second round) the authority's signature over other bytes.
        for signature in [try ECDSAPrivateKey().signature(for: package), try key.signature(for: package + [0])] {
            try await Self.serve(key: key, package: package, packageSignature: signature) { base in
                let client = WarningsClient(
                    baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
                let report = try await client.sync(interestingTags: tags)
                #expect(report.rejected == ["package 1: \(WarningPackageError.badSignature)"])
                #expect(report.recordsKept == 0)
                #expect(await client.index.count == 0)
                #expect(await client.state.records.isEmpty)
                #expect(Self.files(root + "/kiosk") == ["warnings.json"])
            }
        }
    }

    @Test func aCWAZipBombLyingAboutItsSizeIsStoppedAtTheInflatedBound() async throws {
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let hour: UInt32 = 456_000
        let zeros = [UInt8](repeating: 0, count: 40 << 20)
        var zip = try ZipArchive.archive([
            ("export.bin", zeros), ("export.sig", CWATraceWarningPackage.signatureList(signature: [1, 2, 3])),
        ])
        // export.bin declared as 1024 bytes in both headers: only inflating tells.
        let directoryOffset = zip.suffix(6).prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        for offset in [22, directoryOffset + 24] { zip.replaceSubrange(offset..<offset + 4, with: [0x00, 0x04, 0, 0]) }
        #expect(zip.count < 1 << 20)
        let bomb = zip
        let router = Router()
        router.get("/cwa/hour") { _, _ in Self.answer(Array("[\(hour)]".utf8)) }
        router.get("/cwa/hour/\(hour)") { _, _ in Self.answer(bomb) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let cwa = CWAWarningsClient(
                baseURL: "http://127.0.0.1:\(port)/cwa", verifier: try key.publicKey(), stateDirectory: root + "/kiosk",
                maximumArchiveSize: 1 << 20, maximumExportSize: 1 << 20)
            let report = try await cwa.sync(interestingHashes: [try crypto.sha256(venue)])
            #expect(report.rejected == ["hour \(hour): \(CWAPackageError.oversized)"])
            #expect(CWAPackageError.oversized.description.contains("zip bomb"))
            #expect(report.hoursFetched == 0)
            #expect(await cwa.warnings.count == 0)
            #expect(Self.files(root + "/kiosk") == ["cwa-warnings.json"])
        }
    }
}
