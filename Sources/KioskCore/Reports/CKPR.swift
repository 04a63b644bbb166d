/// CKPR/1, the kiosk's check-in protected report (the scheme of Apple/Google's Off-Device Venue Check-Ins specification): AES-128-CTR + HMAC-SHA256 under
/// keys that only a device which saw the venue's QR code can derive, with a per-day tag for lookup.
///
/// Record, 74 bytes: `tag(16) | iv(16) | ciphertext(10) | mac(32)`.
public enum CKPR {
    public static let version: UInt8 = 1
    public static let plaintextLength = 10
    public static let tagLength = 16
    public static let ivLength = 16
    public static let macLength = 32
    public static let recordLength = tagLength + ivLength + plaintextLength + macLength

    static let salt = Array("CKPR/1".utf8)
    static let info = Array("presence-record".utf8)

    /// Derives the venue's report keys from its 32-byte `locationId`. The caller owns the keys; they are wiped when
    /// the value is released.
    public static func deriveKeys(locationId: [UInt8], crypto: some CryptoProvider) throws(ProtectedReportError)
        -> CKPRKeys
    {
        do {
            var okm = try crypto.hkdfSHA256(inputKeyMaterial: locationId, salt: salt, info: info, length: 80)
            defer { crypto.wipe(&okm) }
            return CKPRKeys(
                encryption: Array(okm[0..<16]), mac: Array(okm[16..<48]), tag: Array(okm[48..<80]), crypto: crypto)
        } catch {
            throw .crypto(error)
        }
    }

    /// `HMAC-SHA256(K_tag, "day" || u32 day)[0..16)`.
    public static func tag(day: UInt32, keys: CKPRKeys) throws(ProtectedReportError) -> [UInt8] {
        var message = Array("day".utf8)
        message.appendBigEndian(day)
        do {
            return Array(try keys.crypto.hmacSHA256(key: keys.tagKey, data: message).prefix(tagLength))
        } catch {
            throw .crypto(error)
        }
    }

    /// Seals `report` with a fresh IV from the CSPRNG.
    public static func seal(_ report: PresenceReport, keys: CKPRKeys) throws(ProtectedReportError) -> [UInt8] {
        let iv: [UInt8]
        do { iv = try keys.crypto.randomBytes(count: ivLength) } catch { throw .crypto(error) }
        return try seal(report, keys: keys, iv: iv)
    }

    /// Seals `report` with the given IV (for known-answer tests; production uses `seal(_:keys:)`).
    public static func seal(_ report: PresenceReport, keys: CKPRKeys, iv: [UInt8]) throws(ProtectedReportError)
        -> [UInt8]
    {
        try report.validate()
        guard iv.count == ivLength else { throw .invalidLength }
        let crypto = keys.crypto
        let tag = try tag(day: report.day, keys: keys)
        var plaintext = report.plaintext
        defer { crypto.wipe(&plaintext) }
        do {
            let ciphertext = try crypto.aesCTR(key: keys.encryptionKey, iv: iv, data: plaintext)
            let mac = try crypto.hmacSHA256(key: keys.macKey, data: tag + iv + ciphertext)
            return tag + iv + ciphertext + mac
        } catch {
            throw .crypto(error)
        }
    }

    /// Opens a record for `day`: checks the tag, verifies the MAC in constant time, decrypts and validates.
    public static func open(_ record: [UInt8], day: UInt32, keys: CKPRKeys) throws(ProtectedReportError)
        -> PresenceReport
    {
        guard record.count == recordLength else { throw .invalidLength }
        let expectedTag = try tag(day: day, keys: keys)
        let crypto = keys.crypto
        guard crypto.constantTimeEquals(Array(record[0..<tagLength]), expectedTag) else { throw .tagMismatch }
        return try openAfterTagMatch(record, day: day, keys: keys)
    }

    /// Opens a record already found under this venue's tag for `day` (the matcher's path: the tag was the lookup key).
    public static func openAfterTagMatch(_ record: [UInt8], day: UInt32, keys: CKPRKeys) throws(ProtectedReportError)
        -> PresenceReport
    {
        guard record.count == recordLength else { throw .invalidLength }
        let crypto = keys.crypto
        let authenticated = Array(record[0..<(recordLength - macLength)])
        let mac = Array(record[(recordLength - macLength)...])
        let expectedMac: [UInt8]
        do { expectedMac = try crypto.hmacSHA256(key: keys.macKey, data: authenticated) } catch { throw .crypto(error) }
        guard crypto.constantTimeEquals(mac, expectedMac) else { throw .authenticationFailed }
        let iv = Array(record[tagLength..<(tagLength + ivLength)])
        let ciphertext = Array(record[(tagLength + ivLength)..<(tagLength + ivLength + plaintextLength)])
        var plaintext: [UInt8]
        do { plaintext = try crypto.aesCTR(key: keys.encryptionKey, iv: iv, data: ciphertext) } catch {
            throw .crypto(error)
        }
        defer { crypto.wipe(&plaintext) }
        let report = try PresenceReport(plaintext: plaintext)
        try report.validate(day: day)
        return report
    }
}

/// The three CKPR/1 keys of one venue. Wiped (through the crypto provider) when released.
public final class CKPRKeys {
    fileprivate(set) var encryptionKey: [UInt8]
    fileprivate(set) var macKey: [UInt8]
    fileprivate(set) var tagKey: [UInt8]
    let crypto: any CryptoProvider

    init(encryption: [UInt8], mac: [UInt8], tag: [UInt8], crypto: any CryptoProvider) {
        self.encryptionKey = encryption
        self.macKey = mac
        self.tagKey = tag
        self.crypto = crypto
    }

    /// The keys' bytes, for known-answer tests of the derivation.
    public var exportedForTesting: (encryption: [UInt8], mac: [UInt8], tag: [UInt8]) { (encryptionKey, macKey, tagKey) }

    deinit {
        crypto.wipe(&encryptionKey)
        crypto.wipe(&macKey)
        crypto.wipe(&tagKey)
    }
}
