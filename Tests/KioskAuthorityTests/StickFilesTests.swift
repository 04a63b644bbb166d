import Foundation
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Files on a USB stick are judged by what is actually opened: a symbolic link to a huge file or to a device, a
/// named pipe, an enormous signature file — each is refused without being read, and the rest of the stick is taken.
@Suite struct StickFilesTests {
    /// A sparse file of `size` bytes (no disk space used).
    static func sparse(_ path: String, size: Int) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(ftruncate(descriptor, off_t(size)) == 0)
    }

    /// A stick (and the kiosk's state folder beside it) with a huge file behind a small link, a device behind a link
    /// and a named pipe, each named `*.suffix`.
    static func hostileStick(suffix: String) throws -> (root: String, stick: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stick-\(UUID().uuidString)").path
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        try sparse(root + "/huge", size: 1 << 30)
        try #require(symlink(root + "/huge", stick + "/a-linked.\(suffix)") == 0)
        try #require(symlink("/dev/zero", stick + "/b-device.\(suffix)") == 0)
        try #require(mkfifo(stick + "/c-pipe.\(suffix)", 0o600) == 0)
        return (root, stick)
    }

    @Test func ckpwPackagesOnAStickAreReadOnlyWithinTheirBounds() async throws {
        let (root, stick) = try Self.hostileStick(suffix: "bin")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // And a package whose signature is 1 GiB.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: stick + "/d-big-signature.bin"))
        try Self.sparse(stick + "/d-big-signature.bin.sig", size: 1 << 30)
        let key = try ECDSAPrivateKey()
        let client = WarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let report = try await client.loadFromDirectory(stick, interestingTags: [])
        #expect(
            report.rejected == [
                "a-linked.bin: larger than a package may be", "b-device.bin: not a readable file",
                "c-pipe.bin: not a readable file", "d-big-signature.bin: no signature beside it",
            ])
        #expect(report.packagesFetched == 0)
    }

    @Test func cwaZipsOnAStickAreReadOnlyWithinTheirBounds() async throws {
        let (root, stick) = try Self.hostileStick(suffix: "zip")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let client = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try ECDSAPrivateKey().publicKey(),
            stateDirectory: root + "/kiosk")
        let report = try await client.loadFromDirectory(stick, interestingHashes: [])
        #expect(report.rejected.count == 3)
        #expect(report.rejected.first?.hasPrefix("a-linked.zip: ") == true)
        #expect(
            report.rejected.dropFirst() == ["b-device.zip: not a readable file", "c-pipe.zip: not a readable file"])
        #expect(report.hoursFetched == 0)
    }
}

/// A stick's file names are anyone's text: what the kiosk says about them carries no terminal escape or direction
/// control (`kiosk simulate load-warnings` prints these lines).
@Suite struct StickFileNameTests {
    @Test func fileNamesAreNeutralisedInWhatIsSaidAboutThem() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in [root + "/stick", root + "/kiosk"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/stick/evil\u{1B}]0;x\u{7}\u{202E}.bin"))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/stick/odd\u{9B}31m.zip"))
        let key = try ECDSAPrivateKey()
        let ckpw = WarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let cwa = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let lines =
            try await ckpw.loadFromDirectory(root + "/stick", interestingTags: []).rejected
            + (try await cwa.loadFromDirectory(root + "/stick", interestingHashes: []).rejected)
        #expect(lines.count == 2)
        #expect(lines.first == "evil\u{FFFD}]0;x\u{FFFD}\u{FFFD}.bin: no signature beside it")
        #expect(lines.last?.hasPrefix("odd\u{FFFD}31m.zip: ") == true)
        for line in lines { #expect(!OutsideText.containsUnsafe(line)) }
    }
}

/// What is parsed is what was verified: a stick's file rewritten between the signature check and the parse (by
/// another process, or a stick that answers differently the second time) changes nothing.
@Suite struct StickFileRewriteTests {
    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_000

    func sealed(_ locationId: [UInt8]) throws -> [UInt8] {
        let keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
        return try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day) * 144 + 60, period: 6, transmissionRiskLevel: 7), keys: keys
        )
    }

    /// Replaces the file's bytes in place (the same inode, as a process holding it open for writing would).
    static func rewrite(_ path: String, with bytes: [UInt8]) {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    @Test(arguments: [false, true])
    func aCKPWPackageRewrittenAfterItsSignatureWasCheckedIsReadAsVerified(indexed: Bool) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rewrite-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        // The authority's package: someone else's venue only.
        let publisher = try WarningPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/stick", signer: key)
        try await publisher.acceptFromTestCentre(
            try ReportBatch(records: [try sealed([UInt8](repeating: 0x11, count: 32))]))
        let published = try #require(try await publisher.publish(now: 1))
        // A forged package naming this kiosk's venue, signed by nobody the kiosk trusts.
        let forger = try WarningPublisher(
            stateDirectory: root + "/forger", publishDirectory: root + "/forged", signer: try ECDSAPrivateKey())
        try await forger.acceptFromTestCentre(try ReportBatch(records: [try sealed(venue)]))
        let forgedPackage = try #require(try await forger.publish(now: 1))
        let forged = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/forged/" + forgedPackage.file)))
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let client = WarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let stickFile = root + "/stick/" + published.file
        await client.setOnVerified { Self.rewrite(stickFile, with: forged) }
        let tags = Set(try WarningMatcher.tags(locationId: venue, days: day...day, crypto: crypto))
        let report =
            indexed
            ? try await client.sync(interestingTags: tags, fromDirectory: root + "/stick")
            : try await client.loadFromDirectory(root + "/stick", interestingTags: tags)
        #expect(report.packagesFetched == 1)
        #expect(report.recordsKept == 0, "the forged record was taken")
        #expect(await client.index.count == 0)
    }

    @Test func aCWAHourRewrittenAfterItsSignatureWasCheckedIsReadAsVerified() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rewrite-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        let base = day * 86_400
        let key = try ECDSAPrivateKey()
        // The authority's hour: a warning for someone else's venue.
        let publisher = try CWAHourlyPublisher(
            stateDirectory: root + "/authority", publishDirectory: root + "/stick", signer: key)
        try await publisher.addHostWarning(
            locationId: [UInt8](repeating: 0x11, count: 32), start: base + 10 * 3600, end: base + 11 * 3600)
        let published = try #require(try await publisher.publish(now: base + 12 * 3600))
        // The same hour forged by someone the kiosk does not trust, warning this kiosk's venue.
        let forger = try CWAHourlyPublisher(
            stateDirectory: root + "/forger", publishDirectory: root + "/forged", signer: try ECDSAPrivateKey())
        try await forger.addHostWarning(locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600)
        let forgedHour = try #require(try await forger.publish(now: base + 12 * 3600))
        let forged = [UInt8](try Data(contentsOf: URL(fileURLWithPath: forgedHour.path)))
        let client = CWAWarningsClient(
            baseURL: "http://unused.invalid", verifier: try key.publicKey(), stateDirectory: root + "/kiosk")
        let stickFile = published.path
        await client.setOnVerified { Self.rewrite(stickFile, with: forged) }
        let report = try await client.sync(
            interestingHashes: [try crypto.sha256(venue)], fromDirectory: root + "/stick/twp/country/DE")
        #expect(report.hoursFetched == 1)
        #expect(report.recordsKept == 0, "the forged warning was taken")
        #expect(await client.warnings.count == 0)
    }
}
