import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import Testing

/// CWA hourly packages: the authority's publisher, a package built independently (protobuf written by hand, zipped
/// by Info-ZIP's `zip`), hostile packages, and incremental fetching over the authority server on loopback.
@Suite struct CWAHourlyTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_000
    var base: Int64 { day * 86_400 }

    func temporaryRoot(_ label: String) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        return root
    }

    // MARK: Protobuf and zip built without the kiosk's code

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out = [UInt8]()
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }

    static func field(_ number: UInt64, varint value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }
    static func field(_ number: UInt64, bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }

    /// `TraceWarningPackage {intervalNumber, region, timeIntervalWarnings}` by hand.
    static func traceWarningPackage(
        hour: UInt32, warnings: [(hash: [UInt8], start: UInt32, period: UInt32, trl: UInt32)]
    ) -> [UInt8] {
        var out = field(1, varint: UInt64(hour)) + field(2, bytes: Array("DE".utf8))
        for warning in warnings {
            let message =
                field(1, bytes: warning.hash) + field(2, varint: UInt64(warning.start))
                + field(3, varint: UInt64(warning.period))
                + field(4, varint: UInt64(warning.trl))
            out += field(3, bytes: message)
        }
        return out
    }

    /// `TEKSignatureList {signatures: [TEKSignature {batch_num 1, batch_size 1, signature}]}` by hand.
    static func signatureList(_ signature: [UInt8]) -> [UInt8] {
        field(1, bytes: field(2, varint: 1) + field(3, varint: 1) + field(4, bytes: signature))
    }

    /// Zips `files` with `/usr/bin/zip` into `path`.
    static func infoZip(_ files: [(String, [UInt8])], to path: String) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("zipwork-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        for (name, bytes) in files { try Data(bytes).write(to: work.appendingPathComponent(name)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
        process.currentDirectoryURL = work
        process.arguments = ["-q", "-X", path] + files.map(\.0)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    // MARK: Tests

    @Test func publisherPackageOpensAndMatches() async throws {
        let root = try temporaryRoot("cwa-publish")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try CWAHourlyPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: key)
        // 10:05–10:55 widens to 10:00–11:00.
        let warning = try await publisher.addHostWarning(
            locationId: venue, start: base + 10 * 3600 + 300, end: base + 10 * 3600 + 3300)
        #expect(warning.period == 6 && warning.transmissionRiskLevel == 5)
        let record = CWAProtectedReport.Record(
            startIntervalNumber: UInt32(day) * 144 + 66, period: 3, transmissionRiskLevel: 7)
        let report = try CWAProtectedReport.seal(
            record, locationId: venue, iv: try crypto.randomBytes(count: 16), crypto: crypto)
        try await publisher.acceptProtectedReports([report])
        await #expect(throws: CWAPublishError.invalidReport) {
            try await publisher.acceptProtectedReports([
                CWAProtectedReport(locationIdHash: [1], iv: [], encryptedCheckInRecord: [], mac: [])
            ])
        }
        await #expect(throws: CWAPublishError.self) {
            try await publisher.addHostWarning(locationId: venue, start: base, end: base - 1)
        }
        await #expect(throws: CWAPublishError.self) {
            try await publisher.addHostWarning(
                locationId: venue, start: base, end: base + 600, transmissionRiskLevel: 9)
        }
        #expect(try await publisher.pendingCount() == 2)

        let published = try #require(try await publisher.publish(now: base + 12 * 3600))
        #expect(published.hour == UInt32(day * 24 + 12))
        #expect(try await publisher.pendingCount() == 0)
        #expect(try await publisher.publish(now: base + 12 * 3600) == nil)

        let zip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: published.path)))
        let package = try CWAHourlyPackage.open(zip, verifier: key.publicKey(), expectedHour: published.hour)
        #expect(package.timeIntervalWarnings == [warning])
        #expect(package.checkInProtectedReports == [report])
        #expect(throws: CWAPackageError.wrongHour) {
            try CWAHourlyPackage.open(zip, verifier: key.publicKey(), expectedHour: published.hour + 1)
        }

        let set = CWAWarningSet(warnings: package.timeIntervalWarnings, reports: package.checkInProtectedReports)
        // Stay 10:30–11:30: 30 minutes of the warning (TRL 5: 30) and 30 of the report (11:00–11:30, TRL 7: 42).
        let stay = MatchableStay(
            id: "s", locationId: venue, start: base + 10 * 3600 + 1800, end: base + 11 * 3600 + 1800)
        let result = WarningMatcher.match(stays: [stay], cwa: set, now: base + 86_400, crypto: crypto)
        #expect(result.matches.map(\.overlapMinutes).sorted() == [30, 30])
        #expect(result.matches.map(\.transmissionRiskLevel).sorted() == [5, 7])
        #expect(result.riskLevelByDay == [day: 2])

        // Another publish in the same hour goes to the next hour: a published hour never changes.
        try await publisher.addHostWarning(locationId: venue, start: base, end: base + 600)
        #expect(try await publisher.publish(now: base + 12 * 3600 + 60)?.hour == published.hour + 1)
        #expect(try await publisher.publishedHours() == [published.hour, published.hour + 1])
    }

    @Test func independentPackageAndHostilePackagesFromAUSBStick() async throws {
        let root = try temporaryRoot("cwa-stick")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        let key = try ECDSAPrivateKey()
        let hash = try crypto.sha256(venue)
        let start = UInt32(day * 144 + 60)  // 10:00 UTC
        let export = Self.traceWarningPackage(
            hour: UInt32(day * 24 + 11),
            warnings: [
                (hash, start, 6, 7),
                ([UInt8](repeating: 9, count: 32), start, 6, 7),  // another kiosk's venue: not kept
            ])
        let signed = Self.signatureList(try key.signature(for: export))
        try Self.infoZip([("export.bin", export), ("export.sig", signed)], to: stick + "/a-good.zip")

        // Hostile or broken packages.
        try Self.infoZip(
            [("export.bin", export), ("export.sig", Self.signatureList(try ECDSAPrivateKey().signature(for: export)))],
            to: stick + "/b-wrong-key.zip")
        try Self.infoZip([("export.bin", export)], to: stick + "/c-unsigned.zip")
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stick + "/a-good.zip")))
        try Data(good.prefix(good.count - 30)).write(to: URL(fileURLWithPath: stick + "/d-truncated.zip"))
        let bomb = [UInt8](repeating: 0, count: 40 << 20)  // inflates past the 32 MB export limit
        try Self.infoZip(
            [("export.bin", bomb), ("export.sig", Self.signatureList(try key.signature(for: bomb)))],
            to: stick + "/e-bomb.zip")
        let keyExport = Array("EK Export v1    ".utf8) + Self.field(1, varint: 1)
        try Self.infoZip(
            [("export.bin", keyExport), ("export.sig", Self.signatureList(try key.signature(for: keyExport)))],
            to: stick + "/f-wrong-header.zip")
        try Data("not a zip at all".utf8).write(to: URL(fileURLWithPath: stick + "/g-garbage.zip"))

        let client = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let report = try await client.loadFromDirectory(stick, interestingHashes: [hash])
        #expect(report.hoursFetched == 1)
        #expect(report.recordsKept == 1)
        #expect(
            report.rejected == [
                "b-wrong-key.zip: \(CWAPackageError.badSignature)",
                "c-unsigned.zip: \(CWAPackageError.unsigned)",
                "d-truncated.zip: \(CWAPackageError.truncated)",
                "e-bomb.zip: \(CWAPackageError.oversized)",
                "f-wrong-header.zip: \(CWAPackageError.wrongHeader)",
                "g-garbage.zip: \(CWAPackageError.notAZip)",
            ])
        #expect(await client.warnings.count == 1)

        let stay = MatchableStay(id: "s", locationId: venue, start: base + 10 * 3600 + 1800, end: base + 12 * 3600)
        let result = WarningMatcher.match(stays: [stay], cwa: await client.warnings, now: base + 86_400, crypto: crypto)
        #expect(result.matches.count == 1)
        #expect(result.matches.first?.overlapMinutes == 30)
        #expect(result.isHighRisk)

        // Only the hostile ones: nothing kept at all.
        try FileManager.default.removeItem(atPath: stick + "/a-good.zip")
        try FileManager.default.createDirectory(atPath: root + "/fresh", withIntermediateDirectories: true)
        let fresh = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/fresh")
        let hostile = try await fresh.loadFromDirectory(stick, interestingHashes: [hash])
        #expect(hostile.recordsKept == 0 && hostile.hoursFetched == 0 && hostile.rejected.count == 6)
        #expect(await fresh.warnings.count == 0)
        await #expect(throws: WarningsSyncError.noMedium) {
            try await fresh.loadFromDirectory(root + "/none", interestingHashes: [])
        }
    }

    @Test func servedHoursAreFetchedIncrementally() async throws {
        let root = try temporaryRoot("cwa-sync")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let hash = try crypto.sha256(venue)
        let ckpw = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/www", signer: key)
        let publisher = try CWAHourlyPublisher(
            stateDirectory: root + "/cwa-state", publishDirectory: root + "/cwa", signer: key)
        try await publisher.addHostWarning(locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600)
        try await publisher.addHostWarning(
            locationId: [UInt8](repeating: 7, count: 32), start: base + 10 * 3600, end: base + 11 * 3600)
        let first = try #require(try await publisher.publish(now: base + 12 * 3600))

        let app = AuthorityServer.makeApplication(
            publisher: ckpw, port: 0, logger: Logger(label: "test"), now: { 0 }, cwaPublisher: publisher)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let url = "http://127.0.0.1:\(port)/cwa/twp/country/DE"
            let warnings = CWAWarningsClient(
                baseURL: url, verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
            let sync1 = try await warnings.sync(interestingHashes: [hash])
            #expect(sync1.hoursFetched == 1 && sync1.recordsKept == 1 && sync1.rejected.isEmpty)
            #expect(await warnings.state.seenHours == [first.hour])

            // Nothing new: the server answers 304 to the remembered ETag.
            let sync2 = try await warnings.sync(interestingHashes: [hash])
            #expect(sync2.indexUnchanged)
            #expect(sync2.hoursFetched == 0)

            // A new hour: only it is fetched.
            try await publisher.addHostWarning(locationId: venue, start: base + 14 * 3600, end: base + 15 * 3600)
            let second = try #require(try await publisher.publish(now: base + 15 * 3600))
            let sync3 = try await warnings.sync(interestingHashes: [hash])
            #expect(!sync3.indexUnchanged && sync3.hoursFetched == 1 && sync3.recordsKept == 1)

            // A damaged hour on the server: refused, counted, nothing kept, and looked at again next time.
            try await publisher.addHostWarning(locationId: venue, start: base + 16 * 3600, end: base + 17 * 3600)
            let third = try #require(try await publisher.publish(now: base + 17 * 3600))
            var zip = [UInt8](try Data(contentsOf: URL(fileURLWithPath: third.path)))
            zip[40] ^= 0xFF
            try Data(zip).write(to: URL(fileURLWithPath: third.path))
            let sync4 = try await warnings.sync(interestingHashes: [hash])
            #expect(sync4.hoursFetched == 0 && sync4.recordsKept == 0 && sync4.rejected.count == 1)
            #expect(try await warnings.sync(interestingHashes: [hash]).rejected.count == 1)
            #expect(await warnings.warnings.count == 2)

            // State survives a restart: nothing is fetched twice.
            let restarted = CWAWarningsClient(
                baseURL: url, verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
            #expect(await restarted.warnings.count == 2)
            #expect(await restarted.state.seenHours == [first.hour, second.hour])
            let again = try await restarted.sync(interestingHashes: [hash])
            #expect(again.hoursFetched == 0 && again.rejected.count == 1)

            // The matcher sees both kept warnings.
            let stay = MatchableStay(id: "s", locationId: venue, start: base + 10 * 3600, end: base + 15 * 3600)
            let result = WarningMatcher.match(
                stays: [stay], cwa: await restarted.warnings, now: base + 86_400, crypto: crypto)
            #expect(result.matches.map(\.overlapMinutes).sorted() == [60, 60])

            // Unknown regions and hours are not found.
            let stranger = CWAWarningsClient(
                baseURL: "http://127.0.0.1:\(port)/cwa/twp/country/xx", verifier: try key.publicKey(),
                stateDirectory: root + "/kiosk")
            await #expect(throws: WarningsSyncError.server(404)) { try await stranger.sync(interestingHashes: [hash]) }
        }
    }
}
