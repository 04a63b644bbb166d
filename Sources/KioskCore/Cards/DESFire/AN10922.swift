/// NXP AN10922 ("Symmetric key diversifications") AES-128 key diversification: a card's own key from a master key
/// and what identifies the card, so that no two cards share a key and no card holds the master key.
///
/// The diversified key is the AES-CMAC, under the master key, of D = 01 ‖ M ‖ padding, where M (1 to 31 bytes) is the
/// diversification input (for DESFire, typically the card's UID ‖ the application's AID ‖ a system identifier).
/// D is always 32 bytes: when M is shorter than 31 bytes, D is padded with 80 00 … to 32 bytes and its last block is
/// XORed with the CMAC subkey K2; otherwise it is left as it is and its last block XORed with K1. (For a short M this
/// differs from RFC 4493's CMAC of 01 ‖ M, which would pad only to 16 bytes.)
public enum AN10922 {
    /// The diversification constant of AES-128 keys.
    public static let aes128Constant: UInt8 = 0x01
    /// The longest diversification input M that fits D's 32 bytes after the constant.
    public static let maximumInputLength = 31

    /// The diversification input M for a DESFire application: `uid` ‖ `aid` ‖ `systemIdentifier`.
    public static func input(uid: [UInt8], aid: [UInt8], systemIdentifier: [UInt8]) -> [UInt8] {
        uid + aid + systemIdentifier
    }

    /// The AES-128 key diversified from `masterKey` with the input M (1 to 31 bytes).
    public static func diversifyAES128(masterKey: [UInt8], input: [UInt8], cipher: any AES128Cipher)
        throws(DESFireError) -> [UInt8]
    {
        guard masterKey.count == AES128Size.key else { throw .invalidLength("AN10922 master key") }
        guard !input.isEmpty, input.count <= maximumInputLength else {
            throw .invalidLength("AN10922 diversification input (1 to 31 bytes)")
        }
        var (k1, k2) = try DESFireCMAC.subkeys(key: masterKey, cipher: cipher)
        defer {
            cipher.wipe(&k1)
            cipher.wipe(&k2)
        }
        var d = [aes128Constant] + input
        let padded = d.count < 2 * AES128Size.block
        if padded {
            d.append(0x80)
            d += [UInt8](repeating: 0, count: 2 * AES128Size.block - d.count)
        }
        let subkey = padded ? k2 : k1
        for index in 0..<AES128Size.block { d[AES128Size.block + index] ^= subkey[index] }
        defer { cipher.wipe(&d) }
        var chained = try desfireCrypto { () throws(CryptoError) in
            try cipher.aes128CBCEncrypt(key: masterKey, iv: [UInt8](repeating: 0, count: AES128Size.block), blocks: d)
        }
        defer { cipher.wipe(&chained) }
        return Array(chained.suffix(AES128Size.block))
    }
}
