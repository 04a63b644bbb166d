/// AES-CMAC (NIST SP 800-38B) as MIFARE DESFire EV1 chains it: the CBC-MAC starts from the session's current IV
/// instead of zeros, and the full 16-byte result becomes the next IV. With a zero IV it is RFC 4493's AES-CMAC.
///
/// Built on the port's ECB (the subkeys) and CBC, so that it can start from any IV.
public enum DESFireCMAC {
    /// The CMAC subkeys K1 and K2 of `key` (SP 800-38B 6.1): L = AES(key, 0), K1 = L·x, K2 = K1·x in GF(2^128).
    public static func subkeys(key: [UInt8], cipher: any AES128Cipher) throws(DESFireError) -> (
        k1: [UInt8], k2: [UInt8]
    ) {
        guard key.count == AES128Size.key else { throw .invalidLength("CMAC key") }
        var l = try desfireCrypto { () throws(CryptoError) in
            try cipher.aes128ECBEncrypt(key: key, blocks: [UInt8](repeating: 0, count: AES128Size.block))
        }
        defer { cipher.wipe(&l) }
        let k1 = doubled(l)
        return (k1, doubled(k1))
    }

    /// The CMAC of `message` under `key`, its CBC started from `iv`: the full 16 bytes (the next IV).
    public static func mac(key: [UInt8], iv: [UInt8], message: [UInt8], cipher: any AES128Cipher)
        throws(DESFireError) -> [UInt8]
    {
        guard iv.count == AES128Size.block else { throw .invalidLength("CMAC IV") }
        var (k1, k2) = try subkeys(key: key, cipher: cipher)
        defer {
            cipher.wipe(&k1)
            cipher.wipe(&k2)
        }
        let complete = !message.isEmpty && message.count % AES128Size.block == 0
        var blocks = message
        if !complete {
            blocks.append(0x80)
            blocks += [UInt8](repeating: 0, count: (AES128Size.block - blocks.count % AES128Size.block) % 16)
        }
        let subkey = complete ? k1 : k2
        let last = blocks.count - AES128Size.block
        for index in 0..<AES128Size.block { blocks[last + index] ^= subkey[index] }
        let chained = try desfireCrypto { () throws(CryptoError) in
            try cipher.aes128CBCEncrypt(key: key, iv: iv, blocks: blocks)
        }
        cipher.wipe(&blocks)
        return Array(chained.suffix(AES128Size.block))
    }

    /// Multiplication by x in GF(2^128): a left shift by one bit, and R = 0x87 folded in when the top bit fell out.
    static func doubled(_ block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: block.count)
        var carry: UInt8 = 0
        for index in stride(from: block.count - 1, through: 0, by: -1) {
            out[index] = block[index] << 1 | carry
            carry = block[index] >> 7
        }
        if carry == 1 { out[block.count - 1] ^= 0x87 }
        return out
    }
}
