import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import Testing

@testable import KioskDaemon

/// A kiosk that cannot reach its authority still lets kept warning records go once they can no longer concern a
/// stay it holds, judged on its own lower bound of the real time, as its stays are.
@Suite struct WarningsPruneTests {
    struct FixedClock: ClockSource {
        let reading: ClockReading
        func read() -> ClockReading { reading }
    }

    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x5A, count: 32)
    let day: Int64 = 20_200

    @Test func recordsGoOfflineOnTheKiosksLowerBoundOfTheTime() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prune-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // What an earlier sync kept: a CKPW/1 record and a CWA warning about a stay on `day`.
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let record = try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
        var ckpw = WarningsState()
        ckpw.records = [Hex.encode(record)]
        try Data(try JSONEncoder().encode(ckpw)).write(to: URL(fileURLWithPath: root + "/warnings.json"))
        let warning = CWATraceWarning(
            locationIdHash: try crypto.sha256(venue), startIntervalNumber: UInt32(day) * 144 + 60, period: 6,
            transmissionRiskLevel: 5)
        var cwa = CWAWarningsState()
        cwa.warnings = [Hex.encode(warning.serialized)]
        try Data(try JSONEncoder().encode(cwa)).write(to: URL(fileURLWithPath: root + "/cwa-warnings.json"))

        func warnings(at reading: ClockReading) throws -> DaemonWarnings {
            let key = try ECDSAPrivateKey().publicKey()
            // Nothing listens on the discard port: every sync fails.
            return DaemonWarnings(
                client: WarningsClient(baseURL: "http://127.0.0.1:9/w", verifier: key, stateDirectory: root),
                cwaClient: CWAWarningsClient(baseURL: "http://127.0.0.1:9/c", verifier: key, stateDirectory: root),
                crypto: crypto, clock: FixedClock(reading: reading))
        }
        // Ten days on, unsynchronized: both still matter.
        let tenDays = Date(timeIntervalSince1970: TimeInterval((day + 10) * 86_400))
        let early = try warnings(at: ClockReading(now: tenDays, isSynchronized: false, floor: tenDays))
        #expect(await early.sync(venues: [venue]).ok == false)
        #expect(await early.client?.index.count == 1)
        #expect(await early.cwaClient?.warnings.count == 1)

        // Eighteen days on by the kept floor (the clock itself unsynchronized and set back): both go, from memory
        // and from the files, though the sync failed.
        let floor = Date(timeIntervalSince1970: TimeInterval((day + 18) * 86_400))
        let late = try warnings(
            at: ClockReading(now: Date(timeIntervalSince1970: 0), isSynchronized: false, floor: floor))
        #expect(await late.sync(venues: [venue]).ok == false)
        #expect(await late.client?.index.count == 0)
        #expect(await late.cwaClient?.warnings.count == 0)
        let files =
            try String(contentsOfFile: root + "/warnings.json", encoding: .utf8)
            + String(contentsOfFile: root + "/cwa-warnings.json", encoding: .utf8)
        #expect(!files.contains(Hex.encode(record)))
        #expect(!files.contains(Hex.encode(warning.serialized)))
    }
}
