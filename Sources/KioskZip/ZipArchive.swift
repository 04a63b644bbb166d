/// A zip archive in memory, read through its central directory (PKWARE APPNOTE 4.3.6/4.3.12/4.3.16): stored and
/// deflated entries only, no zip64, no encryption. Every length and offset is checked against the archive's bytes
/// before it is used, and every entry is inflated under a size limit, so a hostile archive costs at most that much.
public struct ZipArchive: Sendable {
    /// One entry of the central directory.
    public struct Entry: Equatable, Sendable {
        public let name: String
        let method: UInt16
        let flags: UInt16
        let crc32: UInt32
        let compressedSize: Int
        public let uncompressedSize: Int
        let localHeaderOffset: Int
    }

    public static let maximumEntries = 1024

    private let bytes: [UInt8]
    public let entries: [Entry]

    /// Parses the central directory of `bytes`; refuses archives larger than `maximumSize` at once.
    public init(bytes: [UInt8], maximumSize: Int) throws(ZipError) {
        guard bytes.count <= maximumSize else { throw .oversized }
        guard bytes.count >= 22 else { throw bytes.starts(with: [0x50, 0x4B]) ? .truncated : .notAZip }
        let located = try Self.endOfCentralDirectory(
            in: bytes, archiveSize: bytes.count, tailOffset: 0,
            startsWithLocalHeader: bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]))
        let entries = try Self.directoryEntries(
            Array(bytes[located.offset..<(located.offset + located.size)]), count: located.count)
        self.bytes = bytes
        self.entries = entries
    }

    /// Where the central directory lies (offset and size in the archive) and how many entries it has, from the end
    /// of central directory record found in `tail`: the archive's last bytes (at most 22 + 65535), starting at
    /// `tailOffset` of an archive of `archiveSize` bytes. `startsWithLocalHeader`: whether the archive's first bytes are
    /// a local file header (an archive without an end is then incomplete rather than no zip).
    static func endOfCentralDirectory(
        in tail: [UInt8], archiveSize: Int, tailOffset: Int, startsWithLocalHeader: Bool
    ) throws(ZipError)
        -> (offset: Int, size: Int, count: Int)
    {
        guard tail.count >= 22 else { throw tail.starts(with: [0x50, 0x4B]) ? .truncated : .notAZip }
        var eocd = -1
        let earliest = max(0, tail.count - 22 - 0xFFFF)
        var position = tail.count - 22
        while position >= earliest {
            if u32(tail, position) == 0x0605_4B50 {
                eocd = position
                break
            }
            position -= 1
        }
        guard eocd >= 0 else { throw startsWithLocalHeader ? .truncated : .notAZip }
        let entryCount = Int(u16(tail, eocd + 10))
        let directorySize = Int(u32(tail, eocd + 12))
        let directoryOffset = Int(u32(tail, eocd + 16))
        guard u16(tail, eocd + 4) == 0, u16(tail, eocd + 6) == 0 else { throw .unsupported }  // multi-disk
        guard entryCount <= maximumEntries else { throw .oversized }
        let eocdInArchive = tailOffset + eocd
        guard directoryOffset <= eocdInArchive, directorySize <= eocdInArchive - directoryOffset else {
            throw .truncated
        }
        return (directoryOffset, directorySize, entryCount)
    }

    /// The `count` entries of a central directory's bytes.
    static func directoryEntries(_ directory: [UInt8], count entryCount: Int) throws(ZipError) -> [Entry] {
        var entries = [Entry]()
        var offset = 0
        for _ in 0..<entryCount {
            guard offset + 46 <= directory.count, u32(directory, offset) == 0x0201_4B50 else { throw .notAZip }
            let flags = u16(directory, offset + 8)
            let method = u16(directory, offset + 10)
            let crc = u32(directory, offset + 16)
            let compressed = u32(directory, offset + 20)
            let uncompressed = u32(directory, offset + 24)
            let nameLength = Int(u16(directory, offset + 28))
            let extraLength = Int(u16(directory, offset + 30))
            let commentLength = Int(u16(directory, offset + 32))
            let localOffset = u32(directory, offset + 42)
            let end = offset + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { throw .truncated }
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF, localOffset != 0xFFFF_FFFF else {
                throw .unsupported
            }
            let name = String(decoding: directory[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            entries.append(
                Entry(
                    name: name, method: method, flags: flags, crc32: crc, compressedSize: Int(compressed),
                    uncompressedSize: Int(uncompressed), localHeaderOffset: Int(localOffset)))
            offset = end
        }
        return entries
    }

    /// The content of the entry called `name`, or nil if there is none. Refuses more than `maximumSize` bytes
    /// of content, whatever the archive declares.
    public func contents(of name: String, maximumSize: Int) throws(ZipError) -> [UInt8]? {
        guard let entry = entries.first(where: { $0.name == name }) else { return nil }
        guard entry.flags & 0x0001 == 0 else { throw .unsupported }  // encrypted
        guard entry.uncompressedSize <= maximumSize else { throw .oversized }
        let local = entry.localHeaderOffset
        guard local + 30 <= bytes.count else { throw .truncated }
        guard Self.u32(bytes, local) == 0x0403_4B50 else { throw .notAZip }
        let dataStart = local + 30 + Int(Self.u16(bytes, local + 26)) + Int(Self.u16(bytes, local + 28))
        guard dataStart + entry.compressedSize <= bytes.count else { throw .truncated }
        let data = bytes[dataStart..<(dataStart + entry.compressedSize)]
        let content: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else { throw .corrupt }
            content = Array(data)
        case 8:
            content = try ZStream(.inflate).inflate(data, limit: min(maximumSize, entry.uncompressedSize))
        default:
            throw .unsupported
        }
        guard content.count == entry.uncompressedSize else { throw .corrupt }
        guard ZStream.crc32(content) == entry.crc32 else { throw .checksumMismatch }
        return content
    }

    /// A zip archive of `files` (name and content, in this order), each deflated unless `compress` is false. The
    /// timestamps are all 1980-01-01 00:00, so the same files give the same bytes.
    public static func archive(_ files: [(name: String, bytes: [UInt8])], compress: Bool = true) throws(ZipError)
        -> [UInt8]
    {
        var out = [UInt8]()
        var directory = [UInt8]()
        for file in files {
            let name = Array(file.name.utf8)
            guard name.count <= 0xFFFF, file.bytes.count < 0xFFFF_FFFF else { throw .oversized }
            let data = compress ? try ZStream(.deflate).deflate(file.bytes) : file.bytes
            guard data.count < 0xFFFF_FFFF, out.count < 0xFFFF_FFFF else { throw .oversized }
            let crc = ZStream.crc32(file.bytes)
            let method: UInt16 = compress ? 8 : 0
            let offset = UInt32(out.count)
            // Local file header.
            out.appendLE(UInt32(0x0403_4B50))
            out.appendLE(UInt16(20))
            out.appendLE(UInt16(0x0800))
            out.appendLE(method)
            out.appendLE(UInt16(0))
            out.appendLE(UInt16(0x21))  // time 00:00, date 1980-01-01
            out.appendLE(crc)
            out.appendLE(UInt32(data.count))
            out.appendLE(UInt32(file.bytes.count))
            out.appendLE(UInt16(name.count))
            out.appendLE(UInt16(0))
            out += name
            out += data
            // Central directory header.
            directory.appendLE(UInt32(0x0201_4B50))
            directory.appendLE(UInt16(0x031E))
            directory.appendLE(UInt16(20))
            directory.appendLE(UInt16(0x0800))
            directory.appendLE(method)
            directory.appendLE(UInt16(0))
            directory.appendLE(UInt16(0x21))
            directory.appendLE(crc)
            directory.appendLE(UInt32(data.count))
            directory.appendLE(UInt32(file.bytes.count))
            directory.appendLE(UInt16(name.count))
            directory.appendLE(UInt16(0))
            directory.appendLE(UInt16(0))
            directory.appendLE(UInt16(0))
            directory.appendLE(UInt16(0))
            directory.appendLE(UInt32(0o100644) << 16)
            directory.appendLE(offset)
            directory += name
        }
        guard files.count <= 0xFFFF, out.count + directory.count < 0xFFFF_FFFF else { throw .oversized }
        let directoryOffset = UInt32(out.count)
        out += directory
        // End of central directory.
        out.appendLE(UInt32(0x0605_4B50))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(files.count))
        out.appendLE(UInt16(files.count))
        out.appendLE(UInt32(directory.count))
        out.appendLE(directoryOffset)
        out.appendLE(UInt16(0))
        return out
    }

    /// Little-endian reads; callers check bounds first (these return 0 past the end rather than trap).
    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
            bytes[offset + 3]) << 24
    }
}

extension [UInt8] {
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }
    mutating func appendLE(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}

/// Why a zip archive could not be read or written. Carries no content.
public enum ZipError: Error, Equatable, Sendable, CustomStringConvertible {
    case notAZip
    case truncated
    case oversized
    case unsupported
    case corrupt
    case checksumMismatch
    case zlibFailure
    /// The archive's file could not be opened or read, or is not a regular file.
    case unreadable

    public var description: String {
        switch self {
        case .notAZip: "not a zip archive"
        case .truncated: "an incomplete zip archive"
        case .oversized: "a zip archive or entry larger than allowed"
        case .unsupported: "a zip archive using zip64, encryption, several disks or an unknown compression method"
        case .corrupt: "a zip entry whose compressed data is damaged"
        case .checksumMismatch: "a zip entry whose content does not match its CRC-32"
        case .zlibFailure: "zlib could not set up a stream"
        case .unreadable: "a zip archive whose file cannot be read"
        }
    }
}
