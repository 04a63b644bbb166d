/// What GetVersion (60) tells about a card: its hardware and software (vendor, type, subtype, version, storage
/// size, protocol), then its production data. 28 bytes in three frames (7, 7 and 14), as the MIFARE DESFire EV1
/// data sheet lays them out.
///
/// The UID it holds identifies the card: never log it. (A card with the random-ID option answers with a UID of
/// zeros until authenticated.)
public struct DESFireVersion: Equatable, Sendable {
    /// NXP's vendor code.
    public static let nxp: UInt8 = 0x04
    /// The hardware type of MIFARE DESFire (EV1, EV2 and EV3 alike).
    public static let desfireType: UInt8 = 0x01

    public let hardwareVendor: UInt8
    public let hardwareType: UInt8
    public let hardwareSubtype: UInt8
    /// 00 for the original DESFire, 01 for EV1, 12 for EV2, 30 for EV3.
    public let hardwareMajorVersion: UInt8
    public let hardwareMinorVersion: UInt8
    /// The storage size code: 2^(n/2) bytes (18: 4 KB, 1A: 8 KB); its lowest bit set means "between".
    public let storageSizeCode: UInt8
    public let softwareMajorVersion: UInt8
    public let softwareMinorVersion: UInt8
    /// The UID of the card (7 bytes). Identifying.
    public let uid: [UInt8]
    public let batch: [UInt8]
    public let productionWeek: UInt8
    public let productionYear: UInt8

    /// Reads the 28 bytes of GetVersion's three frames, joined.
    public init(answer: [UInt8]) throws(DESFireCommandError) {
        guard answer.count == 28 else { throw .malformedResponse("GetVersion") }
        hardwareVendor = answer[0]
        hardwareType = answer[1]
        hardwareSubtype = answer[2]
        hardwareMajorVersion = answer[3]
        hardwareMinorVersion = answer[4]
        storageSizeCode = answer[5]
        softwareMajorVersion = answer[10]
        softwareMinorVersion = answer[11]
        uid = Array(answer[14..<21])
        batch = Array(answer[21..<26])
        productionWeek = answer[26]
        productionYear = answer[27]
    }

    /// Whether the card is an NXP MIFARE DESFire (vendor 04, type 01): EV1 or a later one that speaks EV1's
    /// commands.
    public var isDESFire: Bool { hardwareVendor == Self.nxp && hardwareType == Self.desfireType }

    /// The storage size in bytes (the lower bound when the code says "between").
    public var storageSize: Int { 1 << Int(storageSizeCode >> 1) }
}
