import KioskPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes whole files or nothing: a temporary file in the same directory, `fsync`, `rename` over the target, then
/// `fsync` of the directory, so that a pulled stick or a power cut leaves either the old state or the new file.
public enum AtomicFile {
    /// Writes `bytes` to `directory/name` with mode 0600.
    public static func write(_ bytes: [UInt8], named name: String, in directory: String) throws(ExportError) {
        let file = try Writer(named: name, in: directory)
        try file.append(bytes)
        try file.commit()
    }

    /// A file written in pieces (`append`), then put in place whole (`commit`), with mode 0600. Left unfinished — a
    /// piece that could not be written, or let go before `commit` — its temporary file is removed and the target
    /// keeps what it held.
    public final class Writer {
        private let directory: String
        private let target: String
        private let temporary: String
        /// The temporary file's descriptor; -1 once committed or abandoned.
        private var descriptor: Int32

        /// Starts `directory/name` afresh (beside it, until `commit`).
        public init(named name: String, in directory: String) throws(ExportError) {
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { throw .invalidName }
            var info = stat()
            guard stat(directory, &info) == 0 else { throw ExportError(errno: errno) }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory }
            let temporary = directory + "/." + name + ".partial"
            let descriptor = SystemCall.retrying {
                open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            }
            guard descriptor >= 0 else { throw ExportError(errno: errno) }
            self.directory = directory
            self.target = directory + "/" + name
            self.temporary = temporary
            self.descriptor = descriptor
        }

        /// Appends `bytes` to the file; on a failure the file is abandoned.
        public func append(_ bytes: [UInt8]) throws(ExportError) {
            guard descriptor >= 0 else { throw .ioError(EBADF) }
            let descriptor = descriptor
            var failure: ExportError?
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = SystemCall.retrying {
                        Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    }
                    if written < 0 {
                        failure = ExportError(errno: errno)
                        return
                    }
                    if written == 0 {
                        failure = .deviceFull
                        return
                    }
                    offset += written
                }
            }
            if let failure {
                abandon()
                throw failure
            }
        }

        /// Puts the file in place of the target: `fsync`, `rename`, `fsync` of the directory.
        public func commit() throws(ExportError) {
            guard descriptor >= 0 else { throw .ioError(EBADF) }
            let descriptor = descriptor
            self.descriptor = -1
            var failure: ExportError?
            if SystemCall.retrying({ fsync(descriptor) }) != 0 { failure = ExportError(errno: errno) }
            if close(descriptor) != 0, failure == nil { failure = ExportError(errno: errno) }
            if failure == nil, rename(temporary, target) != 0 { failure = ExportError(errno: errno) }
            if let failure {
                unlink(temporary)
                throw failure
            }
            let directory = directory
            let directoryFD = SystemCall.retrying { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            if directoryFD >= 0 {
                let synced = SystemCall.retrying { fsync(directoryFD) }
                let syncErrno = errno
                close(directoryFD)
                if synced != 0 { throw ExportError(errno: syncErrno) }
            }
        }

        private func abandon() {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
            unlink(temporary)
        }

        deinit { abandon() }
    }
}

/// Why an export did not complete. The text tells a field worker what to do; it names no file content.
public enum ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    case noMedium
    case notADirectory
    case readOnly
    case deviceFull
    case permissionDenied
    case invalidName
    case ioError(Int32)

    init(errno code: Int32) {
        switch code {
        case ENOENT, ENODEV, ENXIO: self = .noMedium
        case ENOTDIR: self = .notADirectory
        case EROFS: self = .readOnly
        case ENOSPC, EDQUOT, EFBIG: self = .deviceFull
        case EACCES, EPERM: self = .permissionDenied
        default: self = .ioError(code)
        }
    }

    public var description: String {
        switch self {
        case .noMedium: "No USB stick found: insert one and try again."
        case .notADirectory: "The export location is not a folder: check the kiosk's configuration."
        case .readOnly: "The USB stick is write-protected: unlock it or use another one."
        case .deviceFull: "The USB stick is full: free some space or use another one."
        case .permissionDenied: "The kiosk may not write to the USB stick: check how it is mounted."
        case .invalidName: "The export file name is invalid."
        case .ioError(let code): "Writing to the USB stick failed (error \(code)): try another stick."
        }
    }
}
