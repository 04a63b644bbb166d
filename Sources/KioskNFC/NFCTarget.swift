/// A card found by the reader (ISO/IEC 14443 type A), as anticollision reported it.
public struct NFCTarget: Equatable, Sendable {
    /// ATQA (SENS_RES), 2 bytes.
    public var atqa: [UInt8]
    /// SAK (SEL_RES).
    public var sak: UInt8
    /// The UID (4, 7 or 10 bytes). Identifying: never log it.
    public var uid: [UInt8]
    /// The ATS of an ISO/IEC 14443-4 card, empty otherwise.
    public var ats: [UInt8]

    public init(atqa: [UInt8], sak: UInt8, uid: [UInt8], ats: [UInt8] = []) {
        self.atqa = atqa
        self.sak = sak
        self.uid = uid
        self.ats = ats
    }

    /// Whether this looks like an NTAG21x / MIFARE Ultralight (ATQA 00 44, SAK 00, 7-byte UID), the only cards the
    /// kiosk writes.
    public var isUltralightFamily: Bool { atqa == [0x00, 0x44] && sak == 0x00 && uid.count == 7 }

    /// Whether this card speaks ISO/IEC 14443-4 (SAK bit 6, 0x20, and an ATS, which the reader asked for when it
    /// selected the card): a MIFARE DESFire, a bank or transit card. Its commands travel as APDUs
    /// (`NFCDESFireTransport`).
    public var isISO14443Part4: Bool { sak & 0x20 != 0 && !ats.isEmpty }

    /// Whether the UID is random, drawn anew at every selection (ISO/IEC 14443-3: a single-size UID starting with
    /// 08), as a MIFARE DESFire with its random-ID option gives it.
    public var hasRandomUID: Bool { uid.count == 4 && uid[0] == 0x08 }
}
