import Foundation
import KioskZip
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The zip reader over a file: the same content and the same refusals as the in-memory reader, an entry handed over
/// in chunks as it is inflated, and a zip bomb stopped at the limit whatever it declares.
@Suite struct ZipFileTests {
    let export = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) }
    let signature = Array("signature list".utf8)

    func file(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zipfile-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What the in-memory reader gives for `name`, or its error.
    func inMemory(_ zip: [UInt8], _ name: String, limit: Int) -> Result<[UInt8]?, ZipError> {
        do throws(ZipError) {
            return .success(try ZipArchive(bytes: zip, maximumSize: 1 << 24).contents(of: name, maximumSize: limit))
        } catch {
            return .failure(error)
        }
    }

    /// What the file reader gives for `name`, in chunks put together, or its error.
    func fromFile(_ zip: [UInt8], _ name: String, limit: Int) throws -> Result<[UInt8]?, ZipError> {
        let path = try file(zip)
        defer { unlink(path) }
        do throws(ZipError) {
            let archive = try ZipFile(path: path, maximumSize: 1 << 24)
            var content = [UInt8]()
            var chunks = 0
            let found = try archive.stream(name, maximumSize: limit) { chunk in
                #expect(chunk.count <= 64 * 1024)
                content.append(contentsOf: chunk)
                chunks += 1
                return true
            }
            return .success(found ? content : nil)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [true, false]) func sameContentAsInMemoryInChunks(compress: Bool) throws {
        let zip = try ZipArchive.archive([("export.bin", export), ("export.sig", signature)], compress: compress)
        for name in ["export.bin", "export.sig", "missing"] {
            let expected = inMemory(zip, name, limit: 1 << 20)
            #expect(try fromFile(zip, name, limit: 1 << 20) == expected)
        }
        #expect(try fromFile(zip, "export.bin", limit: 1 << 20) == .success(export))
        let path = try file(zip)
        defer { unlink(path) }
        let archive = try ZipFile(path: path, maximumSize: 1 << 20)
        #expect(archive.entries.map(\.name) == ["export.bin", "export.sig"])
        #expect(try archive.contents(of: "export.sig", maximumSize: 1024) == signature)
    }

    @Test func aZipBombStopsAtTheLimitWhateverItDeclares() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        var zip = try ZipArchive.archive([("export.bin", zeros)])
        #expect(try fromFile(zip, "export.bin", limit: 1 << 20) == .failure(.oversized))
        let directoryOffset = zip.suffix(6).prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        for offset in [22, directoryOffset + 24] { zip.replaceSubrange(offset..<offset + 4, with: [0x00, 0x04, 0, 0]) }
        let path = try file(zip)
        defer { unlink(path) }
        var produced = 0
        #expect(throws: ZipError.oversized) {
            try ZipFile(path: path, maximumSize: 1 << 20).stream("export.bin", maximumSize: 1 << 20) { chunk in
                produced += chunk.count
                return true
            }
        }
        // Nothing past the declared 1024 bytes was handed over.
        #expect(produced <= 1024)
    }

    @Test func refusesWhatTheInMemoryReaderRefuses() throws {
        let zip = try ZipArchive.archive([("export.bin", export), ("export.sig", signature)], compress: false)
        var flipped = zip
        flipped[40] ^= 0xFF
        var farOffset = zip
        farOffset.replaceSubrange(farOffset.count - 6..<farOffset.count - 2, with: [0xFF, 0xFF, 0xFF, 0x7F])
        let deflated = try ZipArchive.archive([("export.bin", export)])
        var damages = [
            Array("EK Export v1    and more bytes".utf8), Array(zip.prefix(zip.count / 2)), flipped, farOffset,
            Array(deflated.prefix(60)) + Array(deflated.suffix(deflated.count - 60 - 100)),
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var damaged = deflated
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            damages.append(damaged)
        }
        for (index, damaged) in damages.enumerated() {
            let streamed = try fromFile(damaged, "export.bin", limit: 1 << 20)
            let whole = inMemory(damaged, "export.bin", limit: 1 << 20)
            #expect(streamed == whole, "damage \(index)")
        }
        let path = try file(zip)
        defer { unlink(path) }
        #expect(throws: ZipError.oversized) { try ZipFile(path: path, maximumSize: 100) }
        #expect(throws: ZipError.unreadable) { try ZipFile(path: path + ".missing", maximumSize: 1 << 20) }
        #expect(throws: ZipError.unreadable) { try ZipFile(path: "/dev/zero", maximumSize: 1 << 20) }
    }
}
