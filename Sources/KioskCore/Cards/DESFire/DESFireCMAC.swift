/// CMAC (NIST SP 800-38B) as MIFARE DESFire EV1 chains it: the CBC-MAC starts from the session's current IV instead
/// of zeros, and the full result (a block) becomes the next IV. With a zero IV and AES it is RFC 4493's AES-CMAC; with
/// triple DES (a session opened with a DES or 2K3DES key) it is the 64-bit CMAC, its constant Rb = 0x1B.
///
/// Built on the port's CBC alone (the subkeys too: L = E(K, 0) is one CBC block from a zero IV), so that it can start
/// from any IV.
public enum DESFireCMAC {
    /// The AES-CMAC subkeys K1 and K2 of `key` (SP 800-38B 6.1): L = AES(key, 0), K1 = L·x, K2 = K1·x in GF(2^128).
    public static func subkeys(key: [UInt8], cipher: any AES128Cipher) throws(DESFireError) -> (
        k1: [UInt8], k2: [UInt8]
    ) {
        try subkeys(key: key, blocks: DESFireAESBlocks(cipher))
    }

    /// The CMAC subkeys of `key` under `blocks`' cipher, in GF(2^128) or GF(2^64) by its block size.
    public static func subkeys(key: [UInt8], blocks: any DESFireBlockCipher) throws(DESFireError) -> (
        k1: [UInt8], k2: [UInt8]
    ) {
        guard key.count == AES128Size.key else { throw .invalidLength("CMAC key") }
        let zero = [UInt8](repeating: 0, count: blocks.blockSize)
        var l = try desfireCrypto { () throws(CryptoError) in
            try blocks.encryptCBC(key: key, iv: zero, blocks: zero)
        }
        defer { blocks.wipe(&l) }
        let k1 = doubled(l)
        return (k1, doubled(k1))
    }

    /// The AES-CMAC of `message` under `key`, its CBC started from `iv`: the full 16 bytes (the next IV).
    public static func mac(key: [UInt8], iv: [UInt8], message: [UInt8], cipher: any AES128Cipher)
        throws(DESFireError) -> [UInt8]
    {
        try mac(key: key, iv: iv, message: message, blocks: DESFireAESBlocks(cipher))
    }

    /// The CMAC of `message` under `key` and `blocks`' cipher, its CBC started from `iv`: a whole block (the next IV).
    public static func mac(key: [UInt8], iv: [UInt8], message: [UInt8], blocks cipher: any DESFireBlockCipher)
        throws(DESFireError) -> [UInt8]
    {
        let size = cipher.blockSize
        guard iv.count == size else { throw .invalidLength("CMAC IV") }
        var (k1, k2) = try subkeys(key: key, blocks: cipher)
        defer {
            cipher.wipe(&k1)
            cipher.wipe(&k2)
        }
        let complete = !message.isEmpty && message.count % size == 0
        var blocks = message
        if !complete {
            blocks.append(0x80)
            blocks += [UInt8](repeating: 0, count: (size - blocks.count % size) % size)
        }
        let subkey = complete ? k1 : k2
        let last = blocks.count - size
        for index in 0..<size { blocks[last + index] ^= subkey[index] }
        let chained = try desfireCrypto { () throws(CryptoError) in
            try cipher.encryptCBC(key: key, iv: iv, blocks: blocks)
        }
        cipher.wipe(&blocks)
        return Array(chained.suffix(size))
    }

    /// Multiplication by x in GF(2^128) or GF(2^64): a left shift by one bit, and R (0x87 for a 16-byte block, 0x1B
    /// for an 8-byte one) folded in when the top bit fell out.
    static func doubled(_ block: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: block.count)
        var carry: UInt8 = 0
        for index in stride(from: block.count - 1, through: 0, by: -1) {
            out[index] = block[index] << 1 | carry
            carry = block[index] >> 7
        }
        if carry == 1 { out[block.count - 1] ^= block.count == AES128Size.block ? 0x87 : 0x1B }
        return out
    }
}
