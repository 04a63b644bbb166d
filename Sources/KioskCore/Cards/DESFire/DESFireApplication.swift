/// A MIFARE DESFire application's identifier (AID): 24 bits, sent least significant byte first. The PICC level
/// (the card itself, before any application is selected) is AID 000000.
public struct DESFireApplicationID: Hashable, Sendable {
    /// The AID as a number (0 to FFFFFF).
    public let value: UInt32

    /// The card itself.
    public static let picc = DESFireApplicationID(0)

    public init(_ value: UInt32) {
        precondition(value <= 0xFF_FFFF, "an AID has 24 bits")
        self.value = value
    }

    /// The AID from its three bytes as sent (least significant first).
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 3)
        value = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
    }

    /// The three bytes as sent: least significant first.
    public var bytes: [UInt8] { DESFireBytes.littleEndian(Int(value), count: 3) }
}

/// An application's (or the card's) key settings byte, as CreateApplication, GetKeySettings and ChangeKeySettings
/// carry it (MIFARE DESFire EV1 data sheet):
///
/// - bits 7–4: which key may change the application's keys other than its master key (a key number, E: the key
///   being changed itself, F: none: the keys are frozen);
/// - bit 3: the settings may be changed (with the master key);
/// - bit 2: creating and deleting files (or applications, on the card) needs no master key authentication;
/// - bit 1: listing files (or applications) and reading settings needs no master key authentication;
/// - bit 0: the master key may be changed.
public struct DESFireKeySettings: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The access rights for changing keys: key 0 … 13, or `sameKey` (E), or `frozen` (F).
    public init(
        changeKeyAccess: UInt8, configurationChangeable: Bool, freeCreateDelete: Bool, freeDirectoryList: Bool,
        masterKeyChangeable: Bool
    ) {
        precondition(changeKeyAccess <= 0x0F)
        rawValue =
            changeKeyAccess << 4 | (configurationChangeable ? 0x08 : 0) | (freeCreateDelete ? 0x04 : 0)
            | (freeDirectoryList ? 0x02 : 0) | (masterKeyChangeable ? 0x01 : 0)
    }

    /// Change-key access E: a key is changed only after authenticating with that key.
    public static let sameKey: UInt8 = 0x0E
    /// Change-key access F: no key but the master key can ever be changed.
    public static let frozen: UInt8 = 0x0F

    public var changeKeyAccess: UInt8 { rawValue >> 4 }
    public var configurationChangeable: Bool { rawValue & 0x08 != 0 }
    public var freeCreateDelete: Bool { rawValue & 0x04 != 0 }
    public var freeDirectoryList: Bool { rawValue & 0x02 != 0 }
    public var masterKeyChangeable: Bool { rawValue & 0x01 != 0 }
}
