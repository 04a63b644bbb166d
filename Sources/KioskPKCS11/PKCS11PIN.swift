internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A token's user PIN, read from a file (a systemd credential on a board). It is never printed: its description,
/// debug description and mirror show no part of it, and it reaches nothing but `C_Login`.
public struct PKCS11PIN: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The longest PIN file read (a PIN is a few dozen bytes at most).
    public static let maximumBytes = 256

    let bytes: [UInt8]

    /// A PIN given as text (tests and set-up).
    public init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The PIN in the file at `path`: its bytes up to a final line break (`\n` or `\r\n`).
    public init(contentsOfFile path: String) throws(PKCS11Error) {
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .pinUnreadable(path: path, errno: errno) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: Self.maximumBytes + 1)
        var count = 0
        while count < buffer.count {
            let got = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retrying { read(descriptor, raw.baseAddress! + count, raw.count - count) }
            }
            guard got >= 0 else { throw .pinUnreadable(path: path, errno: errno) }
            if got == 0 { break }
            count += got
        }
        defer { buffer.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        guard count <= Self.maximumBytes else {
            throw .pinInvalid(path: path, reason: "is longer than \(Self.maximumBytes) bytes")
        }
        if count > 0 && buffer[count - 1] == 0x0A { count -= 1 }
        if count > 0 && buffer[count - 1] == 0x0D { count -= 1 }
        guard count > 0 else { throw .pinInvalid(path: path, reason: "is empty") }
        bytes = Array(buffer[0..<count])
    }

    public var description: String { "PIN (not shown)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
