import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import Testing

/// The kiosk's warnings client against the authority's published files on loopback.
@Suite struct WarningsSyncTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_000

    func sealed(_ locationId: [UInt8], day: Int64) throws -> [UInt8] {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        return try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
    }

    @Test func fetchesOnlyWhatIsNewVerifiedAndKeepsOnlyItsOwnVenues() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/www", signer: key)
        let mine = try sealed(venue, day: day)
        let others = try (0..<20).map { try sealed([UInt8](repeating: UInt8($0), count: 32), day: day) }
        try await publisher.acceptFromTestCentre(try ReportBatch(records: [mine] + others))
        try await publisher.publish(now: day * 86_400 + 3600)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day - 1...day + 1, crypto: crypto))

        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { 0 })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let warnings = WarningsClient(
                baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try key.publicKey(),
                stateDirectory: root + "/kiosk")
            let first = try await warnings.sync(interestingTags: tags)
            #expect(first.packagesFetched == 1)
            #expect(first.recordsKept == 1)
            #expect(first.rejected.isEmpty)
            #expect(await warnings.index.records(tagged: Array(mine.prefix(16))) == [mine])

            // Nothing new: nothing fetched again.
            let second = try await warnings.sync(interestingTags: tags)
            #expect(second.packagesFetched == 0 && second.recordsKept == 0)

            // A second package: only it is fetched.
            try await publisher.acceptFromTestCentre(try ReportBatch(records: [try sealed(venue, day: day + 1)]))
            try await publisher.publish(now: day * 86_400 + 7200)
            let third = try await warnings.sync(
                interestingTags: Set(try WarningMatcher.tags(locationId: venue, days: day...day + 1, crypto: crypto)))
            #expect(third.packagesFetched == 1 && third.recordsKept == 1)

            // State survives a restart of the client.
            let restarted = WarningsClient(
                baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try key.publicKey(),
                stateDirectory: root + "/kiosk")
            #expect(await restarted.index.count == 2)
            let again = try await restarted.sync(interestingTags: tags)
            #expect(again.packagesFetched == 0)
        }
    }

    @Test func aPackageWithABadSignatureChangesNothingAndIsReported() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/www", signer: key)
        try await publisher.acceptFromTestCentre(try ReportBatch(records: [try sealed(venue, day: day)]))
        let entry = try #require(try await publisher.publish(now: 1))
        // Someone replaces the package on the CDN.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + entry.file)))
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/www/" + entry.file))
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto))

        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { 0 })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let warnings = WarningsClient(
                baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try key.publicKey(),
                stateDirectory: root + "/kiosk")
            let report = try await warnings.sync(interestingTags: tags)
            #expect(report.packagesFetched == 0)
            #expect(report.rejected.count == 1)
            #expect(report.rejected.first?.contains("signature") == true)
            #expect(await warnings.index.count == 0)
            // The refusal is not forgotten: the next sync looks again (and refuses again).
            #expect(try await warnings.sync(interestingTags: tags).rejected.count == 1)

            // A client configured with another authority's key refuses the index itself.
            try FileManager.default.createDirectory(atPath: root + "/stranger", withIntermediateDirectories: true)
            let stranger = WarningsClient(
                baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try ECDSAPrivateKey().publicKey(),
                stateDirectory: root + "/stranger")
            await #expect(throws: WarningsSyncError.badIndexSignature) {
                try await stranger.sync(interestingTags: tags)
            }
        }
    }

    @Test func packagesFromAUSBStick() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stick-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/stick", signer: key)
        try await publisher.acceptFromTestCentre(try ReportBatch(records: [try sealed(venue, day: day)]))
        try await publisher.publish(now: 1)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/stick/stray.bin"))
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let warnings = WarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let report = try await warnings.loadFromDirectory(
            root + "/stick",
            interestingTags: Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto)))
        #expect(report.recordsKept == 1)
        #expect(report.rejected == ["stray.bin: no signature beside it"])
        await #expect(throws: WarningsSyncError.noMedium) {
            try await warnings.loadFromDirectory(root + "/none", interestingTags: [])
        }
        #expect(WarningsClient.backoff(afterFailures: 0) == 0)
        #expect(WarningsClient.backoff(afterFailures: 1) == 60)
        #expect(WarningsClient.backoff(afterFailures: 3) == 240)
        #expect(WarningsClient.backoff(afterFailures: 30) == 3600)
    }
}
