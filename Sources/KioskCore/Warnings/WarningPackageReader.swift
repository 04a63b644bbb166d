/// Reads a CKPW/1 package (`WarningPackage`) piece by piece, as it comes off a file, keeping only the records under
/// the kiosk's own tags: memory stays at one partial record plus what is kept, however large the package. Refuses
/// exactly what `WarningPackage(unverifiedBytes:)` refuses, with the same errors. It does not check a signature: the
/// caller verifies the package (streamed through SHA-256) before it feeds it here.
public struct WarningPackageReader: Sendable {
    /// What a whole package gave.
    public struct Result: Equatable, Sendable {
        /// UNIX seconds at which the authority made the package.
        public let createdAt: UInt64
        /// How many records the package holds.
        public let recordCount: Int
        /// The records under the wanted tags, once each, in package order.
        public let kept: [[UInt8]]
        /// Every record of the package, one after another (`count × CKPR.recordLength` bytes), when the reader was
        /// asked to gather them (a kiosk keeping its region's warnings); empty otherwise.
        public let all: ContiguousArray<UInt8>
    }

    private let wanted: Set<WarningIndex.TagKey>
    /// One bit per value of a tag's first 16 bits, set for the wanted tags: tags are HMAC outputs, so with a few
    /// hundred wanted tags about 99 % of the records are dropped by one bit test, before any hashing.
    private let prefilter: [UInt64]
    private var header: [UInt8] = []
    /// The start of a record cut by the end of the last piece (fewer than `CKPR.recordLength` bytes).
    private var partial: [UInt8] = []
    private var expected: UInt64 = 0
    private var seen: UInt64 = 0
    private var createdAt: UInt64 = 0
    private var kept: [[UInt8]] = []
    private var keptSet: Set<[UInt8]> = []
    /// Whether every record is gathered in `all` besides those kept by tag.
    private let gathersAll: Bool
    private var all = ContiguousArray<UInt8>()
    private var failure: WarningPackageError?

    /// `tags`: the 16-byte CKPR/1 tags whose records are kept; every other record is dropped as it is read, unless
    /// `gatheringAll` asks for every record too (`Result.all`, one flat buffer: 74 bytes a record).
    public init(keepingTags tags: Set<[UInt8]>, gatheringAll: Bool = false) {
        gathersAll = gatheringAll
        let wanted = Set(tags.compactMap { $0.count == CKPR.tagLength ? WarningIndex.TagKey($0) : nil })
        var prefilter = [UInt64](repeating: 0, count: 1024)
        for key in wanted { prefilter[Int(key.high >> 54)] |= 1 << ((key.high >> 48) & 63) }
        self.wanted = wanted
        self.prefilter = prefilter
        header.reserveCapacity(WarningPackage.headerLength)
        partial.reserveCapacity(CKPR.recordLength)
    }

    /// Reads the next piece of the package. Throws as soon as the bytes so far cannot be a package.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) throws(WarningPackageError) {
        if let failure { throw failure }
        var rest = bytes[...]
        if header.count < WarningPackage.headerLength {
            let take = min(WarningPackage.headerLength - header.count, rest.count)
            header.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if let error = Self.headerError(header, complete: false) { return try fail(error) }
            guard header.count == WarningPackage.headerLength else { return }
            expected = UInt64(Self.bigEndian(header[6..<10]))
            createdAt = Self.bigEndian(header[10..<18])
            // The count is the signed header's (the package was verified before it is read), bounded all the same.
            if gathersAll {
                all.reserveCapacity(
                    min(Int(clamping: expected), WarningPackage.defaultMaximumSize / CKPR.recordLength)
                        * CKPR.recordLength)
            }
        }
        guard !rest.isEmpty else { return }
        let length = CKPR.recordLength
        var start = rest.startIndex
        if !partial.isEmpty {
            let take = min(length - partial.count, rest.count)
            partial.append(contentsOf: rest[start..<(start + take)])
            start += take
            guard partial.count == length else { return }
            let record = partial
            partial.removeAll(keepingCapacity: true)
            try takeRecord(record)
        }
        let base = UnsafeRawBufferPointer(rebasing: bytes[start..<rest.endIndex])
        let whole = base.count / length
        guard seen + UInt64(whole) <= expected else { return try fail(.truncated) }
        if gathersAll { all.append(contentsOf: base[0..<(whole * length)]) }
        if let address = base.baseAddress {
            let prefilter = prefilter  // a local: the loop below changes `self` (what is kept)
            prefilter.withUnsafeBufferPointer { bits in
                for index in 0..<whole {
                    let record = address + index * length
                    let high = record.loadUnaligned(as: UInt64.self).bigEndian
                    guard bits[Int(high >> 54)] & (1 << ((high >> 48) & 63)) != 0 else { continue }
                    let key = WarningIndex.TagKey(
                        high: high, low: record.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
                    if wanted.contains(key) { keep(Array(UnsafeRawBufferPointer(start: record, count: length))) }
                }
            }
        }
        seen += UInt64(whole)
        partial.append(contentsOf: base[(whole * length)...])
    }

    /// Ends the package: checks that it held exactly the records its header announced.
    public func finish() throws(WarningPackageError) -> Result {
        if let failure { throw failure }
        if let error = Self.headerError(header, complete: true) { throw error }
        guard partial.isEmpty, seen == expected else { throw .truncated }
        return Result(createdAt: createdAt, recordCount: Int(seen), kept: kept, all: all)
    }

    private mutating func takeRecord(_ record: [UInt8]) throws(WarningPackageError) {
        guard seen < expected else { return try fail(.truncated) }
        seen += 1
        if gathersAll { all.append(contentsOf: record) }
        if let key = WarningIndex.TagKey(record), wanted.contains(key) { keep(record) }
    }

    private mutating func keep(_ record: [UInt8]) {
        if keptSet.insert(record).inserted { kept.append(record) }
    }

    private mutating func fail(_ error: WarningPackageError) throws(WarningPackageError) {
        failure = error
        throw error
    }

    /// The error `WarningPackage(unverifiedBytes:)` gives for a package starting with `header`, in its order of
    /// checks; nil while the bytes so far may still be a package (`complete` false) or when the header is whole and
    /// valid.
    static func headerError(_ header: [UInt8], complete: Bool) -> WarningPackageError? {
        let checks: [(range: Range<Int>, valid: ([UInt8]) -> Bool, error: WarningPackageError)] = [
            (0..<4, { $0 == WarningPackage.magic }, .notAPackage),
            (4..<5, { $0 == [WarningPackage.version] }, .unsupportedVersion),
            (5..<6, { $0 == [0] }, .malformed),
            (6..<18, { _ in true }, .truncated),
        ]
        for check in checks {
            guard header.count >= check.range.upperBound else {
                // Not all there: a mismatch in what is there already decides (the magic), else wait for the rest.
                if check.range.lowerBound == 0, !WarningPackage.magic.starts(with: header) { return .notAPackage }
                return complete ? check.error : nil
            }
            if !check.valid(Array(header[check.range])) { return check.error }
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
