import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import Testing

/// The health authority's risk criteria reach the kiosk signed, with its warnings index, and change what a visitor is
/// told; an index that does not verify changes nothing, and parameters that are not valid are refused with a reason
/// while the previous ones stay.
@Suite struct PublishedParametersTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x52, count: 32)
    let day: Int64 = 19_300

    /// Level 5 counts half; a check-in needs 10 to be low, 30 to be high; a day likewise.
    static let lenient = PresenceTracingParameters.Published(
        transmissionRiskValues: [0, 0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        normalizedTimePerCheckInToRiskLevel: [
            .init(min: 0, max: 30, minExclusive: true, maxExclusive: true, riskLevel: 1),
            .init(min: 30, max: 999_999, riskLevel: 2),
        ],
        normalizedTimePerDayToRiskLevel: [
            .init(min: 0, max: 30, minExclusive: true, maxExclusive: true, riskLevel: 1),
            .init(min: 30, max: 999_999, riskLevel: 2),
        ], maxCheckInAgeInDays: 10)

    @Test func publishedParametersChangeAVisitorsResultAndOnlyASignedValidIndexChangesThem() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("params-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/www", signer: key)
        // A report of level 5 over 40 minutes; the visitor's stay shares 40 of them.
        let start = UInt32(day) * 144 + 60
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let record = try CKPR.seal(
            PresenceReport(startIntervalNumber: start, period: 4, transmissionRiskLevel: 5), keys: keys)
        try await publisher.acceptFromTestCentre(try ReportBatch(records: [record]))
        try await publisher.publish(now: day * 86_400 + 12 * 3600)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto))
        let stay = MatchableStay(
            id: "visit", locationId: venue, start: Int64(start) * 600, end: Int64(start) * 600 + 2400)
        let now = day * 86_400 + 20 * 3600

        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { 0 })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let warnings = WarningsClient(
                baseURL: "http://127.0.0.1:\(port)/warnings", verifier: try key.publicKey(),
                stateDirectory: root + "/kiosk")
            func result() async -> ExposureResult {
                WarningMatcher.match(
                    stays: [stay], index: await warnings.index, now: now, parameters: await warnings.parameters,
                    crypto: crypto)
            }
            // Nothing published: CWA's values; 40 minutes at level 5 (value 1) is high.
            #expect(try await warnings.sync(interestingTags: tags).rejected.isEmpty)
            #expect(await warnings.parameters == .cwaProduction)
            #expect(await result().riskLevelByDay == [day: 2])

            // The authority publishes lenient criteria: level 5 counts half, 20 is low. Same stay, same record.
            try await publisher.setParameters(Self.lenient)
            #expect(try await warnings.sync(interestingTags: tags).rejected.isEmpty)
            #expect(await warnings.parameters.transmissionRiskValue(for: 5) == 0.5)
            #expect(await result().riskLevelByDay == [day: 1])

            // An index whose signature does not verify changes nothing.
            let indexPath = root + "/www/" + WarningIndexFile.name
            var tampered = try String(contentsOfFile: indexPath, encoding: .utf8)
            tampered = tampered.replacingOccurrences(of: "0.5", with: "5")
            try tampered.write(toFile: indexPath, atomically: true, encoding: .utf8)
            await #expect(throws: WarningsSyncError.badIndexSignature) {
                try await warnings.sync(interestingTags: tags)
            }
            #expect(await result().riskLevelByDay == [day: 1])

            // Invalid criteria, signed: refused with a reason, the previous ones kept, the rest of the index read.
            try await publisher.setParameters(nil)
            var index = try JSONDecoder().decode(
                WarningIndexFile.self, from: Data(contentsOf: URL(fileURLWithPath: indexPath)))
            var invalid = Self.lenient
            invalid.normalizedTimePerDayToRiskLevel[0].riskLevel = 30
            index.presenceTracingParameters = invalid
            let bytes = Array(try JSONEncoder().encode(index))
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            try Data(try key.signature(for: bytes)).write(
                to: URL(fileURLWithPath: root + "/www/" + WarningIndexFile.signatureName))
            let refused = try await warnings.sync(interestingTags: tags)
            #expect(
                refused.rejected == [
                    "presence-tracing parameters: normalizedTimePerDayToRiskLevel: riskLevel must be 1 (low) or 2 "
                        + "(high) (the previous ones are kept)"
                ])
            #expect(await warnings.parameters.transmissionRiskValue(for: 5) == 0.5)

            // None published any more: back to CWA's values.
            try await publisher.setParameters(nil)
            _ = try await warnings.sync(interestingTags: tags)
            #expect(await warnings.parameters == .cwaProduction)
            #expect(await result().riskLevelByDay == [day: 2])
        }
        // The authority tool refuses what a kiosk would refuse.
        var invalid = Self.lenient
        invalid.transmissionRiskValues = [1, 2, 3]
        await #expect(throws: PublishedParametersError.self) { try await publisher.setParameters(invalid) }
    }
}
