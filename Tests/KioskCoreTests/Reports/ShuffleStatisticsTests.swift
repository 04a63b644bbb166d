import KioskCore
import KioskOpenSSL
import Testing

/// Pearson's χ² statistic of `counts` against equal expected counts.
func chiSquare(_ counts: [Int]) -> Double {
    let expected = Double(counts.reduce(0, +)) / Double(counts.count)
    return counts.reduce(0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
}

/// The χ² value with 15 degrees of freedom that a uniform shuffle exceeds with probability 10⁻⁶: a test that fails
/// above it is wrong about a fair shuffle once in a million runs, and fails every time for a biased one.
let chiSquare15DegreesAtOneInAMillion = 56.49

/// The batch the kiosk sends (the specification's protected reports requirement 5: shuffled before sending) and the
/// pool the authority publishes (server requirement 1) are permuted uniformly: measured, with fixed bounds.
@Suite struct ShuffleStatisticsTests {
    let crypto = OpenSSLCrypto()

    @Test func everyElementIsEquallyLikelyAtEveryPosition() throws {
        let trials = 4000
        var positionOfFirst = [Int](repeating: 0, count: 16)
        var elementAtFront = [Int](repeating: 0, count: 16)
        var firstBeforeSecond = 0
        for _ in 0..<trials {
            var values = (0..<16).map { [UInt8($0)] }
            try ReportBatch.shuffle(&values, crypto: crypto)
            let first = try #require(values.firstIndex(of: [0]))
            let second = try #require(values.firstIndex(of: [1]))
            positionOfFirst[first] += 1
            elementAtFront[Int(values[0][0])] += 1
            if first < second { firstBeforeSecond += 1 }
        }
        #expect(chiSquare(positionOfFirst) < chiSquare15DegreesAtOneInAMillion, "positions: \(positionOfFirst)")
        #expect(chiSquare(elementAtFront) < chiSquare15DegreesAtOneInAMillion, "front: \(elementAtFront)")
        // Relative order: a fair coin over 4000 trials stays within 5.5 standard deviations (31.6 each).
        #expect(abs(firstBeforeSecond - trials / 2) < 174, "first before second \(firstBeforeSecond) of \(trials)")
    }

    @Test func aRealReportIsEquallyLikelyAnywhereInItsPaddedBatch() throws {
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x21, count: 32), crypto: crypto)
        let sealed = try (0..<7).map {
            try CKPR.seal(
                PresenceReport(startIntervalNumber: 2_691_414 + UInt32($0) * 144, period: 6, transmissionRiskLevel: 7),
                keys: keys)
        }
        var positions = [Int](repeating: 0, count: 16)
        var realInFirstHalf = 0
        let trials = 3200
        for _ in 0..<trials {
            let batch = try ReportBatch.assemble(sealed, crypto: crypto)
            #expect(batch.records.count == 16)
            positions[try #require(batch.records.firstIndex(of: sealed[0]))] += 1
            realInFirstHalf += batch.records.prefix(8).filter { sealed.contains($0) }.count
        }
        #expect(chiSquare(positions) < chiSquare15DegreesAtOneInAMillion, "positions: \(positions)")
        // 7 real of 16: on average 3.5 in the first half (an unshuffled batch would put 7 there every time).
        let mean = Double(realInFirstHalf) / Double(trials)
        #expect(abs(mean - 3.5) < 0.1, "mean real records in the first half: \(mean)")
    }
}
