import Foundation
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// Where a warnings client takes the authority's files from: its server, or a copy of what it publishes in a local
/// folder (a USB stick). Both go through the same checks; only the transport differs.
enum WarningsFileSource: Sendable {
    case remote
    case directory(String)

    var isRemote: Bool {
        if case .remote = self { true } else { false }
    }

    /// Why a listed file could not be taken (it is looked for again next time).
    func unavailable(_ status: Int) -> String {
        switch self {
        case .remote: "not available (\(status))"
        case .directory: "missing from the folder"
        }
    }
}

/// What reading one file from a folder (a USB stick) gave.
enum LocalFileRead: Equatable, Sendable {
    case bytes([UInt8])
    /// No such file.
    case missing
    /// Something that is not a regular file (a folder, a pipe, a device), whatever a link in its path pointed to.
    case notAFile
    /// Larger than the limit: refused before a byte is read.
    case oversized
    /// It could not be opened or read.
    case unreadable
}

/// The one way the warnings clients read files from a folder (a USB stick, which anyone may have prepared): the file
/// is opened first, and its type and size are checked on what was opened (`fstat`), so a symbolic link to a large
/// file or to a device is judged by its target; at most `limit` + 1 bytes are ever read.
enum LocalWarningsFiles {
    static func isRegularFile(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
    }

    /// Whether `path` is a regular file of at most `limit` bytes, judged like `read` on what opening it gives (a
    /// link by its target) but without reading it: nil when it is, else why not. Returns its size in `size`.
    static func check(_ path: String, limit: Int) -> (refusal: LocalFileRead?, size: Int) {
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { return (errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable, 0) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return (.unreadable, 0) }
        guard status.st_mode & S_IFMT == S_IFREG else { return (.notAFile, 0) }
        guard status.st_size <= limit else { return (.oversized, Int(status.st_size)) }
        return (nil, Int(status.st_size))
    }

    /// Reads `path` if it is a regular file of at most `limit` bytes. The corresponding C functions are `open`,
    /// `fstat` and `read`.
    static func read(_ path: String, limit: Int) -> LocalFileRead {
        // Non-blocking: opening a named pipe must not wait for a writer.
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .unreadable }
        guard status.st_mode & S_IFMT == S_IFREG else { return .notAFile }
        guard status.st_size <= limit else { return .oversized }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes[count...].withUnsafeMutableBytes { buffer in
                SystemCall.retrying { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard read >= 0 else { return .unreadable }
            if read == 0 { break }
            count += read
        }
        // The file grew while it was read: still never more than the limit.
        guard count <= limit else { return .oversized }
        return .bytes(Array(bytes[0..<count]))
    }

    /// Reads a file the way `boundedGet` fetches one: 200 with the bytes, 404 when there is no such regular file,
    /// `.oversized` past the limit.
    static func get(_ path: String, limit: Int) throws(WarningsSyncError) -> (Int, [UInt8], String?) {
        switch read(path, limit: limit) {
        case .bytes(let bytes): return (200, bytes, nil)
        case .oversized: throw .oversized
        case .missing, .notAFile, .unreadable: return (404, [], nil)
        }
    }
}
