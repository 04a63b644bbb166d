/// Seals a stay for the store and opens it again: AES-256-GCM under the card's record key, with a fresh random
/// 96-bit nonce per sealing, and associated data `"KSTAY1" · handle · stay id`, so a row moved to another card's
/// handle or another id fails to open.
///
/// Sealed form: nonce (12 bytes) · ciphertext · tag (16 bytes).
enum StaySealing {
    static let aadPrefix = Array("KSTAY1".utf8)

    static func seal(_ stay: Stay, keys: CardKeys, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        let nonce = try crypto.randomBytes(count: 12)
        var plaintext = StayCoding.encode(stay)
        defer { crypto.wipe(&plaintext) }
        let sealed = try crypto.aes256GCMSeal(
            key: keys.recordKey, nonce: nonce, plaintext: plaintext,
            additionalData: aad(handle: keys.handle, id: stay.id))
        return nonce + sealed
    }

    /// The stay, or nil if the row does not authenticate under these keys or does not parse.
    static func open(_ sealed: [UInt8], id: StayID, keys: CardKeys, crypto: some CryptoProvider) -> Stay? {
        guard sealed.count >= 12 + 16 else { return nil }
        guard
            var plaintext = try? crypto.aes256GCMOpen(
                key: keys.recordKey, nonce: Array(sealed.prefix(12)),
                sealed: Array(sealed.dropFirst(12)),
                additionalData: aad(handle: keys.handle, id: id))
        else { return nil }
        defer { crypto.wipe(&plaintext) }
        return StayCoding.decode(plaintext, id: id)
    }

    static func aad(handle: [UInt8], id: StayID) -> [UInt8] { aadPrefix + handle + id.bytes }
}
