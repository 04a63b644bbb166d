import Foundation
import KioskOpenSSL
import KioskSodium
import Testing

@testable import KioskCore

/// The kiosk's CrowdNotifier matching against an independent oracle (`Tests/oracle/crowdnotifier_oracle.py`,
/// written from the specification with hashlib and PyNaCl): random venues (NotifyMe v2, v3, v4, SwissCovid v4), stays
/// and published events, with the expected matches computed by the oracle. Run by `Tests/scripts/25-crowdnotifier-oracle.sh`,
/// which generates the scenarios and sets `KIOSK_CROWDNOTIFIER_ORACLE` to their folder.
@Suite struct CrowdNotifierOracleTests {
    static let folder = ProcessInfo.processInfo.environment["KIOSK_CROWDNOTIFIER_ORACLE"]

    struct File: Decodable {
        struct Scenario: Decodable {
            let name: String
            let scheme: String
            let url: String
            let stays: [[Int64]]
            let expected: [[[Int64]]]
        }
        let seed: Int
        let scenarios: [Scenario]
    }

    func package(_ path: String, verifier: ECDSAPublicKey) throws -> CrowdNotifierEventPackage {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".sig")))
        return try CrowdNotifierEventPackage.verified(bytes: bytes, signature: signature, verifier: verifier)
    }

    @Test(.enabled(if: folder != nil)) func everyScenarioMatchesTheOracle() throws {
        let folder = try #require(Self.folder)
        let crypto = OpenSSLCrypto()
        let box = SodiumSecretBox()
        let file = try JSONDecoder().decode(
            File.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/scenarios.json")))
        let verifier = try ECDSAPublicKey(
            pem: String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/authority.pem")), as: UTF8.self))
        var missed = 0
        var falseMatches = 0
        var expectedMatches = 0
        var schemes = Set<String>()
        for scenario in file.scenarios {
            schemes.insert(scenario.scheme)
            let venue = try VenueCodeParser.parse(scenario.url, crypto: crypto)
            let keys = try #require(venue.crowdNotifier, "\(scenario.name): no CrowdNotifier keys")
            let stays = scenario.stays.enumerated().map { offset, stay in
                MatchableStay(id: "\(offset)", locationId: [], start: stay[0], end: stay[1], crowdNotifier: keys)
            }
            let base = scenario.name
            var index = CrowdNotifierEventIndex(try package(folder + "/\(base)-good.bin", verifier: verifier).events)
            // Another authority's key, or a signature over other bytes: refused, so nothing is added.
            for variant in ["foreign", "badsig"] {
                #expect(throws: WarningPackageError.badSignature, "\(base) \(variant)") {
                    try package(folder + "/\(base)-\(variant).bin", verifier: verifier)
                }
            }
            // Signed, but every would-be match has a changed ciphertext byte: taken, and matches nothing more.
            for event in try package(folder + "/\(base)-tampered.bin", verifier: verifier).events { index.add(event) }

            let result = CrowdNotifierMatcher.match(stays: stays, index: index, crypto: crypto, box: box)
            for (offset, expected) in scenario.expected.enumerated() {
                let found = result.matches.filter { $0.stayId == "\(offset)" }.map { [$0.day, $0.overlapMinutes] }
                expectedMatches += expected.isEmpty ? 0 : 1
                if !expected.isEmpty && found.isEmpty { missed += 1 }
                if expected.isEmpty && !found.isEmpty { falseMatches += 1 }
                let ordered: ([Int64], [Int64]) -> Bool = { $0.lexicographicallyPrecedes($1) }
                #expect(found.sorted(by: ordered) == expected.sorted(by: ordered), "\(base) stay \(offset)")
            }
        }
        #expect(file.scenarios.count >= 200)
        #expect(schemes == ["v2", "v3", "v4"])
        #expect(expectedMatches > 0)
        #expect(missed == 0)
        #expect(falseMatches == 0)
        print(
            "CrowdNotifierOracleTests: seed \(file.seed): \(file.scenarios.count) scenarios, \(expectedMatches) stays "
                + "to match, \(missed) missed, \(falseMatches) false matches")
    }
}
