import Foundation
import KioskAuthority
import KioskCore
import KioskOpenSSL
import Testing

/// A package never tells that it holds one person's reports: with fewer than `WarningPublisher.minimumMix`
/// contributions pending, the authority mixes in made-up batches laid out as a kiosk's; a contact tracer's warnings
/// alone (nobody's) go out as they are.
@Suite struct MinimumMixTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_764_000_000

    func publisher(_ root: String) throws -> WarningPublisher {
        try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: try ECDSAPrivateKey())
    }

    func records(_ root: String, _ package: PublishedPackage) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + package.file)))
        return try WarningPackage(unverifiedBytes: bytes).records
    }

    static func groups(_ records: [[UInt8]]) -> [Int] {
        Dictionary(records.map { (Array($0.prefix(CKPR.tagLength)), 1) }, uniquingKeysWith: +).values.sorted(by: >)
    }

    @Test func oneUploadIsMixedWithMadeUpBatchesThatLookLikeOnes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mix-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let publisher = try publisher(root)
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x61, count: 32), crypto: crypto)
        let real = try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(now / 600) - 300, period: 6, transmissionRiskLevel: 7),
            keys: keys)
        let upload = try ReportBatch.assemble([real], crypto: crypto)
        let code = try await publisher.issueCode(now: now)
        try await publisher.acceptUpload(upload, code: code, now: now)
        #expect(await publisher.pendingContributions() == 1)
        let package = try #require(try await publisher.publish(now: now + 3600))
        let published = try records(root, package)
        #expect(published.count == WarningPublisher.minimumMix * upload.records.count)
        #expect(Set(published).isSuperset(of: upload.records))
        // Three batches' worth of the same tag pattern: the made-up ones cannot be told from the upload.
        let pattern = ReportBatch.classSizes(forReal: 1)
        #expect(Self.groups(published) == (pattern + pattern + pattern).sorted(by: >))
        #expect(await publisher.pendingContributions() == 0)

        // Three contributions: nothing made up.
        for _ in 0..<WarningPublisher.minimumMix {
            try await publisher.acceptFromTestCentre(try ReportBatch.assemble([real], crypto: crypto))
        }
        let mixed = try #require(try await publisher.publish(now: now + 7200))
        #expect(mixed.count == WarningPublisher.minimumMix * upload.records.count)
    }

    @Test func aContactTracersWarningAloneIsPublishedAsItIs() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mix-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let publisher = try publisher(root)
        let added = try await publisher.addTracerWarning(
            locationId: [UInt8](repeating: 0x62, count: 32), start: now - 7200, end: now - 3600)
        let package = try #require(try await publisher.publish(now: now))
        #expect(package.count == added)
    }
}
