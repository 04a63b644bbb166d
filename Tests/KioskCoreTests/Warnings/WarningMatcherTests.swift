import KioskCore
import KioskOpenSSL
import Testing

/// Packages are verified before they are read; matching finds overlapping stays through the tag index only.
@Suite struct WarningMatcherTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let otherVenue = [UInt8](repeating: 0x55, count: 32)
    let day: Int64 = 18_690  // 2021-03-04

    /// Always-true or always-false verifier for the package-parsing paths.
    struct FixedVerifier: SignatureVerifier {
        let answer: Bool
        func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool { answer }
    }

    func record(_ locationId: [UInt8], startInterval: UInt32, period: UInt16, trl: UInt8 = 7) throws -> [UInt8] {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        return try CKPR.seal(
            PresenceReport(startIntervalNumber: startInterval, period: period, transmissionRiskLevel: trl), keys: keys)
    }

    @Test func packageIsVerifiedBeforeItIsRead() throws {
        let package = try WarningPackage(
            createdAt: 1_700_000_000, records: [try record(venue, startInterval: UInt32(day) * 144 + 60, period: 6)])
        let bytes = package.bytes
        let signer = try ECDSAPrivateKey()
        let signature = try signer.signature(for: bytes)
        #expect(
            try WarningPackage.verified(bytes: bytes, signature: signature, verifier: signer.publicKey()) == package)
        #expect(throws: WarningPackageError.badSignature) {
            try WarningPackage.verified(bytes: bytes, signature: signature, verifier: ECDSAPrivateKey().publicKey())
        }
        #expect(throws: WarningPackageError.unsigned) {
            try WarningPackage.verified(bytes: bytes, signature: [], verifier: FixedVerifier(answer: true))
        }
        #expect(throws: WarningPackageError.oversized) {
            try WarningPackage.verified(
                bytes: bytes, signature: signature, verifier: FixedVerifier(answer: true), maximumSize: 10)
        }
        // A validly signed but truncated package is still refused.
        let truncated = Array(bytes.dropLast())
        #expect(throws: WarningPackageError.truncated) {
            try WarningPackage.verified(
                bytes: truncated, signature: signer.signature(for: truncated), verifier: signer.publicKey())
        }
        #expect(throws: WarningPackageError.notAPackage) {
            try WarningPackage(unverifiedBytes: Array("CKPB".utf8) + [1, 0])
        }
    }

    @Test func overlappingStayIsWarnedOthersAreNot() throws {
        // Report: 10:00–11:00 UTC on `day`, TRL 7 (value 1.4).
        let published = try record(venue, startInterval: UInt32(day) * 144 + 60, period: 6)
        let unrelated = try record(otherVenue, startInterval: UInt32(day) * 144 + 60, period: 6)
        let noise = try (0..<50).map { _ in try crypto.randomBytes(count: CKPR.recordLength) }
        let interesting = Set(try WarningMatcher.tags(locationId: venue, days: day - 1...day + 1, crypto: crypto))
        var index = WarningIndex()
        #expect(index.add([published, unrelated] + noise, keepingTags: interesting) == 1)
        #expect(index.count == 1)

        let base = day * 86_400
        let overlapping = MatchableStay(
            id: "b", locationId: venue, start: base + 10 * 3600 + 30 * 60, end: base + 12 * 3600)
        let before = MatchableStay(id: "c", locationId: venue, start: base + 8 * 3600, end: base + 9 * 3600)
        let elsewhere = MatchableStay(id: "d", locationId: otherVenue, start: base + 10 * 3600, end: base + 11 * 3600)
        let own = MatchableStay(
            id: "a", locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600, ownReports: [published])
        let result = WarningMatcher.match(
            stays: [overlapping, before, elsewhere, own], index: index, now: base + 86_400, crypto: crypto)
        #expect(result.matches.map(\.stayId) == ["b"])
        #expect(result.matches.first?.overlapMinutes == 30)
        #expect(result.matches.first?.normalizedTime == 42)
        #expect(result.isHighRisk)
        #expect(result.riskLevelByDay == [day: 2])
    }

    @Test func shortLowRiskOverlapIsLowAndOldStaysAreIgnored() throws {
        let published = try record(venue, startInterval: UInt32(day) * 144 + 60, period: 6, trl: 3)  // value 0.6
        var index = WarningIndex()
        index.add(
            [published], keepingTags: Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto)))
        let base = day * 86_400
        let brief = MatchableStay(
            id: "x", locationId: venue, start: base + 10 * 3600 + 50 * 60, end: base + 11 * 3600 + 30 * 60)
        let result = WarningMatcher.match(stays: [brief], index: index, now: base + 3600 * 20, crypto: crypto)
        #expect(result.matches.first?.overlapMinutes == 10)
        #expect(result.riskLevelByDay == [day: 1])
        #expect(!result.isHighRisk)
        let late = WarningMatcher.match(stays: [brief], index: index, now: base + 11 * 86_400, crypto: crypto)
        #expect(late.matches.isEmpty)
    }

    @Test func tamperedRecordUnderTheRightTagDoesNotMatch() throws {
        var published = try record(venue, startInterval: UInt32(day) * 144 + 60, period: 6)
        published[40] ^= 1
        var index = WarningIndex()
        index.add(
            [published], keepingTags: Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto)))
        let base = day * 86_400
        let stay = MatchableStay(id: "x", locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600)
        #expect(WarningMatcher.match(stays: [stay], index: index, now: base + 86_400, crypto: crypto).matches.isEmpty)
    }

    @Test func retainDropsExpiredTags() throws {
        let tags = try WarningMatcher.tags(locationId: venue, days: day...day + 1, crypto: crypto)
        var index = WarningIndex()
        index.add(
            [
                try record(venue, startInterval: UInt32(day) * 144, period: 6),
                try record(venue, startInterval: UInt32(day + 1) * 144, period: 6),
            ],
            keepingTags: Set(tags))
        #expect(index.count == 2)
        index.retain(tags: [tags[1]])
        #expect(index.count == 1)
    }
}
