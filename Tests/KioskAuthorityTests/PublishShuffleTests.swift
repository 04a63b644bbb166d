import Foundation
import KioskAuthority
import KioskCore
import KioskOpenSSL
import Testing

/// The authority pools uploads and publishes each package as a uniform shuffle of the pool, so that no two records
/// can be told to come from one upload by where they sit (the specification's server requirement 1).
@Suite struct PublishShuffleTests {
    let crypto = OpenSSLCrypto()

    @Test func aRecordOfOneUploadIsEquallyLikelyAtEveryPositionOfThePackage() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shuffle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let publisher = try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: try ECDSAPrivateKey())
        var positions = [Int](repeating: 0, count: 24)
        var firstUploadInFront = 0
        let rounds = 640
        for round in 0..<rounds {
            // Three uploads of 8 records each (the minimum mix: no made-up ones), one after the other.
            var uploads = [[[UInt8]]]()
            for _ in 0..<WarningPublisher.minimumMix {
                let records = try (0..<8).map { _ in try crypto.randomBytes(count: CKPR.recordLength) }
                try await publisher.acceptFromTestCentre(try ReportBatch(records: records))
                uploads.append(records)
            }
            let published = try #require(try await publisher.publish(now: 1_700_000_000 + Int64(round)))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + published.file)))
            let records = try WarningPackage(unverifiedBytes: bytes).records
            #expect(records.count == 24)
            positions[try #require(records.firstIndex(of: uploads[0][0]))] += 1
            firstUploadInFront += records.prefix(8).filter { uploads[0].contains($0) }.count
        }
        #expect(chiSquare(positions) < 70.55, "positions: \(positions)")  // χ², 23 degrees, 10⁻⁶
        // On average a third of the first upload's 8 records sit in the package's first 8 (all 8 if appended).
        let mean = Double(firstUploadInFront) / Double(rounds)
        #expect(abs(mean - 8.0 / 3) < 0.25, "mean records of the first upload in front: \(mean)")
    }

    /// Pearson's χ² statistic of `counts` against equal expected counts.
    func chiSquare(_ counts: [Int]) -> Double {
        let expected = Double(counts.reduce(0, +)) / Double(counts.count)
        return counts.reduce(0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    }
}
