import Foundation
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Testing

/// CWA records the kiosk keeps go once they can no longer concern a stay it holds: a health authority's warning 15
/// days after its window ended, a protected report 15 days after the hour it was published in — from memory and
/// from the state file.
@Suite struct CWARecordRetentionTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x6D, count: 32)
    let day: Int64 = 20_100

    @Test func keptRecordsGoFifteenDaysAfterTheyCouldLastConcernAStay() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cwa-age-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick"
        for folder in [stick, root + "/kiosk"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let key = try ECDSAPrivateKey()
        let hash = try crypto.sha256(venue)
        let start = UInt32(day * 144 + 60)
        let hour = UInt32(day * 24 + 12)  // published at 12:00, an hour after the window (10:00–11:00) ended
        let report = try CWAProtectedReport.seal(
            .init(startIntervalNumber: start, period: 6, transmissionRiskLevel: 7), locationId: venue,
            iv: try crypto.randomBytes(count: 16), crypto: crypto)
        let package = CWATraceWarningPackage(
            hour: hour, region: "DE",
            timeIntervalWarnings: [
                CWATraceWarning(locationIdHash: hash, startIntervalNumber: start, period: 6, transmissionRiskLevel: 5)
            ], checkInProtectedReports: [report])
        let export = package.export
        try CWAHourlyTests.infoZip(
            [("export.bin", export), ("export.sig", CWAHourlyTests.signatureList(try key.signature(for: export)))],
            to: stick + "/hour.zip")
        let client = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        #expect(try await client.loadFromDirectory(stick, interestingHashes: [hash]).recordsKept == 2)
        let stateFile = root + "/kiosk/cwa-warnings.json"
        let reportHex = Hex.encode(report.serialized)

        // A day later both still matter.
        let windowEnd = Int64(start + 6) * 600
        try await client.retain(locationIdHashes: [hash], now: windowEnd + 86_400)
        #expect(await client.warnings.count == 2)
        #expect(try String(contentsOfFile: stateFile, encoding: .utf8).contains(reportHex))
        // Fifteen days after the window ended (the package's hour is an hour later): the warning goes, the report
        // stays until fifteen days after its hour.
        try await client.retain(locationIdHashes: [hash], now: windowEnd + CWAWarningsClient.recordRetention + 60)
        #expect(await client.warnings.warningsByHash.isEmpty)
        #expect(await client.warnings.count == 1)
        try await client.retain(
            locationIdHashes: [hash], now: Int64(hour) * 3600 + CWAWarningsClient.recordRetention + 60)
        #expect(await client.warnings.count == 0)
        let state = try String(contentsOfFile: stateFile, encoding: .utf8)
        #expect(!state.contains(reportHex), "the report is still in the state file")
        #expect(!state.contains(Hex.encode(package.timeIntervalWarnings[0].serialized)))
        // The hour it came in is forgotten once no index lists it any more.
        let later = Int64(hour) * 3600 + Int64(CWAWarningsClient.maximumHoursPerIndex + 2) * 3600
        try await client.retain(locationIdHashes: [hash], now: later)
        #expect(await client.state.seenHours.isEmpty)
    }
}
