/// CKPB/1: a batch of CKPR/1 records as the kiosk exports and prints it: `"CKPB" | u8 1 | u8 0 | u16 count | records`.
///
/// A batch made by `assemble` holds the holder's reports plus dummy records from the CSPRNG (indistinguishable from
/// real ones): at least one, and enough to round the count up to a multiple of 8, in a uniformly random order.
public struct ReportBatch: Equatable, Sendable {
    public static let magic = Array("CKPB".utf8)
    public static let version: UInt8 = 1
    public static let textPrefix = "CKPB1:"
    static let headerLength = 8

    /// The records, in batch order.
    public let records: [[UInt8]]

    /// A batch of exactly these records (no dummies added, order kept); every record must be 74 bytes.
    public init(records: [[UInt8]]) throws(ReportBatchError) {
        guard records.allSatisfy({ $0.count == CKPR.recordLength }) else { throw .invalidRecordLength }
        guard records.count <= Int(UInt16.max) else { throw .tooManyRecords }
        self.records = records
    }

    /// The holder's sealed records plus dummies, shuffled with the CSPRNG.
    public static func assemble(_ sealed: [[UInt8]], crypto: some CryptoProvider) throws(ReportBatchError)
        -> ReportBatch
    {
        let total = paddedCount(forReal: sealed.count)
        var all = sealed
        do {
            while all.count < total { all.append(try crypto.randomBytes(count: CKPR.recordLength)) }
            try shuffle(&all, crypto: crypto)
        } catch {
            throw .crypto(error)
        }
        return try ReportBatch(records: all)
    }

    /// The record count for `real` reports: at least one dummy, rounded up to a multiple of 8.
    public static func paddedCount(forReal real: Int) -> Int { (real + 1 + 7) / 8 * 8 }

    /// The batch's bytes.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.append(Self.version)
        out.append(0)
        out.appendBigEndian(UInt16(records.count))
        for record in records { out.append(contentsOf: record) }
        return out
    }

    /// `"CKPB1:" + Base45(bytes)`, for QR codes and typing.
    public var text: String { Self.textPrefix + Base45.encode(bytes) }

    /// Parses a batch's bytes. Rejects a wrong magic, version or flags, and a count that does not match the length.
    public init(bytes: [UInt8]) throws(ReportBatchError) {
        var reader = ByteReader(bytes)
        guard reader.read(4) == Self.magic else { throw .notABatch }
        guard reader.readInteger(UInt8.self) == Self.version else { throw .unsupportedVersion }
        guard reader.readInteger(UInt8.self) == 0 else { throw .unsupportedFlags }
        guard let count = reader.readInteger(UInt16.self) else { throw .truncated }
        guard reader.remaining == Int(count) * CKPR.recordLength else { throw .truncated }
        var records = [[UInt8]]()
        records.reserveCapacity(Int(count))
        for _ in 0..<count { records.append(reader.read(CKPR.recordLength)!) }
        try self.init(records: records)
    }

    /// Parses the text form (`CKPB1:` + Base45); surrounding white space is ignored.
    public init(text: String) throws(ReportBatchError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard trimmed.hasPrefix(Self.textPrefix) else { throw .notABatch }
        guard let bytes = Base45.decode(String(trimmed.dropFirst(Self.textPrefix.count))) else { throw .badText }
        try self.init(bytes: bytes)
    }

    /// Shuffles in place: Fisher–Yates with unbiased indices drawn from the CSPRNG (rejection sampling).
    public static func shuffle<Element>(_ items: inout [Element], crypto: some CryptoProvider) throws(CryptoError) {
        guard items.count > 1 else { return }
        for upper in stride(from: items.count - 1, to: 0, by: -1) {
            let j = try uniformIndex(below: upper + 1, crypto: crypto)
            items.swapAt(upper, j)
        }
    }

    static func uniformIndex(below bound: Int, crypto: some CryptoProvider) throws(CryptoError) -> Int {
        let range = UInt32(bound)
        let limit = UInt32.max - UInt32.max % range
        while true {
            let bytes = try crypto.randomBytes(count: 4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if value < limit { return Int(value % range) }
        }
    }
}

/// Why a batch could not be read or made.
public enum ReportBatchError: Error, Equatable, Sendable {
    case notABatch
    case unsupportedVersion
    case unsupportedFlags
    case truncated
    case badText
    case invalidRecordLength
    case tooManyRecords
    case crypto(CryptoError)
}

extension ReportBatchError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notABatch: "this is not a report batch"
        case .unsupportedVersion: "this report batch has a version the kiosk does not know"
        case .unsupportedFlags: "this report batch uses options the kiosk does not know"
        case .truncated: "this report batch is incomplete"
        case .badText: "this report batch text is damaged"
        case .invalidRecordLength: "a report in the batch has the wrong length"
        case .tooManyRecords: "too many reports for one batch"
        case .crypto(let error): error.description
        }
    }
}
