import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Testing

/// `kiosk-authority accept` with SwissCovid's `UserUploadPayload`: a stick's `.crowdnotifier-upload.pb` file and a
/// receipt's scanned `CNUP1:` codes become problematic events that `publish` writes; a code cut short refuses all.
@Suite struct CrowdNotifierAcceptTests {
    let crypto = OpenSSLCrypto()

    @Test func aStickFileAndScannedCodesBecomePublishedEvents() throws {
        let authority = AuthorityCommandTests()
        let (root, _) = try authority.initializedRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let now = Int64(Date().timeIntervalSince1970)
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let start = now - 86_400
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [
                ReportableStay(
                    id: "sc", venueName: "Caffè", locationId: try crypto.sha256([3]), start: start, end: start + 2400,
                    crowdNotifier: keys)
            ], now: now, output: .print)
        let payload = try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto)
        let texts = try CrowdNotifierUploadPayload.codeTexts(of: payload)
        let file = root + "/checkin-reports-1" + ReportExporter.crowdNotifierUploadSuffix
        try Data(payload).write(to: URL(fileURLWithPath: file))

        let cut = try CommandRunner.authority(["accept", "--dir", dir, file, String(texts[1].dropLast(4))])
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("Argument 2") && cut.stderr.contains("Nothing was accepted"), "\(cut.stderr)")

        let fromFile = try CommandRunner.authority(["accept", "--dir", dir, file])
        #expect(fromFile.status == 0, "stderr: \(fromFile.stderr)")
        #expect(fromFile.stdout.contains("Accepted 16 records"), "\(fromFile.stdout)")
        let scanned = try CommandRunner.authority(["accept", "--dir", dir] + texts)
        #expect(scanned.status == 0, "stderr: \(scanned.stderr)")
        let published = try CommandRunner.authority(["publish", "--dir", dir])
        #expect(published.status == 0, "stderr: \(published.stderr)")
        #expect(
            published.stdout.contains("Published 32 CrowdNotifier problematic event(s) in www/crowdnotifier-v3.bin"))
    }
}
