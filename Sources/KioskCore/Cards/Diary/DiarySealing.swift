/// Seals a stay into one record of a diary card, and opens it again (docs/diary-card.md).
///
/// Record (112 bytes): day (u16, UTC days since 1970) ‖ record number (u32) ‖ nonce (12) ‖ AES-256-GCM of the
/// stay's 78 bytes ‖ tag (16). The key is HKDF-SHA256 of the region's stay key material for that day and card
/// (`RegionKeys.stayKeyMaterial`: CMAC(K(day), 05 ‖ UID)) with the record's **share** as salt (8 random bytes kept
/// in the card's header for a record of the ring, `DiaryHeader.shares`; none for the open stay, which lives in the
/// header itself); the additional data is "KDIARY1" ‖ day ‖ number, so a record moved to another day or number, or
/// to another card, fails to open. Once the region's kiosks have destroyed the day's key (14 days after it), or the
/// header has forgotten its share (the holder deleted it), the record opens nowhere.
public enum DiarySealing {
    static let aadPrefix = Array("KDIARY1".utf8)
    static let keyInfo = Array("kiosk diary stay".utf8)
    static let nonceSize = 12
    static let headerSize = 6

    /// The record's day and number, read without any key (they are in clear); nil when `record` is no record.
    public static func label(of record: [UInt8]) -> (day: DiaryDay, number: UInt32)? {
        guard record.count == DiaryLayout.recordSize, record.contains(where: { $0 != 0 }) else { return nil }
        var reader = ByteReader(Array(record.prefix(headerSize)))
        guard let day = reader.readInteger(UInt16.self), let number = reader.readInteger(UInt32.self) else {
            return nil
        }
        return (DiaryDay(day), number)
    }

    /// The 112-byte record of `stay`, sealed for the card with the real `uid` under its start's day.
    public static func seal(
        _ stay: Stay, number: UInt32, share: [UInt8], uid: [UInt8], keys: any RegionKeys, today: DiaryDay,
        crypto: some CryptoProvider
    ) throws(DiaryError) -> [UInt8] {
        let day = DiaryCalendar.day(of: stay.start)
        guard day >= 0, day <= DiaryDay(UInt16.max) else { throw .unrecordable }
        guard var plaintext = DiaryStayCoding.encode(stay) else { throw .unrecordable }
        defer { crypto.wipe(&plaintext) }
        var key = try stayKey(day: day, share: share, uid: uid, keys: keys, today: today, crypto: crypto)
        defer { crypto.wipe(&key) }
        var label: [UInt8] = []
        label.appendBigEndian(UInt16(day))
        label.appendBigEndian(number)
        do {
            let nonce = try crypto.randomBytes(count: nonceSize)
            let sealed = try crypto.aes256GCMSeal(
                key: key, nonce: nonce, plaintext: plaintext, additionalData: aadPrefix + label)
            return label + nonce + sealed
        } catch {
            throw .crypto
        }
    }

    /// The stay in `record`, or nil when it is empty, torn, altered, of another card, or of a day whose key is gone.
    public static func open(
        _ record: [UInt8], share: [UInt8], uid: [UInt8], keys: any RegionKeys, today: DiaryDay,
        crypto: some CryptoProvider
    ) -> Stay? {
        guard let (day, number) = label(of: record) else { return nil }
        guard
            var key = try? stayKey(day: day, share: share, uid: uid, keys: keys, today: today, crypto: crypto)
        else { return nil }
        defer { crypto.wipe(&key) }
        let body = Array(record.dropFirst(headerSize))
        guard
            var plaintext = try? crypto.aes256GCMOpen(
                key: key, nonce: Array(body.prefix(nonceSize)), sealed: Array(body.dropFirst(nonceSize)),
                additionalData: aadPrefix + Array(record.prefix(headerSize)))
        else { return nil }
        defer { crypto.wipe(&plaintext) }
        guard let stay = DiaryStayCoding.decode(plaintext, id: DiaryStayID.make(number)),
            DiaryCalendar.day(of: stay.start) == day
        else { return nil }
        return stay
    }

    private static func stayKey(
        day: DiaryDay, share: [UInt8], uid: [UInt8], keys: any RegionKeys, today: DiaryDay,
        crypto: some CryptoProvider
    ) throws(DiaryError) -> [UInt8] {
        var material: [UInt8]
        do { material = try keys.stayKeyMaterial(day: day, uid: uid, today: today) } catch {
            throw .regionKeys(error)
        }
        defer { crypto.wipe(&material) }
        do {
            return try crypto.hkdfSHA256(inputKeyMaterial: material, salt: share, info: keyInfo, length: 32)
        } catch {
            throw .crypto
        }
    }
}

/// The name of a stay kept on a diary card: its record number, so that the same stay has the same name at every
/// kiosk ("KDIA" ‖ eight zero bytes ‖ the number).
/// A ring record's share: 8 random bytes, never all zero (zeros mark a deleted or empty slot).
public enum DiaryShare {
    public static func random(using crypto: some CryptoProvider) throws(DiaryError) -> [UInt8] {
        var share: [UInt8]
        do { share = try crypto.randomBytes(count: DiaryHeader.shareBytes) } catch { throw .crypto }
        if isDeleted(share) { share[0] = 1 }
        return share
    }

    /// Whether `share` marks a deleted or empty slot.
    public static func isDeleted(_ share: [UInt8]) -> Bool { share.allSatisfy { $0 == 0 } }

    /// The share of a deleted or empty slot.
    public static let deleted = [UInt8](repeating: 0, count: DiaryHeader.shareBytes)
}

public enum DiaryStayID {
    public static func make(_ number: UInt32) -> StayID {
        var bytes = Array("KDIA".utf8) + [UInt8](repeating: 0, count: 8)
        bytes.appendBigEndian(number)
        return StayID(bytes: bytes)!
    }

    /// The record number a diary stay's id names, or nil for an id that is not one.
    public static func number(of id: StayID) -> UInt32? {
        guard id.bytes.prefix(12) == ArraySlice(Array("KDIA".utf8) + [UInt8](repeating: 0, count: 8)) else {
            return nil
        }
        return id.bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
