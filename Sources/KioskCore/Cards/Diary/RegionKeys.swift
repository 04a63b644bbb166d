/// What a diary card's key is for: the first byte of its AN10922 diversification input (docs/diary-card.md).
public enum DiaryKeyPurpose: UInt8, Sendable, CaseIterable {
    /// The card's PICC master key: formats the card, removes or adds applications.
    case piccMaster = 0x01
    /// The diary application's master key (key 0): changes the application's keys.
    case applicationMaster = 0x02
    /// The diary key (key 1): reads and writes the diary's files.
    case diary = 0x03
    /// The region's identify key (key 2): authenticates only to read the card's real UID (GetCardUID). The same on
    /// every card of a generation: its input's UID is seven zero bytes.
    case identify = 0x04
}

/// A day of the region's day ratchet: whole days since 1970-01-01 in UTC.
public typealias DiaryDay = Int

/// Why a region key could not be had. Carries no key, UID or day key.
public enum RegionKeyError: Error, Equatable, Sendable {
    /// The token holds no card key of this generation (never installed, or retired).
    case unknownGeneration(UInt8)
    /// The day's key is gone (older than the ratchet's oldest day) or not yet reachable (a day after today).
    case dayUnavailable(DiaryDay)
    /// The token, or the call into it, failed; the message names the token's function and code, nothing secret.
    case token(String)
}

/// The region's keys as a kiosk's PKCS #11 token serves them. The master keys never leave the token; what this
/// returns (a card's diversified key, a stay's key material) lives in memory only while the card is in the field,
/// and the caller wipes it.
public protocol RegionKeys: Sendable {
    /// The region's system identifier: the last 20 bytes of every diversification input.
    var systemIdentifier: [UInt8] { get }
    /// The card key generations the token holds, oldest first; the last is the one new cards get.
    func generations() throws(RegionKeyError) -> [UInt8]
    /// A card's AES-128 key of `purpose` and `generation`: NXP AN10922 from the generation's card master key, with
    /// the 31-byte input purpose ‖ `uid` (7 bytes; zeros for `.identify`) ‖ `aid` (3 bytes) ‖ system identifier.
    func cardKey(_ purpose: DiaryKeyPurpose, uid: [UInt8], aid: [UInt8], generation: UInt8) throws(RegionKeyError)
        -> [UInt8]
    /// The 16 bytes a stay of `day` on the card with the real `uid` is sealed from: CMAC(K(day), 05 ‖ uid), K(day)
    /// derived inside the token from the ratchet's oldest key. Throws `.dayUnavailable` for a day older than the
    /// ratchet's oldest or later than `today`.
    func stayKeyMaterial(day: DiaryDay, uid: [UInt8], today: DiaryDay) throws(RegionKeyError) -> [UInt8]
    /// Moves the ratchet so that its oldest day is `today − DiaryRetention.days`, destroying every older day key.
    /// Never steps back.
    func advance(today: DiaryDay) throws(RegionKeyError)
}

/// How long a stay on a diary card can be opened: until the end of the 14th day after its day.
public enum DiaryRetention {
    public static let days = 14

    /// The oldest day whose stays may still be opened on `today`.
    public static func oldestOpenDay(today: DiaryDay) -> DiaryDay { today - days }
}
