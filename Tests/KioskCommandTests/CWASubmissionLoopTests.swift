import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Testing

/// The CWA loop through a USB stick, with the real commands: a visitor's consented export at kiosk A carries CWA's
/// `SubmissionPayload` beside the native batch; the authority tool accepts it and publishes its reports in a CWA hourly
/// package; kiosk B, reading that package, warns the card whose stay at the venue overlapped, and not another.
@Suite struct CWASubmissionLoopTests {
    let crypto = OpenSSLCrypto()

    @Test func anExportedCWASubmissionWarnsAnOverlappingCardAtAnotherKiosk() async throws {
        let reports = ReportCommandTests()
        let kiosk = try reports.makeKiosk()
        defer { kiosk.remove() }
        let exported = try reports.report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "yes"])
        #expect(exported.status == 0, "stderr: \(exported.stderr)")
        let submission = try #require(kiosk.exported().first { $0.hasSuffix(".cwa-submission.pb") })
        #expect(exported.stdout.contains("in CWA's format"))

        // The authority takes the file and publishes the next CWA hour.
        let authority = AuthorityCommandTests()
        let (root, key) = try authority.initializedRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let accepted = try CommandRunner.authority(["accept", "--dir", dir, kiosk.exportDir + "/" + submission])
        #expect(accepted.status == 0, "stderr: \(accepted.stderr)")
        let published = try CommandRunner.authority(["publish", "--dir", dir])
        #expect(published.status == 0, "stderr: \(published.stderr)")
        #expect(published.stdout.contains("Published CWA hour"))

        // Kiosk B takes the hour's package from a stick and matches its own stays.
        let hours = dir + "/www/cwa/twp/country/DE/hour"
        let hour = try #require(
            try FileManager.default.contentsOfDirectory(atPath: hours).first { Int($0) != nil })
        let stick = root + "/stick-b"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: hours + "/" + hour + "/index", toPath: stick + "/\(hour).zip")
        try FileManager.default.createDirectory(atPath: root + "/kiosk-b", withIntermediateDirectories: true)
        let client = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: key, stateDirectory: root + "/kiosk-b")
        let load = try await client.loadFromDirectory(
            stick, interestingHashes: [try crypto.sha256(reports.venueId)])
        #expect(load.rejected.isEmpty, "\(load.rejected)")
        #expect(load.hoursFetched == 1 && load.recordsKept >= 1)
        let overlapping = MatchableStay(
            id: "b1", locationId: reports.venueId, start: kiosk.stayStart + 600, end: kiosk.stayEnd)
        let elsewhen = MatchableStay(
            id: "b2", locationId: reports.venueId, start: kiosk.stayEnd + 6 * 3600, end: kiosk.stayEnd + 7 * 3600)
        let result = WarningMatcher.match(
            stays: [overlapping, elsewhen], cwa: await client.warnings, now: reports.now, crypto: crypto)
        #expect(!result.matches.isEmpty)
        #expect(Set(result.matches.map(\.stayId)) == ["b1"])
    }
}
