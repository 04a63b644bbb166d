/// What a MIFARE DESFire EV1 card keeps in its EEPROM: its UID, its configuration, the PICC master key (DES or AES),
/// its applications with their AES keys and their files' committed contents. Everything volatile (the selected
/// application, an authentication, writes not yet committed) lives in `EmulatedDESFire` and is lost with power.
///
/// Codable so that `DESFireCardMemory` can keep a card in a file several processes share (format version 1). A key
/// slot's `type` came later: a file without it is read with AES keys, as every emulated card was made then.
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
    /// The PICC master key: on a factory-fresh card, as on a real EV1, EV2 or EV3, a DES key of zeros
    /// (`DESFireKeySlot.factoryPICCKey`); ChangeKey may make it a 2K3DES or an AES key.
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
        self.piccKey = .factoryPICCKey
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

/// A key and its version: an AES-128 key, or a DES or two-key triple DES one (16 bytes; a DES key is K ‖ K).
///
/// A DES key's version is no byte of its own but its parity bits, the least significant bit of each of its first 8
/// bytes (bit 7 from byte 0): ChangeKey sends no version byte for it, and GetKeyVersion answers those bits.
public struct DESFireKeySlot: Codable, Equatable, Sendable {
    /// What a key is, and the bits 7–6 DESFire names it with (`flag`) in CreateApplication's key count, in the key
    /// number of a ChangeKey at the PICC level and in GetKeySettings' second byte. 3K3DES (flag 40) is not emulated.
    public enum KeyType: String, Codable, Equatable, Sendable {
        /// DES or 2K3DES (flag 00): AuthenticateISO, and a session under 2K3DES with 8-byte blocks.
        case tripleDES = "2K3DES"
        /// AES-128 (flag 80): AuthenticateAES, and a session under AES with 16-byte blocks.
        case aes = "AES"

        /// The key type named by `flag` (bits 7–6 of a byte; the other bits are ignored), nil for 3K3DES or 0xC0.
        public init?(flag: UInt8) {
            switch flag & 0xC0 {
            case 0x00: self = .tripleDES
            case 0x80: self = .aes
            default: return nil
            }
        }

        public var flag: UInt8 { self == .aes ? 0x80 : 0x00 }
        /// The cipher's block, also the length of RndA and RndB in the authentication.
        public var blockSize: Int { self == .aes ? 16 : 8 }
        /// Whether ChangeKey's cryptogram carries a version byte after the key (AES only).
        var hasVersionByte: Bool { self == .aes }
    }

    public var type: KeyType
    public var value: [UInt8]
    public var version: UInt8

    /// An AES key (by default of zeros, version 0: what CreateApplication gives an application's keys).
    public init(value: [UInt8] = [UInt8](repeating: 0, count: 16), version: UInt8 = 0) {
        self.type = .aes
        self.value = value
        self.version = version
    }

    /// A DES or 2K3DES key of 16 bytes, its version read from its parity bits.
    public init(tripleDES value: [UInt8]) {
        self.type = .tripleDES
        self.value = value
        self.version = value.prefix(8).reduce(0) { $0 << 1 | $1 & 1 }
    }

    /// The PICC master key a real card leaves the factory with: DES, all zeros, version 0.
    public static let factoryPICCKey = DESFireKeySlot(tripleDES: [UInt8](repeating: 0, count: 16))

    /// Whether a DES or 2K3DES key is a single DES key: its two halves equal, to the bit (parity bits included, as
    /// libfreefare expects: its 2K3DES keys differ from DES ones in their second half's parity bits).
    var isSingleDES: Bool { type == .tripleDES && value.prefix(8).elementsEqual(value.suffix(8)) }

    private enum CodingKeys: String, CodingKey { case type, value, version }

    /// Reads a slot; one without `type` (a file from before DES keys) is an AES key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.type = try container.decodeIfPresent(KeyType.self, forKey: .type) ?? .aes
        self.value = try container.decode([UInt8].self, forKey: .value)
        self.version = try container.decode(UInt8.self, forKey: .version)
    }
}

/// An application: its AID, key settings, AES keys and files (an application with DES keys is not emulated).
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
