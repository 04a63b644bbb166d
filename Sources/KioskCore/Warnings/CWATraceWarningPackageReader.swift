import Foundation
import KioskProto
import SwiftProtobuf

/// Reads a CWA `export.bin` (`TraceWarningPackage`) piece by piece, as it is inflated, keeping only the records whose
/// `locationIdHash` is one of the kiosk's venues': memory stays at one record plus what is kept, however large the
/// package. The top-level fields are read off the protobuf wire format here; each record (a
/// `TraceTimeIntervalWarning` or `CheckInProtectedReport`, at most `maximumRecordSize` bytes) is decoded by
/// SwiftProtobuf. Refuses what `CWATraceWarningPackage(unverifiedExport:)` refuses: unknown fields (another file,
/// such as an exposure key export) as `.wrongHeader`, anything else that is not a valid package as `.malformed`. It
/// does not check a signature: the caller verifies `export.bin` (streamed through SHA-256) before it feeds it here.
public struct CWATraceWarningPackageReader: Sendable {
    /// A record larger than this is refused (CWA's are under 200 bytes).
    public static let maximumRecordSize = 64 * 1024

    /// nil: every record is kept (a kiosk keeping its region's warnings).
    private let wanted: Set<[UInt8]>?
    /// Bytes of a field not complete yet (never more than one record and its key and length).
    private var pending: [UInt8] = []
    private var hour: UInt32 = 0
    private var region = ""
    private var warnings: [CWATraceWarning] = []
    private var reports: [CWAProtectedReport] = []
    private var failure: CWAPackageError?
    /// Whether the start was checked against an exposure key export's header.
    private var headerChecked = false
    /// A field this package type does not have was seen (and skipped): some other file, refused at the end unless
    /// something is malformed, as SwiftProtobuf keeps unknown fields.
    private var sawUnknownField = false

    /// `locationIdHashes`: the SHA-256 of each of the kiosk's venues' location IDs; nil keeps every record.
    public init(keepingLocationIdHashes locationIdHashes: Set<[UInt8]>?) {
        wanted = locationIdHashes
    }

    /// Reads the next piece of `export.bin`. Throws as soon as the bytes so far cannot be a package.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) throws(CWAPackageError) {
        if let failure { throw failure }
        pending.append(contentsOf: bytes)
        let header = CWATraceWarningPackage.keyExportHeader
        if !headerChecked {
            if pending.count < header.count && header.starts(with: pending) { return }  // not enough to tell yet
            headerChecked = true
            if pending.starts(with: header) { return try fail(.wrongHeader) }
        }
        try parsePending()
    }

    /// Ends `export.bin`: the package, holding only the kept records.
    public consuming func finish() throws(CWAPackageError) -> CWATraceWarningPackage {
        if let failure { throw failure }
        if !headerChecked {
            headerChecked = true
            try parsePending()
        }
        guard pending.isEmpty else { throw .malformed }  // a field cut short
        if sawUnknownField { throw .wrongHeader }
        return CWATraceWarningPackage(
            hour: hour, region: region, timeIntervalWarnings: warnings, checkInProtectedReports: reports)
    }

    private mutating func parsePending() throws(CWAPackageError) {
        var position = 0
        do {
            while let next = try field(at: position) { position = next }
        } catch {
            return try fail(error)
        }
        pending.removeFirst(position)
    }

    private mutating func fail(_ error: CWAPackageError) throws(CWAPackageError) {
        failure = error
        throw error
    }

    /// Reads the field at `start` of `pending` if it is all there; returns where the next one starts, or nil.
    private mutating func field(at start: Int) throws(CWAPackageError) -> Int? {
        guard let (key, afterKey) = try varint(at: start) else { return nil }
        let number = key >> 3
        let wireType = key & 7
        guard number > 0, number <= 0x1FFF_FFFF, wireType != 6, wireType != 7 else { throw .malformed }
        let expected: UInt64 = number == 1 ? 0 : 2
        guard (1...4).contains(number), wireType == expected else { return try skip(wireType: wireType, at: afterKey) }
        if number == 1 {
            guard let (value, next) = try varint(at: afterKey) else { return nil }
            hour = UInt32(truncatingIfNeeded: value)
            return next
        }
        guard let (length, afterLength) = try varint(at: afterKey) else { return nil }
        guard length <= UInt64(Self.maximumRecordSize) else { throw .malformed }
        let end = afterLength + Int(length)
        guard end <= pending.count else { return nil }
        let bytes = pending[afterLength..<end]
        switch number {
        case 2:
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed }
            region = text
        case 3:
            guard let message = try? SAP_Internal_Pt_TraceTimeIntervalWarning(serializedBytes: Array(bytes)) else {
                throw .malformed
            }
            if wanted?.contains([UInt8](message.locationIDHash)) ?? true { warnings.append(CWATraceWarning(message)) }
        default:
            guard let message = try? SAP_Internal_Pt_CheckInProtectedReport(serializedBytes: Array(bytes)) else {
                throw .malformed
            }
            if wanted?.contains([UInt8](message.locationIDHash)) ?? true { reports.append(CWAProtectedReport(message)) }
        }
        return end
    }

    /// Skips a field this package type does not have (or has with another wire type, which SwiftProtobuf keeps as an
    /// unknown field too): remembered, so the package is refused at its end as some other file.
    private mutating func skip(wireType: UInt64, at start: Int) throws(CWAPackageError) -> Int? {
        sawUnknownField = true
        let end: Int
        switch wireType {
        case 0:
            guard let (_, next) = try varint(at: start) else { return nil }
            end = next
        case 1: end = start + 8
        case 5: end = start + 4
        case 2:
            guard let (length, next) = try varint(at: start) else { return nil }
            // Not held beyond a record's size: a file with such a field is not a package anyway.
            guard length <= UInt64(Self.maximumRecordSize) else { throw .wrongHeader }
            end = next + Int(length)
        default: throw .wrongHeader  // a group: no trace warning package has one
        }
        return end <= pending.count ? end : nil
    }

    /// The varint at `start` of `pending` and where it ends, or nil if it is not all there yet.
    private func varint(at start: Int) throws(CWAPackageError) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var position = start
        for shift in stride(from: 0, to: 70, by: 7) {
            guard position < pending.count else { return nil }
            let byte = pending[position]
            position += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return (value, position) }
        }
        throw .malformed  // longer than ten bytes
    }
}
