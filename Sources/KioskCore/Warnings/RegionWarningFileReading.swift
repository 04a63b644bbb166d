/// The port through which a region's index (`RegionWarningIndex`) reads what it does not hold in memory: the bytes
/// of its stored file (`RegionWarningIndex+Stored.swift`), at an offset. The kiosk serves it with the file in its
/// state directory (`KioskExchange/RegionWarningsFile.swift`: `pread` on a descriptor kept open); an index built in
/// memory, with its own bytes (`RegionWarningBytes`).
public protocol RegionWarningFileReading: Sendable {
    /// The file's length in bytes, as it was opened.
    var size: Int { get }
    /// Exactly `count` bytes from `offset` on; throws when they cannot all be read.
    func read(at offset: Int, count: Int) throws(RegionWarningReadError) -> [UInt8]
}

/// Why a region's index could not read its records. A lookup that throws it has checked nothing: its caller may not
/// say that nothing matched. The text names no record and no path.
public enum RegionWarningReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the index expects (the file was cut short).
    case cutShort
    /// The system refused the read (its error number).
    case failed(errno: Int32)
    /// The bytes are not a stored index: another format, counts that do not fit its length, entries out of order, a
    /// report that does not parse.
    case malformed

    public var description: String {
        switch self {
        case .cutShort: "the region's warnings file is shorter than its index"
        case .failed(let code): "the region's warnings file could not be read (error \(code))"
        case .malformed: "the region's warnings file is not a stored index"
        }
    }
}

/// Bytes in memory serving as an index's file: the sorted entries of an index built in memory
/// (`RegionWarningIndex.Builder.build`), or a stored file gathered whole.
public struct RegionWarningBytes: RegionWarningFileReading {
    public let bytes: ContiguousArray<UInt8>

    public init(_ bytes: ContiguousArray<UInt8>) { self.bytes = bytes }

    public var size: Int { bytes.count }

    public func read(at offset: Int, count: Int) throws(RegionWarningReadError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else { throw .cutShort }
        return Array(bytes[offset..<(offset + count)])
    }
}
