/// How a file's data travels in an authenticated session (MIFARE DESFire EV1 data sheet, communication settings):
/// in plain, in plain with a CMAC, or enciphered with a CRC32. Outside a session (a file with free access) the
/// card always uses plain.
public enum DESFireCommunication: UInt8, Sendable, CaseIterable {
    case plain = 0x00
    case maced = 0x01
    case enciphered = 0x03
}

/// A file's access rights: for each of read, write, read-and-write and changing the settings, the key number
/// (0 … 13) that must have been authenticated, `free` (E) for no authentication, or `never` (F).
///
/// Sent as two bytes, least significant first, of the 16-bit value read ‖ write ‖ read-and-write ‖ change (four
/// bits each): the first byte is read-and-write ‖ change, the second read ‖ write.
public struct DESFireAccessRights: Hashable, Sendable {
    public static let free: UInt8 = 0x0E
    public static let never: UInt8 = 0x0F

    public var read: UInt8
    public var write: UInt8
    public var readWrite: UInt8
    public var change: UInt8

    public init(read: UInt8, write: UInt8, readWrite: UInt8, change: UInt8) {
        precondition(read <= 0x0F && write <= 0x0F && readWrite <= 0x0F && change <= 0x0F)
        self.read = read
        self.write = write
        self.readWrite = readWrite
        self.change = change
    }

    /// The rights from their two bytes as sent.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 2)
        self.init(read: bytes[1] >> 4, write: bytes[1] & 0x0F, readWrite: bytes[0] >> 4, change: bytes[0] & 0x0F)
    }

    /// The two bytes as sent.
    public var bytes: [UInt8] { [readWrite << 4 | change, read << 4 | write] }
}

/// A file's type and settings, as GetFileSettings answers them.
public struct DESFireFileSettings: Equatable, Sendable {
    public enum FileType: UInt8, Sendable {
        case standardData = 0x00
        case backupData = 0x01
        case value = 0x02
        case linearRecord = 0x03
        case cyclicRecord = 0x04
    }

    public var type: FileType
    public var communication: DESFireCommunication
    public var accessRights: DESFireAccessRights
    /// A data file's size in bytes.
    public var size: Int?
    /// A record file's record size, its maximum number of records and how many it holds.
    public var recordSize: Int?
    public var maximumRecords: Int?
    public var currentRecords: Int?

    public init(
        type: FileType, communication: DESFireCommunication, accessRights: DESFireAccessRights, size: Int? = nil,
        recordSize: Int? = nil, maximumRecords: Int? = nil, currentRecords: Int? = nil
    ) {
        self.type = type
        self.communication = communication
        self.accessRights = accessRights
        self.size = size
        self.recordSize = recordSize
        self.maximumRecords = maximumRecords
        self.currentRecords = currentRecords
    }

    /// Reads GetFileSettings' answer: type, communication, access rights (2), then 3 bytes of size for a data
    /// file, or 3 + 3 + 3 for a record file (record size, maximum and current number of records). A value file's
    /// limits are not kept.
    public init(answer: [UInt8]) throws(DESFireCommandError) {
        guard answer.count >= 4, let type = FileType(rawValue: answer[0]),
            let communication = DESFireCommunication(rawValue: answer[1] & 0x03)
        else { throw .malformedResponse("GetFileSettings") }
        self.init(
            type: type, communication: communication, accessRights: DESFireAccessRights(bytes: [answer[2], answer[3]]))
        switch type {
        case .standardData, .backupData:
            guard answer.count == 7 else { throw .malformedResponse("GetFileSettings") }
            size = DESFireBytes.integer(answer[4..<7])
        case .linearRecord, .cyclicRecord:
            guard answer.count == 13 else { throw .malformedResponse("GetFileSettings") }
            recordSize = DESFireBytes.integer(answer[4..<7])
            maximumRecords = DESFireBytes.integer(answer[7..<10])
            currentRecords = DESFireBytes.integer(answer[10..<13])
        case .value:
            guard answer.count == 17 else { throw .malformedResponse("GetFileSettings") }
        }
    }
}
