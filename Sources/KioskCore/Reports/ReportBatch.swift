/// CKPB/1: a batch of CKPR/1 records as the kiosk exports and prints it: `"CKPB" | u8 1 | u8 0 | u16 count | records`.
///
/// A batch made by `assemble` holds the holder's reports plus decoys (records of random bytes, indistinguishable
/// from real ones without the venue's code), in a uniformly random order. The decoys are laid out so that nothing
/// that can be seen without a venue's code tells how many reports are real: see `classSizes(forReal:)`.
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

    /// The holder's sealed records plus decoys, shuffled with the CSPRNG. A decoy is 74 bytes from the CSPRNG, or
    /// the tag of a real record (its venue and day) followed by 58 bytes from the CSPRNG, as `decoyPlan` lays out.
    public static func assemble(_ sealed: [[UInt8]], crypto: some CryptoProvider) throws(ReportBatchError)
        -> ReportBatch
    {
        guard sealed.allSatisfy({ $0.count == CKPR.recordLength }) else { throw .invalidRecordLength }
        let tail = CKPR.recordLength - CKPR.tagLength
        var all = sealed
        do {
            all += try decoys(
                forRealLabels: sealed.map { Array($0.prefix(CKPR.tagLength)) },
                freshLabel: { () throws(CryptoError) in try crypto.randomBytes(count: CKPR.tagLength) },
                decoy: { tag throws(CryptoError) in tag + (try crypto.randomBytes(count: tail)) })
            try shuffle(&all, crypto: crypto)
        } catch {
            throw .crypto(error)
        }
        return try ReportBatch(records: all)
    }

    /// The record count of every batch for `real` reports: the sum of `classSizes(forReal:)`, a multiple of 8 with
    /// at least one decoy (16 for up to 7 real reports, 48 for up to 15, 80 for up to 23).
    public static func paddedCount(forReal real: Int) -> Int { classSizes(forReal: real).reduce(0, +) }

    /// The pattern every batch for `real` reports shows: how many of its records share one label (a CKPR/1 tag, one
    /// venue on one day; or CWA's `locationIdHash`, one venue), largest first. Real reports come in buckets — up to 7,
    /// up to 15, up to 23, … (the bucket's top `N` is one below a multiple of 8) — and every batch of a bucket shows
    /// classes of `N / i` records (integer division) for `i` in `1...N`, plus classes of one record up to a multiple of
    /// 8. However up to `N` real reports fall on venues and days, they fit: the `i`-th largest group of them holds at
    /// most `N / i`. So the labels a batch shows are the same for 1 real report as for 7, and decoys fill every class.
    public static func classSizes(forReal real: Int) -> [Int] {
        let top = (max(real, 0) + 1 + 7) / 8 * 8 - 1
        var sizes = (1...top).map { top / $0 }
        while sizes.reduce(0, +) % 8 != 0 { sizes.append(1) }
        return sizes
    }

    /// The decoys for real items labelled `realLabels`, laid out as `decoyPlan` says: `decoy(label)` makes one decoy
    /// that carries `label`; each group of decoys of its own takes one `freshLabel()`.
    static func decoys<Label: Hashable, Decoy, Failure: Error>(
        forRealLabels realLabels: [Label], freshLabel: () throws(Failure) -> Label,
        decoy: (Label) throws(Failure) -> Decoy
    ) throws(Failure) -> [Decoy] {
        let plan = decoyPlan(realLabels: realLabels)
        var decoys = [Decoy]()
        for (label, count) in plan.sharing {
            for _ in 0..<count { decoys.append(try decoy(label)) }
        }
        for size in plan.fresh {
            let label = try freshLabel()
            for _ in 0..<size { decoys.append(try decoy(label)) }
        }
        return decoys
    }

    /// Where the decoys of a batch go, for real records labelled `realLabels` (their tags or venue hashes): how many
    /// decoys share each real label (the real groups, largest first, take the largest classes of
    /// `classSizes(forReal:)`), and the sizes of the classes that take a fresh random label.
    public static func decoyPlan<Label: Hashable>(realLabels: [Label]) -> (
        sharing: [(label: Label, decoys: Int)], fresh: [Int]
    ) {
        var order = [Label]()
        var counts = [Label: Int]()
        for label in realLabels {
            if counts[label] == nil { order.append(label) }
            counts[label, default: 0] += 1
        }
        let groups = order.enumerated().sorted { lhs, rhs in
            let (left, right) = (counts[lhs.element]!, counts[rhs.element]!)
            return left != right ? left > right : lhs.offset < rhs.offset
        }.map(\.element)
        let sizes = classSizes(forReal: realLabels.count)
        let sharing = groups.enumerated().map { index, label in (label: label, decoys: sizes[index] - counts[label]!) }
        return (sharing, Array(sizes.dropFirst(groups.count)))
    }

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
