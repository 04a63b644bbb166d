/// A MIFARE DESFire EV1 status code: the byte after SW1 = 91 in a wrapped response (the native response's first
/// byte). 00 is success and AF asks for a further frame; every other code ends the command, and the card drops its
/// authentication. The names are those of the MIFARE DESFire EV1 data sheet's status table.
public struct DESFireStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let operationOK = DESFireStatus(rawValue: 0x00)
    /// No changes done to backup files: CommitTransaction or AbortTransaction was not necessary.
    public static let noChanges = DESFireStatus(rawValue: 0x0C)
    /// Insufficient non-volatile memory to complete the command.
    public static let outOfEEPROM = DESFireStatus(rawValue: 0x0E)
    /// The command code is not supported.
    public static let illegalCommand = DESFireStatus(rawValue: 0x1C)
    /// A CRC or MAC does not match the data, or padding bytes are not valid.
    public static let integrityError = DESFireStatus(rawValue: 0x1E)
    /// The key number does not exist.
    public static let noSuchKey = DESFireStatus(rawValue: 0x40)
    /// The command's length is not valid.
    public static let lengthError = DESFireStatus(rawValue: 0x7E)
    /// The current configuration or status does not allow the command.
    public static let permissionDenied = DESFireStatus(rawValue: 0x9D)
    /// A parameter's value is not valid.
    public static let parameterError = DESFireStatus(rawValue: 0x9E)
    /// The application does not exist on the card.
    public static let applicationNotFound = DESFireStatus(rawValue: 0xA0)
    /// An unrecoverable error within the application; it will be disabled.
    public static let applicationIntegrityError = DESFireStatus(rawValue: 0xA1)
    /// The current authentication does not allow the command (or the authentication failed).
    public static let authenticationError = DESFireStatus(rawValue: 0xAE)
    /// A further frame is to be sent or asked for.
    public static let additionalFrame = DESFireStatus(rawValue: 0xAF)
    /// An attempt to read or write beyond a file's or record's limits.
    public static let boundaryError = DESFireStatus(rawValue: 0xBE)
    /// An unrecoverable error within the card; it will be disabled.
    public static let piccIntegrityError = DESFireStatus(rawValue: 0xC1)
    /// The previous command was not completed: not every frame was sent or asked for.
    public static let commandAborted = DESFireStatus(rawValue: 0xCA)
    /// The card was disabled by an unrecoverable error.
    public static let piccDisabled = DESFireStatus(rawValue: 0xCD)
    /// The number of applications is limited to 28.
    public static let countError = DESFireStatus(rawValue: 0xCE)
    /// An application or file with the same number already exists.
    public static let duplicateError = DESFireStatus(rawValue: 0xDE)
    /// A non-volatile write did not complete (loss of power); the card's backup mechanism was activated.
    public static let eepromError = DESFireStatus(rawValue: 0xEE)
    /// The file does not exist.
    public static let fileNotFound = DESFireStatus(rawValue: 0xF0)
    /// An unrecoverable error within the file; it will be disabled.
    public static let fileIntegrityError = DESFireStatus(rawValue: 0xF1)

    /// The data sheet's name of the status, or its hexadecimal value when it has none.
    public var name: String {
        switch self {
        case .operationOK: "OPERATION_OK"
        case .noChanges: "NO_CHANGES"
        case .outOfEEPROM: "OUT_OF_EEPROM_ERROR"
        case .illegalCommand: "ILLEGAL_COMMAND_CODE"
        case .integrityError: "INTEGRITY_ERROR"
        case .noSuchKey: "NO_SUCH_KEY"
        case .lengthError: "LENGTH_ERROR"
        case .permissionDenied: "PERMISSION_DENIED"
        case .parameterError: "PARAMETER_ERROR"
        case .applicationNotFound: "APPLICATION_NOT_FOUND"
        case .applicationIntegrityError: "APPL_INTEGRITY_ERROR"
        case .authenticationError: "AUTHENTICATION_ERROR"
        case .additionalFrame: "ADDITIONAL_FRAME"
        case .boundaryError: "BOUNDARY_ERROR"
        case .piccIntegrityError: "PICC_INTEGRITY_ERROR"
        case .commandAborted: "COMMAND_ABORTED"
        case .piccDisabled: "PICC_DISABLED_ERROR"
        case .countError: "COUNT_ERROR"
        case .duplicateError: "DUPLICATE_ERROR"
        case .eepromError: "EEPROM_ERROR"
        case .fileNotFound: "FILE_NOT_FOUND"
        case .fileIntegrityError: "FILE_INTEGRITY_ERROR"
        default: "status \(DESFireStatus.hex(rawValue))"
        }
    }

    public var description: String { "\(name) (\(DESFireStatus.hex(rawValue)))" }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
