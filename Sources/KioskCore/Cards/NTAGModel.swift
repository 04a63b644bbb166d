/// The NXP tags a kiosk card can be, with their memory maps (NTAG213/215/216 data sheet §8.5, MF0ULx1 data sheet
/// §8.5) and the GET_VERSION answer that names each. The reader (`KioskNFC`) recognises a card by it; the PN532
/// emulator answers with it.
public enum NTAGModel: String, Equatable, Sendable, CaseIterable {
    case ntag213, ntag215, ntag216, ultralightEV1MF0UL11, ultralightEV1MF0UL21

    /// The model for a GET_VERSION answer, or nil for anything else: NXP's vendor byte, the product type (byte 2) and
    /// the storage size (byte 6) decide; the subtype and the version bytes may differ between batches of a model.
    public init?(version: [UInt8]) {
        guard version.count == 8, version[0] == 0x00, version[1] == 0x04, version[7] == 0x03,
            let model = Self.allCases.first(where: { $0.version[2] == version[2] && $0.version[6] == version[6] })
        else { return nil }
        self = model
    }

    /// The 8-byte GET_VERSION answer.
    public var version: [UInt8] {
        switch self {
        case .ntag213: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        case .ntag215: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        case .ntag216: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
        case .ultralightEV1MF0UL11: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
        case .ultralightEV1MF0UL21: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]
        }
    }

    /// Number of 4-byte pages, configuration pages included.
    public var pageCount: Int {
        switch self {
        case .ntag213: 45
        case .ntag215: 135
        case .ntag216: 231
        case .ultralightEV1MF0UL11: 20
        case .ultralightEV1MF0UL21: 41
        }
    }

    /// First configuration page (CFG0, holding AUTH0); CFG1 (ACCESS), PWD and PACK follow it.
    public var configPage: Int { pageCount - 4 }

    /// An NTAG21x (not an Ultralight EV1).
    public var isNTAG: Bool { self == .ntag213 || self == .ntag215 || self == .ntag216 }
}
