/// Two sorted runs of one kind of entry as one sorted run, produced a piece at a time: the entries of `old` (read
/// through its file a piece at a time) that are current at the age deadline, and those of `new` (in memory: sorted,
/// current, no two of the same record). Under each key `old`'s come first, then `new`'s, except a new entry of a
/// record already kept under that key, whose later day is kept instead. Besides a piece of each run it holds only the
/// compact keys it gathers for the merged run (`collector`), so that a run in a file is never read whole.
struct RegionEntryMerge {
    let kind: RegionEntryKind
    private let old: RegionWarningEntries
    private let new: ContiguousArray<UInt8>
    private let deadline: Int64
    /// A piece of `old`'s entries, the first at position `pieceStart`.
    private var piece: [UInt8] = []
    private var pieceStart = 0
    /// The next entry of each run: a position in `old`, a byte offset in `new`.
    private var nextOld = 0
    private var nextNew = 0
    /// The merged run's compact keys, as far as its pieces were given.
    private(set) var collector: RegionWarningEntries.Collector

    init(old: RegionWarningEntries, new: ContiguousArray<UInt8>, deadline: Int64) {
        kind = old.kind
        self.old = old
        self.new = new
        self.deadline = deadline
        collector = RegionWarningEntries.Collector(kind: old.kind, capacity: old.count + new.count / old.kind.stride)
    }

    /// The merged run's next piece (whole entries, about `RegionWarningEntries.pieceBytes`); nil once both runs are
    /// used up. Throws when `old`'s file cannot be read.
    mutating func next() throws(RegionWarningReadError) -> [UInt8]? {
        let stride = kind.stride
        var output = [UInt8]()
        output.reserveCapacity(RegionWarningEntries.pieceBytes + stride)
        while output.count < RegionWarningEntries.pieceBytes {
            let oldKey = try oldEntry().map { RegionEntryKey(piece, at: $0) }
            let newKey = nextNew < new.count ? RegionEntryKey(new, at: nextNew) : nil
            guard let key = Self.smaller(oldKey, newKey) else { break }
            let runStart = output.count
            while let start = try oldEntry(), RegionEntryKey(piece, at: start) == key {
                if kind.age(of: piece, at: start) >= deadline {
                    output.append(contentsOf: piece[start..<(start + stride)])
                }
                nextOld += 1
            }
            while nextNew < new.count, RegionEntryKey(new, at: nextNew) == key {
                kind.add(new[nextNew..<(nextNew + stride)], to: &output, runStart: runStart)
                nextNew += stride
            }
            _ = collector.append(output[runStart...])
        }
        return output.isEmpty ? nil : output
    }

    /// The byte offset in `piece` of `old`'s next entry, the next piece read first when needed; nil when none is
    /// left.
    private mutating func oldEntry() throws(RegionWarningReadError) -> Int? {
        guard nextOld < old.count else { return nil }
        if nextOld - pieceStart >= piece.count / kind.stride {
            let perPiece = max(1, RegionWarningEntries.pieceBytes / kind.stride)
            piece = try old.read(nextOld..<min(old.count, nextOld + perPiece))
            pieceStart = nextOld
        }
        return (nextOld - pieceStart) * kind.stride
    }

    private static func smaller(_ first: RegionEntryKey?, _ second: RegionEntryKey?) -> RegionEntryKey? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }
}
