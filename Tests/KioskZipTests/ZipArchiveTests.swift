import Foundation
import KioskZip
import Testing

/// The zip reader and writer over zlib: round trips, archives made by Info-ZIP's `zip`, and hostile archives.
@Suite struct ZipArchiveTests {
    let export = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) }
    let signature = Array("signature list".utf8)

    @Test(arguments: [true, false]) func roundTrip(compress: Bool) throws {
        let zip = try ZipArchive.archive([("export.bin", export), ("export.sig", signature)], compress: compress)
        let archive = try ZipArchive(bytes: zip, maximumSize: 1 << 20)
        #expect(archive.entries.map(\.name) == ["export.bin", "export.sig"])
        #expect(try archive.contents(of: "export.bin", maximumSize: 1 << 20) == export)
        #expect(try archive.contents(of: "export.sig", maximumSize: 1 << 20) == signature)
        #expect(try archive.contents(of: "missing", maximumSize: 1 << 20) == nil)
        if compress { #expect(zip.count < export.count) }
    }

    @Test func readsAnArchiveMadeByInfoZIP() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(export).write(to: directory.appendingPathComponent("export.bin"))
        try Data(signature).write(to: directory.appendingPathComponent("export.sig"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
        process.currentDirectoryURL = directory
        process.arguments = ["-q", "-X", "-9", "package.zip", "export.bin", "export.sig"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let zip = [UInt8](try Data(contentsOf: directory.appendingPathComponent("package.zip")))
        let archive = try ZipArchive(bytes: zip, maximumSize: 1 << 20)
        #expect(try archive.contents(of: "export.bin", maximumSize: 1 << 20) == export)
        #expect(try archive.contents(of: "export.sig", maximumSize: 1 << 20) == signature)
    }

    @Test func aZipBombStopsAtTheLimit() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        var zip = try ZipArchive.archive([("export.bin", zeros)])
        #expect(zip.count < 64 * 1024)
        // Honestly declared: refused before inflating.
        #expect(throws: ZipError.oversized) {
            try ZipArchive(bytes: zip, maximumSize: 1 << 20).contents(of: "export.bin", maximumSize: 1 << 20)
        }
        // Declared small in both headers: inflating stops as soon as the output passes the declaration.
        let directoryOffset =
            Int(zip[zip.count - 6]) | Int(zip[zip.count - 5]) << 8 | Int(zip[zip.count - 4]) << 16 | Int(
                zip[zip.count - 3]) << 24
        // 1024
        for offset in [22, directoryOffset + 24] { zip.replaceSubrange(offset..<offset + 4, with: [0x00, 0x04, 0, 0]) }
        #expect(throws: ZipError.oversized) {
            try ZipArchive(bytes: zip, maximumSize: 1 << 20).contents(of: "export.bin", maximumSize: 1 << 20)
        }
    }

    @Test func refusesDamagedArchives() throws {
        let zip = try ZipArchive.archive([("export.bin", export), ("export.sig", signature)], compress: false)
        #expect(throws: ZipError.notAZip) {
            try ZipArchive(bytes: Array("EK Export v1    and more bytes".utf8), maximumSize: 1 << 20)
        }
        #expect(throws: ZipError.truncated) {
            try ZipArchive(bytes: Array(zip.prefix(zip.count / 2)), maximumSize: 1 << 20)
        }
        #expect(throws: ZipError.oversized) { try ZipArchive(bytes: zip, maximumSize: 100) }
        var flipped = zip
        flipped[40] ^= 0xFF  // inside export.bin's stored data
        #expect(throws: ZipError.checksumMismatch) {
            try ZipArchive(bytes: flipped, maximumSize: 1 << 20).contents(of: "export.bin", maximumSize: 1 << 20)
        }
        var farOffset = zip
        farOffset.replaceSubrange(farOffset.count - 6..<farOffset.count - 2, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: ZipError.truncated) { try ZipArchive(bytes: farOffset, maximumSize: 1 << 20) }
    }

    @Test func randomDamageNeverCrashes() throws {
        let zip = try ZipArchive.archive([("export.bin", export), ("export.sig", signature)])
        var generator = SystemRandomNumberGenerator()
        var intact = 0
        for _ in 0..<3000 {
            var damaged = zip
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if let archive = try? ZipArchive(bytes: damaged, maximumSize: 1 << 20),
                let content = try? archive.contents(of: "export.bin", maximumSize: 1 << 20)
            {
                // Whatever survives the checks is exactly the original content (the CRC guards it).
                #expect(content == export)
                intact += 1
            }
        }
        #expect(intact < 3000)
    }
}
