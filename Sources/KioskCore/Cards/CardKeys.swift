/// The two values a kiosk derives from a card secret with HKDF-SHA256:
///
/// - the **lookup handle** (32 bytes), under which the card's stays are indexed in the store;
/// - the **record key** (32 bytes, AES-256-GCM), under which every stay is sealed.
///
/// `IKM` = the card's layout bytes without the checksum (version, kind, entropy), `salt` = "CheckInKiosk card v1"
/// followed by the kiosk's own random 32-byte handle salt, `info` = "lookup handle" or "record key". Neither value
/// reveals the other or the secret, and the same card has unrelated handles on different kiosks, so databases taken
/// from two kiosks cannot be joined by handle.
///
/// A reference type on purpose: there is one copy of the key bytes, it is wiped by `wipe()` and again in `deinit`,
/// so keys live only while a card is being served. Not `Sendable`: use it within one task.
public final class CardKeys {
    static let salt = Array("CheckInKiosk card v1".utf8)
    static let handleInfo = Array("lookup handle".utf8)
    static let recordKeyInfo = Array("record key".utf8)

    /// The store index of this card's stays.
    public private(set) var handle: [UInt8]
    /// The AES-256-GCM key of this card's stays.
    private(set) var recordKey: [UInt8]
    private let crypto: any CryptoProvider

    public init(secret: CardSecret, kioskSalt: [UInt8], crypto: any CryptoProvider) throws(CryptoError) {
        var ikm = Array(secret.layoutBytes.prefix(CardSecret.layoutLength - 2))
        defer { crypto.wipe(&ikm) }
        self.crypto = crypto
        let salt = Self.salt + kioskSalt
        self.handle = try crypto.hkdfSHA256(inputKeyMaterial: ikm, salt: salt, info: Self.handleInfo, length: 32)
        self.recordKey = try crypto.hkdfSHA256(inputKeyMaterial: ikm, salt: salt, info: Self.recordKeyInfo, length: 32)
    }

    /// True once `wipe()` ran.
    public var isWiped: Bool { recordKey.allSatisfy { $0 == 0 } && handle.allSatisfy { $0 == 0 } }

    /// Overwrites handle and record key with zeros (`CryptoProvider.wipe`).
    public func wipe() {
        crypto.wipe(&recordKey)
        crypto.wipe(&handle)
    }

    deinit { wipe() }
}
