/// MIFARE DESFire EV1 secure messaging after `DESFireAuthentication`: under an AES session key (AuthenticateAES), or
/// under a two-key triple DES one (AuthenticateISO with a factory-new card's DES master key), the same scheme over
/// the cipher's block (16 or 8 bytes; `blockSize`).
///
/// One IV (one block) runs through the whole session, starting at zero: every CMAC over a command or a response, and every
/// enciphered command or response, starts its CBC from it and leaves its last block (the full CMAC, or the last
/// ciphertext block) as the next IV. The kiosk must therefore pass every command and every response of the session
/// through the channel, in order, including those sent in plain:
///
/// - a command in plain or MAC'd communication: `macCommand(_:)` (command byte ‖ header ‖ data); MAC'd commands
///   append the first 8 bytes of that CMAC (`macdCommand(_:)`);
/// - a response in plain or MAC'd communication: `verifyResponse(_:status:)`, over data ‖ status, the card's 8 bytes
///   at the end of its data; frames continued with AF are joined first, without their AF status bytes;
/// - an enciphered command: `encipherCommand(header:data:)`: data ‖ CRC32(command byte ‖ header ‖ data), padded with
///   zeros to whole blocks, enciphered in CBC; `changeKey(...)` for ChangeKey's own cryptogram;
/// - an enciphered response: `decipherResponse(_:status:length:)`, its CRC32 over data ‖ status, its length known.
///
/// After any error, or a status other than 00 and AF, the card has dropped the authentication: the channel must not
/// be used again. `close()` wipes the session key and the IV.
public struct DESFireSecureChannel: Sendable {
    /// The length of the truncated CMAC the card and the kiosk append.
    public static let macLength = 8
    /// ChangeKey.
    public static let changeKeyCommand: UInt8 = 0xC4

    private var sessionKey: [UInt8]
    /// The session's current IV (one block): zero after authentication.
    public private(set) var iv: [UInt8]
    private let cipher: any DESFireBlockCipher

    /// A channel under the AES `sessionKey` with its IV zero, as after AuthenticateAES.
    public init(sessionKey: [UInt8], cipher: any AES128Cipher) throws(DESFireError) {
        try self.init(sessionKey: sessionKey, blocks: DESFireAESBlocks(cipher))
    }

    /// A channel under `sessionKey` (16 bytes) and `blocks`' cipher with its IV zero, as after authentication.
    public init(sessionKey: [UInt8], blocks: any DESFireBlockCipher) throws(DESFireError) {
        guard sessionKey.count == AES128Size.key else { throw .invalidLength("session key") }
        self.sessionKey = sessionKey
        self.iv = [UInt8](repeating: 0, count: blocks.blockSize)
        self.cipher = blocks
    }

    /// The session cipher's block: 16 bytes (AES) or 8 (triple DES).
    public var blockSize: Int { cipher.blockSize }

    /// The CMAC (one block) of a command the kiosk sends, from the current IV, which it becomes.
    public mutating func macCommand(_ command: [UInt8]) throws(DESFireError) -> [UInt8] {
        try chainMAC(command)
    }

    /// A command in MAC'd communication: `command` followed by the first 8 bytes of its CMAC.
    public mutating func macdCommand(_ command: [UInt8]) throws(DESFireError) -> [UInt8] {
        command + Array(try chainMAC(command).prefix(Self.macLength))
    }

    /// Verifies a response in plain or MAC'd communication: `response` is the card's data followed by its 8-byte
    /// CMAC, `status` its status byte (00 for the last frame). The CMAC is over data ‖ status. Returns the data.
    public mutating func verifyResponse(_ response: [UInt8], status: UInt8) throws(DESFireError) -> [UInt8] {
        guard response.count >= Self.macLength else { throw .invalidLength("response CMAC") }
        let data = Array(response.dropLast(Self.macLength))
        let expected = Array(try chainMAC(data + [status]).prefix(Self.macLength))
        guard DESFireBytes.equalInConstantTime(expected, Array(response.suffix(Self.macLength))) else {
            throw .macMismatch
        }
        return data
    }

    /// An enciphered command: `header` (command byte and what is sent in plain) followed by the cipher of
    /// `data` ‖ CRC32(header ‖ data), padded with zeros to whole blocks.
    public mutating func encipherCommand(header: [UInt8], data: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard !header.isEmpty else { throw .invalidLength("command header") }
        var plain = data + DESFireCRC32.bytes(header + data)
        defer { cipher.wipe(&plain) }
        return header + (try encipher(plain))
    }

    /// ChangeKey (C4) to an AES key, the whole command: C4 ‖ `keyNumber` ‖ cryptogram, enciphered with the session's
    /// cipher (in a triple DES session: a factory DES master key changed to AES, `keyNumber` 0x80). `keyNumber` is sent as it
    /// is (on the PICC level its high bits name the key type).
    ///
    /// Changing the key the session was authenticated with (`oldKey` nil): the cryptogram enciphers
    /// newKey ‖ version ‖ CRC32(C4 ‖ keyNumber ‖ newKey ‖ version); the card then ends the session.
    /// Changing another key (`oldKey` its current value): (newKey ⊕ oldKey) ‖ version ‖ CRC32(C4 ‖ keyNumber ‖
    /// (newKey ⊕ oldKey) ‖ version) ‖ CRC32(newKey).
    public mutating func changeKey(keyNumber: UInt8, newKey: [UInt8], version: UInt8, oldKey: [UInt8]?)
        throws(DESFireError) -> [UInt8]
    {
        guard newKey.count == AES128Size.key else { throw .invalidLength("new key") }
        let header = [Self.changeKeyCommand, keyNumber]
        var keyData: [UInt8]
        if let oldKey {
            guard oldKey.count == AES128Size.key else { throw .invalidLength("old key") }
            keyData = DESFireBytes.xor(newKey, oldKey) + [version]
        } else {
            keyData = newKey + [version]
        }
        var plain = keyData + DESFireCRC32.bytes(header + keyData)
        if oldKey != nil { plain += DESFireCRC32.bytes(newKey) }
        defer {
            cipher.wipe(&keyData)
            cipher.wipe(&plain)
        }
        return header + (try encipher(plain))
    }

    /// Deciphers an enciphered response (`ciphertext`, whole blocks, without the status byte) of `length` data bytes
    /// and checks its CRC32 over data ‖ `status`, and that only zeros follow it. Returns the data.
    ///
    /// The length is not optional: the CRC's place cannot be found from the end. Whenever the data's CRC begins
    /// with 00 (one response in 256), data ‖ 00 carries a valid CRC too — the CRC register after a zero byte is the
    /// same register shifted by a byte — and both readings are the same bytes. Every command the kiosk sends knows
    /// its answer's length (ReadData asks for it, GetValue is 4 bytes, a file's size is in its settings).
    public mutating func decipherResponse(_ ciphertext: [UInt8], status: UInt8, length: Int) throws(DESFireError)
        -> [UInt8]
    {
        guard !ciphertext.isEmpty, ciphertext.count % cipher.blockSize == 0 else {
            throw .invalidLength("enciphered response")
        }
        var plain = try desfireCrypto { () throws(CryptoError) in
            try cipher.decryptCBC(key: sessionKey, iv: iv, blocks: ciphertext)
        }
        defer { cipher.wipe(&plain) }
        self.iv = Array(ciphertext.suffix(cipher.blockSize))
        guard length >= 0, length + 4 <= plain.count, plain.count - (length + 4) < cipher.blockSize else {
            throw .integrityError
        }
        guard Self.crcFits(plain, dataLength: length, status: status) else { throw .integrityError }
        return Array(plain[0..<length])
    }

    /// Wipes the session key and the IV; the channel is unusable afterwards.
    public mutating func close() {
        cipher.wipe(&sessionKey)
        cipher.wipe(&iv)
    }

    private static func crcFits(_ plain: [UInt8], dataLength: Int, status: UInt8) -> Bool {
        let crcEnd = dataLength + 4
        let padding = plain[crcEnd...]
        guard padding.allSatisfy({ $0 == 0 }) else { return false }
        let expected = DESFireCRC32.bytes(plain[0..<dataLength] + [status])
        return DESFireBytes.equalInConstantTime(expected, Array(plain[dataLength..<crcEnd]))
    }

    private mutating func chainMAC(_ message: [UInt8]) throws(DESFireError) -> [UInt8] {
        let mac = try DESFireCMAC.mac(key: sessionKey, iv: iv, message: message, blocks: cipher)
        iv = mac
        return mac
    }

    /// `plain` padded with zeros to whole blocks, enciphered in CBC from the IV; the last block becomes the IV.
    private mutating func encipher(_ plain: [UInt8]) throws(DESFireError) -> [UInt8] {
        let size = cipher.blockSize
        var blocks = plain + [UInt8](repeating: 0, count: (size - plain.count % size) % size)
        defer { cipher.wipe(&blocks) }
        let enciphered = try desfireCrypto { () throws(CryptoError) in
            try cipher.encryptCBC(key: sessionKey, iv: iv, blocks: blocks)
        }
        self.iv = Array(enciphered.suffix(size))
        return enciphered
    }
}
