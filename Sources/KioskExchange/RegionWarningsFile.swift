internal import KioskCore
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// The region's stored index (`region-warnings.bin`) as the core reads it (`RegionWarningFileReading`): a descriptor
/// opened once and kept as long as an index reads through it, read with `pread` at the offsets the index asks for
/// (`pread` keeps no position: taps and a rewrite read at once). A file replaced meanwhile (by the next rewrite's
/// `rename`) stays readable through it as it was, until the last index over it is let go; one cut short fails the
/// reads past its end (`cutShort`), and so the lookups that needed them.
final class RegionWarningsFile: RegionWarningFileReading {
    private let descriptor: Int32
    let size: Int

    /// Opens the regular file at `path` for reading.
    init(path: String) throws(RegionWarningReadError) {
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { throw .failed(errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .malformed
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    func read(at offset: Int, count: Int) throws(RegionWarningReadError) -> [UInt8] {
        guard offset >= 0, count >= 0 else { throw .cutShort }
        let descriptor = descriptor
        var failure: RegionWarningReadError?
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < count {
                let got = SystemCall.retrying {
                    pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                }
                if got < 0 {
                    failure = .failed(errno: errno)
                    return
                }
                if got == 0 {
                    failure = .cutShort
                    return
                }
                done += got
            }
        }
        if let failure { throw failure }
        return bytes
    }

    deinit { close(descriptor) }
}
