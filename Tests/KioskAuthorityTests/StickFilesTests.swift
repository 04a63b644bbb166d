import Foundation
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
