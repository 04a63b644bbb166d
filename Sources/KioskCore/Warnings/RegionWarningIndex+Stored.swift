/// A region's index as bytes, so that a kiosk restarted finds the region's records again without the packages they
/// came in (those are read once and removed; a USB stick's are gone with the stick). The records are public, published
/// by the authority; the bytes are the kiosk's own, in its state directory, written after the packages were verified
/// (`RegionWarnings`).
///
/// `"KRWI" | u8 version=1 | u32 count | count × CKPR/1 entry (76 bytes) | u32 count | count × CWA warning entry
/// (25 bytes) | u32 count | count × (u32 day | u16 length | a serialized CWA CheckInProtectedReport)`, big-endian, the
/// entries as the index keeps them.
extension RegionWarningIndex {
    static let storedMagic = Array("KRWI".utf8)
    static let storedVersion: UInt8 = 1

    /// The index as bytes (read back with `Builder(stored:)`).
    public var stored: [UInt8] {
        var bytes = Self.storedMagic + [Self.storedVersion]
        bytes.reserveCapacity(bytes.count + 12 + ckpr.count + cwaWarnings.count + cwaReportCount * 128)
        func append32(_ value: Int) {
            for shift in [24, 16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        append32(ckprRecordCount)
        bytes.append(contentsOf: ckpr)
        append32(cwaWarningCount)
        bytes.append(contentsOf: cwaWarnings)
        let reports = cwaReports.values.flatMap { $0 }.map { ($0.day, $0.report.serialized) }
            .filter { $0.1.count <= Int(UInt16.max) }
        append32(reports.count)
        for (day, report) in reports {
            append32(Int(clamping: max(0, day)))
            bytes.append(UInt8(report.count >> 8))
            bytes.append(UInt8(report.count & 0xFF))
            bytes.append(contentsOf: report)
        }
        return bytes
    }
}

extension RegionWarningIndex.Builder {
    /// The records of an index's stored bytes (`RegionWarningIndex.stored`), to be built again (`build`, which sorts
    /// them, drops duplicates and what is past the maximum age, whatever order the bytes hold them in); nil when the
    /// bytes are not such an index (cut short, another version, a report that does not parse).
    public init?(stored bytes: UnsafeRawBufferPointer) {
        self.init()
        var position = 0
        func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= bytes.count - position else { return nil }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
        }
        func read32() -> Int? {
            take(4).map { $0.reduce(0) { $0 << 8 | Int($1) } }
        }
        guard let header = take(5),
            Array(header) == RegionWarningIndex.storedMagic + [RegionWarningIndex.storedVersion],
            let ckprCount = read32(), let ckprBytes = take(ckprCount * RegionWarningIndex.ckprStride)
        else { return nil }
        ckpr.append(contentsOf: ckprBytes)
        guard let warningCount = read32(), let warningBytes = take(warningCount * RegionWarningIndex.cwaStride)
        else { return nil }
        cwaWarnings.append(contentsOf: warningBytes)
        guard let reportCount = read32() else { return nil }
        for _ in 0..<reportCount {
            guard let day = read32(), let length = take(2).map({ Int($0[0]) << 8 | Int($0[1]) }),
                let serialized = take(length),
                let report = try? CWAProtectedReport(serialized: Array(serialized))
            else { return nil }
            cwaReports[report.locationIdHash, default: []].append(
                RegionWarningIndex.PublishedReport(report: report, day: Int64(day)))
        }
        guard position == bytes.count else { return nil }
    }
}
