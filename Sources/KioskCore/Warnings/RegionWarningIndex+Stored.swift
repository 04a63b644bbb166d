/// A region's index as a file, so that a kiosk restarted finds the region's records again without the packages they
/// came in (those are read once and removed; a USB stick's are gone with the stick), and so that the records need
/// not be held in memory: the index reads its entries from the file at their position. The records are public,
/// published by the authority; the bytes are the kiosk's own, in its state directory, written after the packages
/// were verified (`RegionWarnings`).
///
/// Version 2: `"KRWI" | u8 version=2 | ckprCount × CKPR/1 entry (76 bytes) | warningCount × CWA warning entry
/// (25 bytes) | reportCount × (u32 day | u16 length | a serialized CWA CheckInProtectedReport) | u32 ckprCount |
/// u32 warningCount | u32 reportCount | "KRWI"`, big-endian, the entries as the index reads them: each run sorted by
/// its 16-byte key (the records of a key in the order they were added), no two of the same record. The counts come
/// last so that the file is written in one pass while the runs are merged (`rewriting`).
///
/// Version 1 (before the entries were read from the file): `"KRWI" | u8 version=1 | u32 count | count × CKPR/1 entry
/// | u32 count | count × CWA warning entry | u32 count | count × (u32 day | u16 length | report)`, the entries in any
/// order. It is read whole once, to be written again as version 2.
extension RegionWarningIndex {
    static let storedMagic = Array("KRWI".utf8)
    static let storedVersion: UInt8 = 2
    static var storedHeader: [UInt8] { storedMagic + [storedVersion] }
    static let storedTrailerLength = 16

    /// What a stored file holds.
    public enum Stored {
        /// A file of the current version: the index over it (its compact keys read a piece at a time).
        case index(RegionWarningIndex)
        /// A file of version 1: its records, to be built and written again as the current version.
        case version1(Builder)
    }

    /// The index a stored file holds. Throws `.malformed` when it is not a stored index (another version, counts
    /// that do not fit its length, entries out of order, a report that does not parse), and when it cannot be read.
    public static func stored(in file: some RegionWarningFileReading) throws(RegionWarningReadError) -> Stored {
        guard file.size >= storedHeader.count else { throw .malformed }
        let header = try file.read(at: 0, count: storedHeader.count)
        guard header.prefix(storedMagic.count).elementsEqual(storedMagic) else { throw .malformed }
        switch header[storedMagic.count] {
        case 1:
            guard let builder = Builder(storedVersion1: try file.read(at: 0, count: file.size)) else {
                throw .malformed
            }
            return .version1(builder)
        case storedVersion:
            return .index(try opening(file))
        default:
            throw .malformed
        }
    }

    /// The index over a file of the current version.
    private static func opening(_ file: some RegionWarningFileReading) throws(RegionWarningReadError)
        -> RegionWarningIndex
    {
        let ckprStart = storedHeader.count
        guard file.size >= ckprStart + storedTrailerLength else { throw .malformed }
        var trailer = ByteReader(try file.read(at: file.size - storedTrailerLength, count: storedTrailerLength))
        guard let ckprCount = trailer.readInteger(UInt32.self).map(Int.init),
            let warningCount = trailer.readInteger(UInt32.self).map(Int.init),
            let reportCount = trailer.readInteger(UInt32.self).map(Int.init),
            trailer.read(storedMagic.count) == storedMagic
        else { throw .malformed }
        let warningsStart = ckprStart + ckprCount * RegionEntryKind.ckpr.stride
        let reportsStart = warningsStart + warningCount * RegionEntryKind.cwaWarning.stride
        let reportsEnd = file.size - storedTrailerLength
        guard reportsStart <= reportsEnd else { throw .malformed }
        var reports = ByteReader(try file.read(at: reportsStart, count: reportsEnd - reportsStart))
        guard let cwaReports = readReports(&reports, count: reportCount), reports.remaining == 0 else {
            throw .malformed
        }
        return RegionWarningIndex(
            ckpr: try RegionWarningEntries(kind: .ckpr, file: file, offset: ckprStart, count: ckprCount),
            cwaWarnings: try RegionWarningEntries(
                kind: .cwaWarning, file: file, offset: warningsStart, count: warningCount),
            cwaReports: cwaReports)
    }

    /// The trailer of a file of the current version.
    static func storedTrailer(ckprCount: Int, cwaWarningCount: Int, reportCount: Int) -> [UInt8] {
        var bytes = [UInt8]()
        for count in [ckprCount, cwaWarningCount, reportCount] { bytes.appendBigEndian(UInt32(clamping: count)) }
        return bytes + storedMagic
    }

    /// The protected reports as stored, and how many (a report too long for its length field is left out).
    static func storedReports(_ reports: [[UInt8]: [PublishedReport]]) -> (bytes: [UInt8], count: Int) {
        var bytes = [UInt8]()
        var count = 0
        for published in reports.values.joined() {
            let serialized = published.report.serialized
            guard serialized.count <= Int(UInt16.max) else { continue }
            bytes.appendBigEndian(UInt32(clamping: max(0, published.day)))
            bytes.appendBigEndian(UInt16(serialized.count))
            bytes += serialized
            count += 1
        }
        return (bytes, count)
    }

    /// `count` stored protected reports read from `reader`; nil when one is cut short or does not parse.
    static func readReports(_ reader: inout ByteReader, count: Int) -> [[UInt8]: [PublishedReport]]? {
        var reports = [[UInt8]: [PublishedReport]]()
        for _ in 0..<count {
            guard let day = reader.readInteger(UInt32.self), let length = reader.readInteger(UInt16.self),
                let serialized = reader.read(Int(length)),
                let report = try? CWAProtectedReport(serialized: serialized)
            else { return nil }
            reports.add(PublishedReport(report: report, day: Int64(day)))
        }
        return reports
    }
}

extension RegionWarningIndex.Builder {
    /// The records of a stored file of version 1, to be built again (`build`, which sorts them, drops duplicates and
    /// what is past the maximum age, whatever order the bytes hold them in); nil when the bytes are not such a file
    /// (cut short, lengthened, another version, a report that does not parse).
    init?(storedVersion1 bytes: [UInt8]) {
        self.init()
        var reader = ByteReader(bytes)
        guard reader.read(RegionWarningIndex.storedMagic.count) == RegionWarningIndex.storedMagic,
            reader.readInteger(UInt8.self) == 1,
            let ckprCount = reader.readInteger(UInt32.self),
            let ckprBytes = reader.read(Int(ckprCount) * RegionEntryKind.ckpr.stride),
            let warningCount = reader.readInteger(UInt32.self),
            let warningBytes = reader.read(Int(warningCount) * RegionEntryKind.cwaWarning.stride),
            let reportCount = reader.readInteger(UInt32.self),
            let reports = RegionWarningIndex.readReports(&reader, count: Int(reportCount)),
            reader.remaining == 0
        else { return nil }
        ckpr.append(contentsOf: ckprBytes)
        cwaWarnings.append(contentsOf: warningBytes)
        cwaReports = reports
    }
}
