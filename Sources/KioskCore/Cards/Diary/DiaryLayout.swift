/// Where a diary lives on a MIFARE DESFire card (docs/diary-card.md): one application, three AES keys, a header in
/// a backup data file and the finished stays in a cyclic record file, every file in enciphered communication.
public enum DiaryLayout {
    /// The diary application's AID, as sent in SelectApplication and CreateApplication ("KD1").
    public static let aid: [UInt8] = [0x4B, 0x44, 0x31]
    /// The application's keys: 0 its master key, 1 the diary key, 2 the region's identify key.
    public static let keyCount = 3
    public static let applicationMasterKey: UInt8 = 0
    public static let diaryKey: UInt8 = 1
    public static let identifyKey: UInt8 = 2

    /// The backup data file of the header (`DiaryHeader`, `DiaryHeader.size(ringRecords:)` bytes).
    public static let headerFile: UInt8 = 1
    /// The cyclic record file of finished stays (`DiarySealing`).
    public static let ringFile: UInt8 = 2
    public static let recordSize = 112

    /// DESFire allocates a file's memory in blocks of this many bytes.
    public static let allocationBlock = 32

    /// The records the ring is created with on a card with `freeMemory` bytes left once the application exists
    /// (GetFreeMemory): as many as fit beside the header, whose backup file takes twice its size (DESFire keeps a
    /// mirror of it for the transaction), at most 64. Nil when not even two fit. A cyclic record file keeps one
    /// record free for its transaction, so the card keeps one stay fewer in its ring.
    public static func ringRecords(freeMemory: Int) -> Int? {
        var records = DiaryHeader.maximumRingRecords
        while records >= 2, memory(ringRecords: records) > freeMemory { records -= 1 }
        return records >= 2 ? records : nil
    }

    /// The card memory the header and a ring of `ringRecords` records take.
    public static func memory(ringRecords: Int) -> Int {
        2 * allocated(DiaryHeader.size(ringRecords: ringRecords)) + allocated(ringRecords * recordSize)
    }

    /// The bytes a file of `size` bytes takes on the card.
    public static func allocated(_ size: Int) -> Int {
        (size + allocationBlock - 1) / allocationBlock * allocationBlock
    }
}
