/// What a MIFARE DESFire EV1 card keeps in its EEPROM: its UID, its configuration, the PICC master key, its
/// applications with their AES keys and their files' committed contents. Everything volatile (the selected
/// application, an authentication, writes not yet committed) lives in `EmulatedDESFire` and is lost with power.
///
/// Codable so that `DESFireCardMemory` can keep a card in a file several processes share (format version 1).
public struct DESFireCardImage: Codable, Equatable, Sendable {
    /// The file format's version; `DESFireCardMemory` refuses any other.
    public static let currentFormat = 1

    public var format: Int
    public var capacity: DESFireCapacity
    /// The card's real 7-byte UID (what GetCardUID returns, and the anticollision UID unless random UID is on).
    public var uid: [UInt8]
    /// SetConfiguration option 00, bit 1: the anticollision UID is random per activation (cannot be undone).
    public var randomUID: Bool
    /// SetConfiguration option 00, bit 0: FormatPICC is refused.
    public var formatDisabled: Bool
    /// The PICC master key (AES here; a factory card has a DES key of zeros, which this AES-only card replaces with
    /// an AES key of zeros).
    public var piccKey: DESFireKeySlot
    /// The PICC master key settings (factory 0x0F: changeable, free create, free listing, configuration changeable).
    public var piccKeySettings: UInt8
    public var applications: [DESFireApplicationImage]
    /// Bytes allocated since the last FormatPICC (DeleteApplication does not give memory back; FormatPICC does).
    public var allocatedBytes: Int

    /// A factory-fresh card (after FormatPICC) with `uid`.
    public init(uid: [UInt8], capacity: DESFireCapacity = .ev1_4K) {
        precondition(uid.count == 7, "DESFire EV1 UIDs are 7 bytes")
        self.format = Self.currentFormat
        self.capacity = capacity
        self.uid = uid
        self.randomUID = false
        self.formatDisabled = false
        self.piccKey = DESFireKeySlot()
        self.piccKeySettings = 0x0F
        self.applications = []
        self.allocatedBytes = 0
    }

    /// What GetFreeMemory answers.
    public var freeMemory: Int { max(0, capacity.freeMemoryWhenEmpty - allocatedBytes) }

    /// The application with `aid` (3 bytes as sent), if any.
    public func application(_ aid: [UInt8]) -> DESFireApplicationImage? {
        applications.first { $0.aid == aid }
    }

    /// The committed contents of file `number` of application `aid`.
    public func file(_ number: UInt8, in aid: [UInt8]) -> DESFireFileImage? {
        application(aid)?.files.first { $0.number == number }
    }

    func applicationIndex(_ aid: [UInt8]) -> Int? { applications.firstIndex { $0.aid == aid } }
}

/// A DESFire EV1 card's memory size.
public enum DESFireCapacity: String, Codable, Equatable, Sendable, CaseIterable {
    /// MF3ICD41: 4 KB of user memory. (The names keep the product's own spelling.)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case ev1_4K = "4K"
    /// MF3ICD81: 8 KB of user memory.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case ev1_8K = "8K"

    /// What GetFreeMemory reports on an empty card. Real EV1 cards report more than their nominal size: 4,864 bytes
    /// for the 4K and 7,936 for the 8K (the nfc-tools project's page on MIFARE DESFire EV1, "Memory": EEPROM 5,088 and
    /// 8,192 bytes, usable 4,864 and 7,936; a 2K card reports 2,304, as proxmark3's `hf mfdes info` shows).
    public var freeMemoryWhenEmpty: Int {
        switch self {
        case .ev1_4K: 4864
        case .ev1_8K: 7936
        }
    }

    /// GetVersion's storage size byte: 2^(n/2) bytes (0x18: 4,096; 0x1A: 8,192).
    var storageSizeByte: UInt8 {
        switch self {
        case .ev1_4K: 0x18
        case .ev1_8K: 0x1A
        }
    }
}

/// An AES-128 key and its version.
public struct DESFireKeySlot: Codable, Equatable, Sendable {
    public var value: [UInt8]
    public var version: UInt8

    public init(value: [UInt8] = [UInt8](repeating: 0, count: 16), version: UInt8 = 0) {
        self.value = value
        self.version = version
    }
}

/// An application: its AID, key settings, AES keys and files.
public struct DESFireApplicationImage: Codable, Equatable, Sendable {
    /// The AID as sent on the wire (3 bytes, least significant first).
    public var aid: [UInt8]
    /// The application master key settings: bits 7–4 the key that may change keys (0: the master key, 1–D that key,
    /// E the key itself, F frozen), bit 3 settings changeable, bit 2 free create/delete, bit 1 free listing, bit 0
    /// master key changeable.
    public var keySettings: UInt8
    public var keys: [DESFireKeySlot]
    /// Sorted by file number.
    public var files: [DESFireFileImage]
}

/// A file and its committed contents.
public struct DESFireFileImage: Codable, Equatable, Sendable {
    public enum Kind: UInt8, Codable, Equatable, Sendable {
        case standardData = 0x00
        case backupData = 0x01
        case cyclicRecord = 0x04
    }

    public var number: UInt8
    public var kind: Kind
    /// 0 plain, 1 MAC'd, 3 enciphered.
    public var communication: UInt8
    /// Four nibbles from the high one: read, write, read&write, change (0–D a key, E free, F never).
    public var accessRights: UInt16
    /// A data file's size, or a record file's record size.
    public var size: Int
    /// A record file's maximum number of records (one of them kept free for the transaction).
    public var maxRecords: Int
    /// A data file's bytes.
    public var data: [UInt8]
    /// A record file's records, oldest first (at most `maxRecords` − 1).
    public var records: [[UInt8]]

    public var readKey: UInt8 { UInt8(accessRights >> 12 & 0xF) }
    public var writeKey: UInt8 { UInt8(accessRights >> 8 & 0xF) }
    public var readWriteKey: UInt8 { UInt8(accessRights >> 4 & 0xF) }
    public var changeKey: UInt8 { UInt8(accessRights & 0xF) }

    /// The bytes the file takes on the card: data in blocks of 32 bytes, a backup file twice (its mirror), a record
    /// file all its records together (as `DiaryLayout.allocated` counts them).
    var allocation: Int {
        switch kind {
        case .standardData: Self.blocks(size) * 32
        case .backupData: 2 * Self.blocks(size) * 32
        case .cyclicRecord: Self.blocks(size * maxRecords) * 32
        }
    }

    static func blocks(_ bytes: Int) -> Int { (bytes + 31) / 32 }
}
