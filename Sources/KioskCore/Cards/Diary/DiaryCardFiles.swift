/// A diary card in the field, authenticated with its diary key: the port a `DiaryDesk` works through. The NFC
/// module implements it over DESFire commands; the card's keys stay behind it.
public protocol DiaryCardFiles {
    /// The card's real UID (GetCardUID), 7 bytes: what its stays are sealed for.
    var uid: [UInt8] { get }
    /// The records the card's ring file was created with.
    var ringRecords: Int { get }
    /// The header file's 192 bytes.
    func readHeader() throws(DiaryCardError) -> [UInt8]
    /// One record of the ring, `fromNewest` records back from the newest (0), or nil when there is none.
    func readRecord(fromNewest: Int) throws(DiaryCardError) -> [UInt8]?
    /// Every record of the ring, oldest first.
    func readRing() throws(DiaryCardError) -> [[UInt8]]
    /// Writes `header` and, if given, appends `record` to the ring, in one transaction: after a tearing the card
    /// holds either all of it or none of it.
    func write(header: [UInt8], appending record: [UInt8]?) throws(DiaryCardError)
    /// Writes `header` and replaces the whole ring by `ring` (oldest first; cleared when empty), in one
    /// transaction: the holder's deletions and the marks of reported stays.
    func replace(header: [UInt8], ring: [[UInt8]]) throws(DiaryCardError)
}

/// Why a diary card could not be read or written. Carries no key, UID or data.
public enum DiaryCardError: Error, Equatable, Sendable {
    /// The card left the field (or stopped answering) before the exchange finished; nothing of an unfinished
    /// transaction was kept.
    case cardGone
    /// The card answered with an error status (DESFire's status byte, named in the text): not a diary card of this
    /// region, keys that do not match, a damaged file.
    case refused(String)
}
