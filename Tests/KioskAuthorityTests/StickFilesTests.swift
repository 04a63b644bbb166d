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

    @Test func ckpwPackagesOnAStickAreReadOnlyWithinTheirBounds() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stick-files-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        // A huge file behind a small link; a device behind a link; a pipe; a package whose signature is 1 GiB.
        try Self.sparse(root + "/huge", size: 1 << 30)
        #expect(symlink(root + "/huge", stick + "/a-linked.bin") == 0)
        #expect(symlink("/dev/zero", stick + "/b-device.bin") == 0)
        #expect(mkfifo(stick + "/c-pipe.bin", 0o600) == 0)
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
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stick-zips-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        try Self.sparse(root + "/huge", size: 1 << 30)
        #expect(symlink(root + "/huge", stick + "/a-linked.zip") == 0)
        #expect(symlink("/dev/zero", stick + "/b-device.zip") == 0)
        #expect(mkfifo(stick + "/c-pipe.zip", 0o600) == 0)
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
