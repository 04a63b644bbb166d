public import KioskCore
internal import KioskHTTP
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// Why a package file could not be taken. Carries no content; the text is safe for logs and screens.
enum PackageFileFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// More bytes than the configured bound: a download is stopped there, a file on a stick refused unread.
    case oversized(limit: Int)
    /// The file could not be opened or read (or, for a download, written).
    case unreadable
    /// The download did not complete: the server could not be reached, did not finish in time…
    case notDownloaded(String)
    /// The package's own checks failed (signature, format).
    case package(WarningPackageError)

    var description: String {
        switch self {
        case .oversized(let limit):
            "larger than the configured bound of \(limit) bytes (warnings.maxPackageBytes): stopped there, nothing kept"
        case .unreadable: "the file could not be read"
        case .notDownloaded(let reason): "not downloaded: \(reason)"
        case .package(let error): "\(error)"
        }
    }
}

/// A package read from a file in chunks: checked against its detached signature by streaming it through SHA-256, then
/// read again in chunks by a streaming parser. Nothing of the package is held beyond one chunk and what the parser
/// keeps. Both passes read a file only the kiosk writes — a download in its state directory, or the private copy
/// made there first of a file on a USB stick (`privateCopy`) — so what is parsed is exactly what was verified: a
/// process that rewrites the stick's file between the two passes changes nothing.
enum StreamedPackageFile {
    static let chunkSize = 64 * 1024

    /// Downloads `url` into `path` (replacing it) through `HTTP.download`, at most `limit` bytes. Returns the status;
    /// the file is there only when the status is 200 (the caller removes it when done). Throws when there is no
    /// complete answer (the reason carries no address or content).
    static func download(_ url: String, to path: String, limit: Int, timeout: Duration)
        async throws(PackageFileFailure) -> Int
    {
        do {
            let response = try await HTTP.download(
                HTTPRequest(.get, url: url), to: path, limit: limit, timeout: timeout)
            if response.status != 200 { unlink(path) }
            return response.status
        } catch .oversized {
            throw .oversized(limit: limit)
        } catch .cannotWrite {
            throw .unreadable
        } catch {
            throw .notDownloaded(error.description)
        }
    }

    /// Copies the file at `source` (a USB stick's, which anyone may write to, even while it is read) to
    /// `destination` in the kiosk's own state directory, replacing what is there, in one pass: the source is opened
    /// once and judged on what was opened (a regular file of at most `limit` bytes; a link by its target, a pipe
    /// refused unread), the copy is created afresh (mode 0600, never through a link) and never holds more than
    /// `limit` bytes. The corresponding C functions are `open`, `fstat`, `read` and `write`.
    static func privateCopy(of source: String, to destination: String, limit: Int) throws(PackageFileFailure) {
        let input = SystemCall.retrying { open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard input >= 0 else { throw .unreadable }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .unreadable }
        guard status.st_size <= limit else { throw .oversized(limit: limit) }
        unlink(destination)
        let output = SystemCall.retrying {
            open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard output >= 0 else { throw .unreadable }
        var copied = false
        defer {
            close(output)
            if !copied { unlink(destination) }
        }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var written = true
        try eachChunk(input, limit: limit, buffer: &buffer) { chunk in
            var offset = 0
            while offset < chunk.count {
                let count = SystemCall.retrying {
                    Glibc.write(output, chunk.baseAddress! + offset, chunk.count - offset)
                }
                guard count > 0 else {
                    written = false
                    return false
                }
                offset += count
            }
            return true
        }
        guard written else { throw .unreadable }
        copied = true
    }

    /// Verifies `signature` over the CKPW/1 package at `path` (streamed through the verifier's SHA-256), then, only if
    /// it holds, feeds the file again chunk by chunk to a `WarningPackageReader` keeping `tags` (and gathering every
    /// record when `gatheringAll`). `path` must be a file only the kiosk writes (a download, or a `privateCopy`).
    /// `onVerified` runs between the two passes.
    static func readCKPW(
        _ path: String, signature: [UInt8], verifier: any StreamingSignatureVerifier, limit: Int,
        keepingTags tags: Set<[UInt8]>, gatheringAll: Bool = false, onVerified: () -> Void = {}
    ) throws(PackageFileFailure) -> WarningPackageReader.Result {
        guard !signature.isEmpty else { throw .package(.unsigned) }
        var reader = WarningPackageReader(keepingTags: tags, gatheringAll: gatheringAll)
        var failure: WarningPackageError?
        try verifyThenRead(
            path, limit: limit, hash: verifier.makeSHA256(),
            check: { verifier.isValidSignature(signature, forSHA256: $0) ? nil : .package(.badSignature) },
            onVerified: onVerified,
            read: { chunk in
                do throws(WarningPackageError) {
                    try reader.consume(chunk)
                    return true
                } catch {
                    failure = error
                    return false
                }
            })
        if let failure { throw .package(failure) }
        do { return try reader.finish() } catch { throw .package(error) }
    }

    /// Streams the file at `path` through `hash`, asks `check` about the digest (nil: go on; else the reason to
    /// refuse), runs `onVerified`, and only then feeds the file again chunk by chunk to `read` (false: stop). The file
    /// is opened once and judged by what was opened: a regular file of at most `limit` bytes (a link is judged by its
    /// target).
    static func verifyThenRead(
        _ path: String, limit: Int, hash: any SHA256Stream, check: ([UInt8]) -> PackageFileFailure?,
        onVerified: () -> Void = {}, read: (UnsafeRawBufferPointer) -> Bool
    ) throws(PackageFileFailure) {
        // Non-blocking: opening a named pipe on a stick must not wait for a writer.
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { throw .unreadable }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .unreadable }
        guard status.st_size <= limit else { throw .oversized(limit: limit) }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        // First pass: the signature, over every byte.
        try eachChunk(descriptor, limit: limit, buffer: &buffer) { chunk in
            hash.update(chunk)
            return true
        }
        if let refusal = check(hash.finish()) { throw refusal }
        onVerified()
        // Second pass: the content, only now.
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw .unreadable }
        try eachChunk(descriptor, limit: limit, buffer: &buffer, read)
    }

    /// Reads `descriptor` to its end in chunks of `buffer`'s size, handing each to `body` (false: stop early).
    /// Never more than `limit` bytes: a file that grew past it is `.oversized`.
    static func eachChunk(
        _ descriptor: Int32, limit: Int, buffer: inout [UInt8], _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(PackageFileFailure) {
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                SystemCall.retrying { Glibc.read(descriptor, bytes.baseAddress, bytes.count) }
            }
            guard count >= 0 else { throw .unreadable }
            if count == 0 { return }
            total += count
            guard total <= limit else { throw .oversized(limit: limit) }
            let goOn = buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            if !goOn { return }
        }
    }
}
