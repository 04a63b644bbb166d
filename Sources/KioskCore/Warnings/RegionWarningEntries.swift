/// The two kinds of fixed-width entries a region's index keeps, sorted by a 16-byte key.
enum RegionEntryKind: Sendable {
    /// A CKPR/1 record and `u16 day` (the UTC day its package was made), 76 bytes, sorted by the record's tag.
    case ckpr
    /// A CWA health-authority warning, 25 bytes:
    /// `locationIdHash[0..16) | u32 startIntervalNumber | u32 period | u8 transmissionRiskLevel`, sorted by the hash.
    case cwaWarning

    /// The sort key's length: a CKPR/1 tag, the first bytes of a CWA `locationIdHash`.
    static let keyLength = 16

    var stride: Int {
        switch self {
        case .ckpr: CKPR.recordLength + 2
        case .cwaWarning: Self.keyLength + 4 + 4 + 1
        }
    }

    /// The leading bytes two entries of the same record share (all but a CKPR/1 entry's day).
    var comparedLength: Int {
        switch self {
        case .ckpr: CKPR.recordLength
        case .cwaWarning: stride
        }
    }

    /// Where a CKPR/1 entry's day lies: of two entries of the same record, the later day is kept.
    var dayOffset: Int? {
        switch self {
        case .ckpr: CKPR.recordLength
        case .cwaWarning: nil
        }
    }

    /// The time (UNIX seconds) the entry at `offset` ages by: the start of a CKPR/1 record's publication day, the
    /// end of a warning's window. An entry is current at an age deadline (the start of a UTC day) unless this is
    /// before it.
    func age<Bytes: RandomAccessCollection<UInt8>>(of bytes: Bytes, at offset: Int) -> Int64 where Bytes.Index == Int {
        switch self {
        case .ckpr:
            Int64(Self.field(UInt16.self, of: bytes, at: offset + CKPR.recordLength)) * 86_400
        case .cwaWarning:
            (Int64(Self.field(UInt32.self, of: bytes, at: offset + Self.keyLength))
                + Int64(Self.field(UInt32.self, of: bytes, at: offset + Self.keyLength + 4))) * Interval.seconds
        }
    }

    /// Appends `entry` to `run`, whose entries from `runStart` on share its key, unless the same record is among
    /// them: that one then keeps the later of the two days.
    func add<Run: RangeReplaceableCollection & MutableCollection & RandomAccessCollection<UInt8>>(
        _ entry: some Collection<UInt8>, to run: inout Run, runStart: Int
    ) where Run.Index == Int {
        let compared = comparedLength
        guard
            let kept = Swift.stride(from: runStart, to: run.count, by: stride).first(where: {
                run[$0..<($0 + compared)].elementsEqual(entry.prefix(compared))
            })
        else {
            run.append(contentsOf: entry)
            return
        }
        guard let dayOffset else { return }
        let day = Self.field(UInt16.self, of: Array(entry), at: dayOffset)
        if day > Self.field(UInt16.self, of: run, at: kept + dayOffset) {
            run[kept + dayOffset] = UInt8(day >> 8)
            run[kept + dayOffset + 1] = UInt8(day & 0xFF)
        }
    }

    /// The big-endian integer at `offset` of `bytes`.
    static func field<Value: FixedWidthInteger & UnsignedInteger, Bytes: RandomAccessCollection<UInt8>>(
        _: Value.Type, of bytes: Bytes, at offset: Int
    ) -> Value where Bytes.Index == Int {
        var value: Value = 0
        let start = bytes.startIndex + offset
        for index in start..<(start + MemoryLayout<Value>.size) { value = value << 8 | Value(bytes[index]) }
        return value
    }
}

/// An entry's 16-byte sort key as two big-endian words, in the order entries are sorted; `high` is its compact key.
struct RegionEntryKey: Comparable {
    var high: UInt64 = 0
    var low: UInt64 = 0

    /// The key of the entry at `offset` of `bytes`.
    init<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at offset: Int) where Bytes.Index == Int {
        let start = bytes.startIndex + offset
        for index in start..<(start + 8) { high = high << 8 | UInt64(bytes[index]) }
        for index in (start + 8)..<(start + 16) { low = low << 8 | UInt64(bytes[index]) }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

/// One kind's sorted entries as a region's index keeps them: in memory, a compact key per entry — the first 8 bytes
/// of its sort key as a big-endian word, 8 bytes an entry —; the entries themselves in the index's file, read
/// through the port (`RegionWarningFileReading`) only when a lookup's compact key is among them: a record under the
/// key looked up, or a rare one sharing its first 8 bytes, which the whole key then tells apart.
struct RegionWarningEntries: Sendable {
    /// How many bytes of entries are read at a time when a whole run is read through (at a restart, in a merge).
    static let pieceBytes = 64 * 1024

    let kind: RegionEntryKind
    /// Sorted; key `i` is entry `i`'s.
    let keys: ContiguousArray<UInt64>
    /// The file the entries lie in, one after another from `offset` on; nil when there are none.
    let file: (any RegionWarningFileReading)?
    let offset: Int
    /// The earliest age of an entry (`RegionEntryKind.age`); nil when there are none.
    let oldest: Int64?

    /// No entries.
    init(kind: RegionEntryKind) {
        self.kind = kind
        keys = []
        file = nil
        offset = 0
        oldest = nil
    }

    /// Sorted entries held in memory (a builder's): the bytes serve as their file.
    init(kind: RegionEntryKind, sorted bytes: ContiguousArray<UInt8>) {
        var collector = Collector(kind: kind, capacity: bytes.count / kind.stride)
        _ = collector.append(bytes)
        self = collector.entries(file: RegionWarningBytes(bytes), offset: 0)
    }

    /// The `count` entries lying from `offset` on in `file`, their compact keys gathered a piece at a time (the run is
    /// never read whole). Throws `.malformed` when they are out of order.
    init(kind: RegionEntryKind, file: any RegionWarningFileReading, offset: Int, count: Int)
        throws(RegionWarningReadError)
    {
        var collector = Collector(kind: kind, capacity: count)
        let perPiece = max(1, Self.pieceBytes / kind.stride)
        var position = 0
        while position < count {
            let entries = min(perPiece, count - position)
            let bytes = try file.read(at: offset + position * kind.stride, count: entries * kind.stride)
            guard bytes.count == entries * kind.stride else { throw .cutShort }
            guard collector.append(bytes) else { throw .malformed }
            position += entries
        }
        self = collector.entries(file: file, offset: offset)
    }

    private init(
        kind: RegionEntryKind, keys: ContiguousArray<UInt64>, file: any RegionWarningFileReading, offset: Int,
        oldest: Int64?
    ) {
        self.kind = kind
        self.keys = keys
        self.file = keys.isEmpty ? nil : file
        self.offset = offset
        self.oldest = oldest
    }

    var count: Int { keys.count }

    /// Entries `range`, laid one after another: one read.
    func read(_ range: Range<Int>) throws(RegionWarningReadError) -> [UInt8] {
        guard !range.isEmpty else { return [] }
        guard let file, range.upperBound <= count else { throw .cutShort }
        let bytes = try file.read(at: offset + range.lowerBound * kind.stride, count: range.count * kind.stride)
        guard bytes.count == range.count * kind.stride else { throw .cutShort }
        return bytes
    }

    /// The entries whose sort key is `key`'s first 16 bytes, whole and in their order; nothing is read unless an
    /// entry shares its compact key, and then the entries sharing it are read at once.
    func entries(keyed key: [UInt8]) throws(RegionWarningReadError) -> [[UInt8]] {
        guard key.count >= RegionEntryKind.keyLength else { return [] }
        let wanted = RegionEntryKey(key, at: 0)
        let range = positions(of: wanted.high)
        guard !range.isEmpty else { return [] }
        let bytes = try read(range)
        var found = [[UInt8]]()
        for start in Swift.stride(from: 0, to: bytes.count, by: kind.stride)
        where RegionEntryKey(bytes, at: start) == wanted {
            found.append(Array(bytes[start..<(start + kind.stride)]))
        }
        return found
    }

    /// The positions of the entries whose compact key is `compact` (binary search).
    func positions(of compact: UInt64) -> Range<Int> {
        keys.withUnsafeBufferPointer { keys in
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < compact { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < keys.count, keys[end] == compact { end += 1 }
            return low..<end
        }
    }

    /// Gathers the compact keys of entries given in their order, and the oldest of their ages.
    struct Collector {
        let kind: RegionEntryKind
        private(set) var keys = ContiguousArray<UInt64>()
        private var last: RegionEntryKey?
        private var oldest: Int64?

        init(kind: RegionEntryKind, capacity: Int) {
            self.kind = kind
            keys.reserveCapacity(capacity)
        }

        /// Adds the whole entries laid one after another in `bytes`; false when one's key is below the one before
        /// it (the entries are then not a sorted run).
        mutating func append<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
            var ordered = true
            for start in Swift.stride(from: 0, through: bytes.count - kind.stride, by: kind.stride) {
                let key = RegionEntryKey(bytes, at: start)
                if let last, key < last { ordered = false }
                last = key
                keys.append(key.high)
                let age = kind.age(of: bytes, at: start)
                oldest = min(oldest ?? age, age)
            }
            return ordered
        }

        /// The entries gathered, lying from `offset` on in `file`.
        func entries(file: any RegionWarningFileReading, offset: Int) -> RegionWarningEntries {
            RegionWarningEntries(kind: kind, keys: keys, file: file, offset: offset, oldest: oldest)
        }
    }
}
