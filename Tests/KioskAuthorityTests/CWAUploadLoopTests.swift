import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Logging
import Testing

/// The CWA loop through an upload: one request with one verification code carries the batch and the same reports
/// in CWA's format; the authority publishes the CWA ones in its hourly package; another kiosk's CWA client fetches
/// it over HTTP and warns only the stay that overlapped.
@Suite struct CWAUploadLoopTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x7A, count: 32)
    let now: Int64 = 1_764_000_000

    @Test func anUploadedSubmissionReachesTheHourlyPackageAndWarnsTheOverlappingStayOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cwa-up-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: key)
        let cwa = try CWAHourlyPublisher(
            stateDirectory: root + "/cwa-state", publishDirectory: root + "/cwa-www", signer: key)
        let code = try await publisher.issueCode(now: now)
        let stayStart = now - 20 * 3600
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [
                ReportableStay(id: "1", venueName: "Café", locationId: venue, start: stayStart, end: stayStart + 5400)
            ], now: now, symptoms: .symptomsWithoutDate, output: .upload(verificationCode: code))
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let payload = try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto)
        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { [now] in now }, cwaPublisher: cwa)
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let uploader = ReportUploader(endpoint: base + "/v1/reports")
            // A submission that does not split is refused before the code is spent.
            await #expect(throws: UploadError.refused) {
                try await uploader.upload(batch, cwaSubmission: [0xFF, 0x01, 0x02], verificationCode: code)
            }
            try await uploader.upload(batch, cwaSubmission: payload, verificationCode: code)
            await #expect(throws: UploadError.wrongCode) {
                try await uploader.upload(batch, cwaSubmission: payload, verificationCode: code)
            }
            #expect(try await publisher.pendingCount() == batch.records.count)
            #expect(try await cwa.pendingCount() == ReportBatch.paddedCount(forReal: preview.reportCount))

            // Published in the next hour; another kiosk fetches it.
            let hour = try #require(try await cwa.publish(now: now + 3600))
            #expect(hour.reports == ReportBatch.paddedCount(forReal: preview.reportCount))
            try FileManager.default.createDirectory(atPath: root + "/kiosk-b", withIntermediateDirectories: true)
            let client = CWAWarningsClient(
                baseURL: base + "/cwa/twp/country/DE", verifier: try key.publicKey(), stateDirectory: root + "/kiosk-b")
            let sync = try await client.sync(interestingHashes: [try crypto.sha256(venue)])
            #expect(sync.rejected.isEmpty, "\(sync.rejected)")
            // The venue's hash is carried by the real report and by the fakes beside it (RealReportCountTests).
            #expect(sync.recordsKept == ReportBatch.classSizes(forReal: preview.reportCount)[0])
            let overlapping = MatchableStay(id: "b1", locationId: venue, start: stayStart + 1800, end: stayStart + 7200)
            let before = MatchableStay(id: "b2", locationId: venue, start: stayStart - 7200, end: stayStart - 3600)
            let result = WarningMatcher.match(
                stays: [overlapping, before], cwa: await client.warnings, now: now + 7200, crypto: crypto)
            #expect(Set(result.matches.map(\.stayId)) == ["b1"])
        }
    }
}
