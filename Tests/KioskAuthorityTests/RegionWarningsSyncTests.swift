import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import Testing

/// A kiosk keeping its region's warnings (`warnings.keepRegion`), against the authority's published files on
/// loopback: a download leaves every record of the package in the region's index, the venue's alone in the client's;
/// a restarted kiosk reads the index back and fetches nothing again; without the stored index it downloads again.
@Suite struct RegionWarningsSyncTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_000

    func sealed(_ locationId: [UInt8]) throws -> [UInt8] {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        return try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
    }

    @Test func aDownloadKeepsTheRegionAndARestartFindsItAgain() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/www", signer: key)
        let others = try (0..<20).map { try sealed([UInt8](repeating: UInt8($0), count: 32)) }
        try await publisher.acceptFromTestCentre(try ReportBatch(records: [try sealed(venue)] + others))
        try await publisher.publish(now: day * 86_400 + 3600)
        let state = root + "/kiosk"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day - 1...day + 1, crypto: crypto))
        let now = day * 86_400 + 7200
        let stay = MatchableStay(
            id: "x", locationId: [UInt8](repeating: 7, count: 32), start: day * 86_400 + 10 * 3600,
            end: day * 86_400 + 11 * 3600)

        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { 0 })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            func kiosk() throws -> (WarningsClient, RegionWarnings) {
                let region = RegionWarnings(stateDirectory: state, now: { now })
                let client = WarningsClient(
                    baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try key.publicKey(),
                    stateDirectory: state, region: region)
                return (client, region)
            }
            // The published records (with the authority's decoys, if it adds any) are all in the region's index.
            let (first, region) = try kiosk()
            #expect(region.startedEmpty)
            let report = try await first.sync(interestingTags: tags)
            #expect(report.packagesFetched == 1 && report.recordsKept == 1)
            #expect(await first.index.count == 1)
            let published = region.index.ckprRecordCount
            #expect(published >= 21)
            let matched = try WarningMatcher.match(stays: [stay], region: region.index, now: now, crypto: crypto)
            #expect(matched.matches.map(\.stayId) == ["x"])

            // Restarted: the index is read back, nothing is fetched again.
            let (second, restored) = try kiosk()
            #expect(!restored.startedEmpty)
            #expect(restored.index.ckprRecordCount == published)
            #expect(try await second.sync(interestingTags: tags).packagesFetched == 0)

            // Without the stored index: the package is downloaded again, and the region is back.
            try FileManager.default.removeItem(atPath: state + "/" + RegionWarnings.fileName)
            let (third, emptied) = try kiosk()
            #expect(emptied.startedEmpty && emptied.index.ckprRecordCount == 0)
            #expect(try await third.sync(interestingTags: tags).packagesFetched == 1)
            #expect(emptied.index.ckprRecordCount == published)
            #expect(await third.index.count == 1)
        }
    }
}
