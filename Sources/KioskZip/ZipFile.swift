internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// A zip archive in a file, read through its central directory like `ZipArchive` (stored and deflated entries, no
/// zip64, no encryption) but never held whole: the directory is read from the file's end, and an entry is handed
/// over in chunks as it is inflated (`stream`), under a size limit checked as the bytes come (a zip bomb stops
/// there). Owns one file descriptor, opened once: the file is judged by what was opened (a regular file of at most
/// the archive limit).
public final class ZipFile {
    public let entries: [ZipArchive.Entry]
    private let descriptor: Int32
    private let size: Int
    static let chunkSize = 64 * 1024

    /// Opens `path` and reads its central directory. Refuses a file larger than `maximumSize` before reading it.
    /// The corresponding C functions are `open`, `fstat` and `pread`.
    public init(path: String, maximumSize: Int) throws(ZipError) {
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { throw .unreadable }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .unreadable
        }
        guard status.st_size <= maximumSize else {
            close(descriptor)
            throw .oversized
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
        // The end of central directory lies in the last 22 bytes, or up to 65535 bytes earlier (a comment).
        let tailLength = min(size, 22 + 0xFFFF)
        guard let tail = Self.read(descriptor, at: size - tailLength, count: tailLength) else {
            close(descriptor)
            throw .unreadable
        }
        do throws(ZipError) {
            let start = Self.read(descriptor, at: 0, count: min(4, size)) ?? []
            let located = try ZipArchive.endOfCentralDirectory(
                in: tail, archiveSize: size, tailOffset: size - tailLength,
                startsWithLocalHeader: start == [0x50, 0x4B, 0x03, 0x04])
            guard let directory = Self.read(descriptor, at: located.offset, count: located.size) else {
                throw .unreadable
            }
            entries = try ZipArchive.directoryEntries(directory, count: located.count)
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// The whole content of the entry called `name` (a small one, like a signature), or nil if there is none.
    public func contents(of name: String, maximumSize: Int) throws(ZipError) -> [UInt8]? {
        var content = [UInt8]()
        let found = try stream(name, maximumSize: maximumSize) { chunk in
            content.append(contentsOf: chunk)
            return true
        }
        return found ? content : nil
    }

    /// Hands the content of the entry called `name` to `body` in chunks as it is inflated (`body` returns false to
    /// stop early); returns false if there is no such entry. Refuses more than `maximumSize` bytes of content,
    /// whatever the archive declares, as soon as they are produced; checks the CRC-32 and size at the end.
    @discardableResult
    public func stream(_ name: String, maximumSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(ZipError)
        -> Bool
    {
        guard let entry = entries.first(where: { $0.name == name }) else { return false }
        guard entry.flags & 0x0001 == 0 else { throw .unsupported }  // encrypted
        guard entry.uncompressedSize <= maximumSize else { throw .oversized }
        let local = entry.localHeaderOffset
        guard local + 30 <= size, let header = Self.read(descriptor, at: local, count: 30) else { throw .truncated }
        guard ZipArchive.u32(header, 0) == 0x0403_4B50 else { throw .notAZip }
        let dataStart = local + 30 + Int(ZipArchive.u16(header, 26)) + Int(ZipArchive.u16(header, 28))
        guard dataStart + entry.compressedSize <= size else { throw .truncated }
        let limit = min(maximumSize, entry.uncompressedSize)
        var produced = 0
        var crc: UInt32 = 0
        var stopped = false
        func deliver(_ chunk: UnsafeRawBufferPointer) -> Bool {
            produced += chunk.count
            guard produced <= limit else { return false }
            crc = ZStream.crc32(crc, chunk)
            if !body(chunk) { stopped = true }
            return !stopped
        }
        var offset = dataStart
        let end = dataStart + entry.compressedSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        let descriptor = descriptor
        func next() throws(ZipError) -> UnsafeRawBufferPointer? {
            guard offset < end else { return nil }
            let count = min(buffer.count, end - offset)
            let read = SystemCall.retrying { pread(descriptor, buffer.baseAddress, count, off_t(offset)) }
            guard read > 0 else { throw .truncated }
            offset += read
            return UnsafeRawBufferPointer(rebasing: buffer[0..<read])
        }
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else { throw .corrupt }
            while let chunk = try next() {
                if !deliver(chunk) { break }
            }
        case 8:
            try ZStream(.inflate).inflate(next, deliver)
        default:
            throw .unsupported
        }
        if stopped { return true }
        guard produced <= limit else { throw .oversized }
        guard produced == entry.uncompressedSize else { throw .corrupt }
        guard crc == entry.crc32 else { throw .checksumMismatch }
        return true
    }

    /// `count` bytes at `offset`, or nil if the file has fewer.
    private static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retrying {
                    pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                }
            }
            guard read > 0 else { return nil }
            done += read
        }
        return bytes
    }
}
