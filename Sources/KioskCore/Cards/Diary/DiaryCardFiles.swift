/// A diary card in the field, authenticated with its diary key: the port a `DiaryDesk` works through. The NFC
/// module implements it over DESFire commands; the card's keys stay behind it.
public protocol DiaryCardFiles {
    /// The card's real UID (GetCardUID), 7 bytes: what its stays are sealed for.
    var uid: [UInt8] { get }
    /// The whole header file (`DiaryHeader.size`).
    func readHeader() throws(DiaryCardError) -> [UInt8]
    /// `count` bytes of the header file from `offset`: what a tap needs of it (`DiaryHeader.tapBytes`, and a slot's
    /// share when its record is about to be overwritten).
    func readHeader(offset: Int, count: Int) throws(DiaryCardError) -> [UInt8]
    /// One record of the ring, `fromNewest` records back from the newest (0), or nil when there is none.
    func readRecord(fromNewest: Int) throws(DiaryCardError) -> [UInt8]?
    /// The newest `count` records of the ring (as many as the header says it holds), oldest first.
    func readRing(count: Int) throws(DiaryCardError) -> [[UInt8]]
    /// Writes the header's `changes` and, if given, appends `record` to the ring, in one transaction: after a
    /// tearing the card holds either all of it or none of it.
    func write(header changes: [DiaryHeaderChange], appending record: [UInt8]?) throws(DiaryCardError)
    /// Writes `header` and clears the ring, in one transaction: "delete everything".
    func clearRing(header: [UInt8]) throws(DiaryCardError)
}

/// Why a diary card could not be read or written. Carries no key, UID or data.
public enum DiaryCardError: Error, Equatable, Sendable {
    /// The card left the field (or stopped answering) before the exchange finished; nothing of an unfinished
    /// transaction was kept.
    case cardGone
    /// The card holds no diary (a DESFire card never made a diary card, or formatted since).
    case notADiaryCard
    /// The card's keys are of no generation this kiosk holds, or its answer to them was wrong: a card of another
    /// region, one whose generation was retired, or a forgery.
    case keysDoNotMatch
    /// The card answered with an error status (DESFire's status byte, named in the text): not a diary card of this
    /// region, keys that do not match, a damaged file.
    case refused(String)
}

/// Bytes of the header file to write at an offset: a tap writes only what changed (the radio moves about 10 bytes
/// a millisecond, and every 32-byte block written costs the card's EEPROM time).
public struct DiaryHeaderChange: Sendable, Equatable {
    public var offset: Int
    public var bytes: [UInt8]

    public init(offset: Int, bytes: [UInt8]) {
        self.offset = offset
        self.bytes = bytes
    }

    /// Unchanged runs shorter than this are written rather than split around: a command costs more.
    static let gapWorthSplitting = 16

    /// The runs of `new` that differ from `old`, those closer than `gapWorthSplitting` joined; all of `new` when the
    /// sizes differ.
    public static func between(_ old: [UInt8], _ new: [UInt8]) -> [DiaryHeaderChange] {
        guard old.count == new.count else { return [DiaryHeaderChange(offset: 0, bytes: new)] }
        var ranges: [Range<Int>] = []
        for index in new.indices where old[index] != new[index] {
            if let last = ranges.last, index - last.upperBound < gapWorthSplitting {
                ranges[ranges.count - 1] = last.lowerBound..<(index + 1)
            } else {
                ranges.append(index..<(index + 1))
            }
        }
        return ranges.map { DiaryHeaderChange(offset: $0.lowerBound, bytes: Array(new[$0])) }
    }
}
