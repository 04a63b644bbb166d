internal import Foundation
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// An emulated DESFire card's memory kept in a file, so that one card can walk from one simulated kiosk (one PN532
/// emulator, one process) to another: the card loads it at every power-up and saves it after every change.
///
/// The file is JSON (`DESFireCardImage`, its `format` field the version, 1). Every load and save holds an exclusive
/// `flock` on a lock file beside it (`<path>.lock`: a lock on the file itself would be lost when it is replaced); a
/// save writes a temporary file in the same directory, syncs it and renames it over the old one, so that a reader
/// sees the old card or the new one, never a mix, even if the writer is killed.
public final class DESFireCardMemory: Sendable {
    public let path: String

    /// Why the file could not be used.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case io(String, errno: Int32)
        case unreadable(String)
        case unsupportedFormat(Int)

        public var description: String {
            switch self {
            case .io(let step, let code): "DESFire card memory: \(step) failed (errno \(code))"
            case .unreadable(let why): "DESFire card memory: not a card file (\(why))"
            case .unsupportedFormat(let version): "DESFire card memory: format \(version) is not supported"
            }
        }
    }

    public init(path: String) {
        self.path = path
    }

    /// The card in the file, or nil when there is no file yet.
    public func load() throws(Failure) -> DESFireCardImage? {
        try locked { () throws(Failure) in try read() }
    }

    /// The card in the file; when there is none, `initial`, written there first.
    public func loadOrCreate(_ initial: DESFireCardImage) throws(Failure) -> DESFireCardImage {
        try locked { () throws(Failure) in
            if let image = try read() { return image }
            try write(initial)
            return initial
        }
    }

    /// Replaces the card in the file, atomically.
    public func save(_ image: DESFireCardImage) throws(Failure) {
        try locked { () throws(Failure) in try write(image) }
    }

    private func read() throws(Failure) -> DESFireCardImage? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let image: DESFireCardImage
        do {
            image = try JSONDecoder().decode(DESFireCardImage.self, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
        guard image.format == DESFireCardImage.currentFormat else { throw .unsupportedFormat(image.format) }
        return image
    }

    private func write(_ image: DESFireCardImage) throws(Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(image)
        } catch {
            throw .unreadable("\(error)")
        }
        let temporary = path + ".tmp-\(getpid())"
        let fd = SystemCall.retrying { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw .io("open \(temporary)", errno: errno) }
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                SystemCall.retrying { Glibc.write(fd, buffer.baseAddress, buffer.count) }
            }
            guard written > 0 else {
                let code = errno
                close(fd)
                unlink(temporary)
                throw .io("write", errno: code)
            }
            offset += written
        }
        guard SystemCall.retrying({ fsync(fd) }) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw .io("fsync", errno: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io("rename", errno: code)
        }
    }

    private func locked<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let lockPath = path + ".lock"
        let fd = SystemCall.retrying { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw .io("open \(lockPath)", errno: errno) }
        defer { close(fd) }  // closing releases the lock
        guard SystemCall.retrying({ flock(fd, LOCK_EX) }) == 0 else { throw .io("flock", errno: errno) }
        return try body()
    }
}
