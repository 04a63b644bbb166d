/// The AN10922 diversification input M of a diary card's keys (docs/diary-card.md, "Per-card keys"): always 31 bytes,
/// purpose (1) ‖ the card's real UID (7; seven zero bytes for the identify key) ‖ the application's AID (3, as sent)
/// ‖ the region's system identifier (20). At 31 bytes, AN10922's D = 01 ‖ M is two whole blocks, so the diversified
/// key is plain AES-CMAC (RFC 4493) of D, which a PKCS #11 token computes (`CKM_AES_CMAC`) without the master key
/// ever leaving it.
public enum DiaryDiversification {
    public static let uidLength = 7
    public static let aidLength = 3
    public static let systemIdentifierLength = 20
    /// M's length: AN10922's longest input, filling D exactly.
    public static let inputLength = 1 + uidLength + aidLength + systemIdentifierLength

    /// The region's system identifier from its name: its UTF-8 bytes, zero-padded or cut to 20 bytes.
    public static func systemIdentifier(regionName: String) -> [UInt8] {
        fitted(Array(regionName.utf8))
    }

    /// `bytes` zero-padded or cut to 20 bytes.
    public static func fitted(_ bytes: [UInt8]) -> [UInt8] {
        let cut = Array(bytes.prefix(systemIdentifierLength))
        return cut + [UInt8](repeating: 0, count: systemIdentifierLength - cut.count)
    }

    /// Why an input cannot be made; names lengths, never a UID.
    public enum InputError: Error, Equatable, Sendable {
        case uidLength(Int)
        case aidLength(Int)
    }

    /// M for a key of `purpose`: `uid` must be 7 bytes (it is replaced by zeros for `.identify`, whatever it is),
    /// `aid` 3 bytes; the system identifier is fitted to 20 bytes.
    public static func input(
        purpose: DiaryKeyPurpose, uid: [UInt8], aid: [UInt8], systemIdentifier: [UInt8]
    ) throws(InputError) -> [UInt8] {
        let cardUID = purpose == .identify ? [UInt8](repeating: 0, count: uidLength) : uid
        guard cardUID.count == uidLength else { throw .uidLength(cardUID.count) }
        guard aid.count == aidLength else { throw .aidLength(aid.count) }
        return [purpose.rawValue] + cardUID + aid + fitted(systemIdentifier)
    }

    /// AN10922's D for M: the AES-128 constant 01 ‖ M, the message the token MACs.
    public static func message(input: [UInt8]) -> [UInt8] { [AN10922.aes128Constant] + input }

    /// The first byte of the message a stay's key material is MACed from under K(d): 05 ‖ the card's real UID.
    public static let stayPurpose: UInt8 = 0x05
}
