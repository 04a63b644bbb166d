import KioskCore
import KioskOpenSSL
import KioskSimulation

/// The kiosk's side of MIFARE DESFire EV1 for the emulator's tests over native frames, sent through `transmit` (to an
/// `EmulatedDESFire`, or through a PN532): with an AES key `KioskCore`'s `DESFireAuthentication` and
/// `DESFireSecureChannel`; with a DES or 2K3DES key (a factory card's master key) the tests' own AuthenticateISO and
/// `TripleDESTestChannel`. Long commands go in 59-byte parts continued with AF; answers continued with AF are joined.
struct DESFireTestClient {
    /// Sends one native frame; nil when the card does not answer.
    var transmit: ([UInt8]) -> [UInt8]?
    let cipher = OpenSSLCrypto()
    var channel: (any TestSecureChannel)?

    struct Refused: Error, Equatable { var status: UInt8 }
    struct Gone: Error {}

    static let diaryAID: [UInt8] = [0x4B, 0x44, 0x31]
    /// An AES key of zeros (a new application's keys), and as 2K3DES a factory card's DES master key.
    static let zeroKey = [UInt8](repeating: 0, count: 16)
    static let appKeys: [[UInt8]] = (0..<3).map { key in (0..<16).map { UInt8(key * 16 + $0 + 1) } }

    /// Sends `frame` in parts of at most 59 bytes and follows AF answers; the final status and all the data.
    mutating func exchange(_ frame: [UInt8]) throws -> (status: UInt8, data: [UInt8]) {
        var rest = frame
        var answer: [UInt8] = []
        var first = true
        while first || !rest.isEmpty {
            let part = first ? Array(rest.prefix(59)) : [0xAF] + Array(rest.prefix(58))
            rest.removeFirst(min(rest.count, first ? 59 : 58))
            first = false
            guard let reply = transmit(part), !reply.isEmpty else { throw Gone() }
            answer = reply
            if !rest.isEmpty, reply != [0xAF] { break }
        }
        var data = Array(answer.dropFirst())
        while answer[0] == 0xAF {
            guard let next = transmit([0xAF]), !next.isEmpty else { throw Gone() }
            answer = next
            data += next.dropFirst()
        }
        return (answer[0], data)
    }

    /// A command in plain: through the session's CMAC chain when authenticated; the answer's CMAC checked.
    @discardableResult
    mutating func plain(_ command: [UInt8]) throws -> [UInt8] {
        if channel != nil { _ = try channel?.macCommand(command) }
        return try finish(try exchange(command))
    }

    private mutating func finish(_ answer: (status: UInt8, data: [UInt8])) throws -> [UInt8] {
        guard answer.status == 0 else {
            channel = nil
            throw Refused(status: answer.status)
        }
        guard var current = channel else { return answer.data }
        let data = try current.verifyResponse(answer.data, status: 0)
        channel = current
        return data
    }

    mutating func select(_ aid: [UInt8]) throws {
        channel = nil
        let answer = try exchange([0x5A] + aid)
        guard answer.status == 0 else { throw Refused(status: answer.status) }
    }

    mutating func authenticate(_ keyNumber: UInt8, key: [UInt8]) throws {
        channel = nil
        guard let first = transmit([0xAA, keyNumber]), !first.isEmpty else { throw Gone() }
        guard first[0] == 0xAF else { throw Refused(status: first[0]) }
        var authentication = try DESFireAuthentication(key: key, cipher: cipher)
        let token = try authentication.answer(
            encryptedRndB: Array(first.dropFirst()), rndA: try cipher.randomBytes(count: 16))
        guard let second = transmit([0xAF] + token), !second.isEmpty else { throw Gone() }
        guard second[0] == 0 else { throw Refused(status: second[0]) }
        channel = try authentication.finish(encryptedRndAPrime: Array(second.dropFirst()))
    }

    /// AuthenticateISO (1A) with a DES or 2K3DES `key` (16 bytes; DES as K ‖ K), from the EV1 data sheet: the card's
    /// E(K, RndB) (8 bytes, CBC from zeros) deciphered; E(K, RndA ‖ RndB′) sent in CBC from that block; the card's
    /// E(K, RndA′) deciphered from the last block sent and checked. The session key is RndA[0..3] ‖ RndB[0..3], twice
    /// for a DES key (halves equal), followed by RndA[4..7] ‖ RndB[4..7] for a 2K3DES one.
    mutating func authenticateISO(_ keyNumber: UInt8, key: [UInt8]) throws {
        channel = nil
        guard let first = transmit([0x1A, keyNumber]), !first.isEmpty else { throw Gone() }
        guard first[0] == 0xAF, first.count == 9 else { throw Refused(status: first[0]) }
        let encryptedRndB = Array(first.dropFirst())
        let rndB = try cipher.tdesCBCDecrypt(key: key, iv: [UInt8](repeating: 0, count: 8), blocks: encryptedRndB)
        let rndA = try cipher.randomBytes(count: 8)
        let token = try cipher.tdesCBCEncrypt(key: key, iv: encryptedRndB, blocks: rndA + Self.rotated(rndB))
        guard let second = transmit([0xAF] + token), !second.isEmpty else { throw Gone() }
        guard second[0] == 0, second.count == 9 else { throw Refused(status: second[0]) }
        let rndAPrime = try cipher.tdesCBCDecrypt(
            key: key, iv: Array(token.suffix(8)), blocks: Array(second.dropFirst()))
        guard rndAPrime == Self.rotated(rndA) else { throw Refused(status: 0xAE) }
        let first4 = Array(rndA[0..<4]) + Array(rndB[0..<4])
        let singleDES = key.prefix(8).elementsEqual(key.suffix(8))
        channel = TripleDESTestChannel(
            sessionKey: first4 + (singleDES ? first4 : Array(rndA[4..<8]) + Array(rndB[4..<8])))
    }

    static func rotated(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.dropFirst()) + bytes.prefix(1) }

    /// ChangeKey of the PICC master key, the session's own key, to a DES or 2K3DES key (key number 00): the
    /// cryptogram is an enciphered command's, newKey ‖ CRC32(C4 ‖ 00 ‖ newKey), with no version byte (a DES key's
    /// version is in its parity bits); the card answers 00 alone and ends the session.
    mutating func changePICCKeyToTripleDES(_ newKey: [UInt8]) throws {
        guard var current = channel else { throw Refused(status: 0xAE) }
        let frame = try current.encipherCommand(header: [0xC4, 0x00], data: newKey)
        channel = nil
        let answer = try exchange(frame)
        guard answer.status == 0, answer.data.isEmpty else { throw Refused(status: answer.status) }
    }

    /// An enciphered command: `header` in clear, `data` enciphered with its CRC32.
    @discardableResult
    mutating func enciphered(header: [UInt8], data: [UInt8]) throws -> [UInt8] {
        guard var current = channel else { throw Refused(status: 0xAE) }
        let frame = try current.encipherCommand(header: header, data: data)
        channel = current
        return try finish(try exchange(frame))
    }

    /// A read whose answer is enciphered, of `length` bytes.
    mutating func readEnciphered(_ command: [UInt8], length: Int) throws -> [UInt8] {
        guard var current = channel else { throw Refused(status: 0xAE) }
        _ = try current.macCommand(command)
        let answer = try exchange(command)
        guard answer.status == 0 else {
            channel = nil
            throw Refused(status: answer.status)
        }
        let data = try current.decipherResponse(answer.data, status: 0, length: length)
        channel = current
        return data
    }

    mutating func changeKey(_ number: UInt8, to newKey: [UInt8], version: UInt8, old: [UInt8]?) throws {
        guard var current = channel else { throw Refused(status: 0xAE) }
        let frame = try current.changeKey(keyNumber: number, newKey: newKey, version: version, oldKey: old)
        channel = current
        let answer = try exchange(frame)
        guard answer.status == 0 else { throw Refused(status: answer.status) }
        if old == nil {
            channel = nil
        } else {
            _ = try finish(answer)
        }
    }

    mutating func cardUID() throws -> [UInt8] { try readEnciphered([0x51], length: 7) }

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    /// Makes a fresh card a diary card as docs/diary-card.md lays it out: application 4B4431 with three AES keys
    /// (`appKeys`, version 1), the header (backup data file 1, 192 bytes) and the ring (cyclic record file 2 of
    /// `ringRecords` records of 112 bytes), both enciphered, read and written with key 1.
    mutating func provisionDiary(ringRecords: Int) throws {
        try select([0, 0, 0])
        try authenticateISO(0, key: Self.zeroKey)
        try plain([0xCA] + Self.diaryAID + [0x0F, 0x83])
        try select(Self.diaryAID)
        try authenticate(0, key: Self.zeroKey)
        for number: UInt8 in [1, 2] {
            try changeKey(number, to: Self.appKeys[Int(number)], version: 1, old: Self.zeroKey)
        }
        try changeKey(0, to: Self.appKeys[0], version: 1, old: nil)
        try authenticate(0, key: Self.appKeys[0])
        try plain([0xCB, 1, 0x03, 0x10, 0x11] + Self.le24(192))
        try plain([0xC0, 2, 0x03, 0x10, 0x11] + Self.le24(112) + Self.le24(ringRecords))
    }

    /// The diary's tap as one transaction, with key 1: the header written whole, a record appended, committed.
    mutating func writeDiary(header: [UInt8], record: [UInt8]?) throws {
        try select(Self.diaryAID)
        try authenticate(1, key: Self.appKeys[1])
        try enciphered(header: [0x3D, 1, 0, 0, 0] + Self.le24(header.count), data: header)
        if let record {
            try enciphered(header: [0x3B, 2, 0, 0, 0] + Self.le24(record.count), data: record)
        }
        try plain([0xC7])
    }

    /// The header and every record (oldest first), read with key 1.
    mutating func readDiary() throws -> (header: [UInt8], records: [[UInt8]]) {
        try select(Self.diaryAID)
        try authenticate(1, key: Self.appKeys[1])
        let header = try readEnciphered([0xBD, 1, 0, 0, 0, 0, 0, 0], length: 192)
        let settings = try plain([0xF5, 2])
        let count = Int(settings[10]) | Int(settings[11]) << 8 | Int(settings[12]) << 16
        guard count > 0 else { return (header, []) }
        let bytes = try readEnciphered([0xBB, 2, 0, 0, 0, 0, 0, 0], length: count * 112)
        return (header, stride(from: 0, to: bytes.count, by: 112).map { Array(bytes[$0..<$0 + 112]) })
    }
}

/// What the test client's session needs of a secure channel: `KioskCore`'s `DESFireSecureChannel` (an AES session)
/// and the tests' own `TripleDESTestChannel`.
protocol TestSecureChannel {
    mutating func macCommand(_ command: [UInt8]) throws -> [UInt8]
    mutating func verifyResponse(_ response: [UInt8], status: UInt8) throws -> [UInt8]
    mutating func encipherCommand(header: [UInt8], data: [UInt8]) throws -> [UInt8]
    mutating func decipherResponse(_ ciphertext: [UInt8], status: UInt8, length: Int) throws -> [UInt8]
    mutating func changeKey(keyNumber: UInt8, newKey: [UInt8], version: UInt8, oldKey: [UInt8]?) throws -> [UInt8]
}

extension DESFireSecureChannel: TestSecureChannel {}

/// The host's side of EV1 secure messaging in a 2K3DES session, written for the tests from the EV1 data sheet and
/// NIST SP 800-38B with OpenSSL's raw 2K3DES-CBC, none of `KioskCore`'s DESFire code: one 8-byte IV, zero after the
/// authentication, moved by every CMAC (the 64-bit CMAC: L = E(K, 0⁶⁴), Rb = 0x1B) and every ciphertext's last
/// block; enciphered data is data ‖ CRC32 (DESFire's: reflected, preset FFFFFFFF, not inverted) zero-padded to 8 bytes.
struct TripleDESTestChannel: TestSecureChannel {
    let crypto = OpenSSLCrypto()
    var sessionKey: [UInt8]
    var iv = [UInt8](repeating: 0, count: 8)

    struct Mismatch: Error {}

    /// The CMAC of `message` under `key`, its CBC from `iv` (zero for SP 800-38B's own).
    static func cmac(key: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 8), message: [UInt8]) throws
        -> [UInt8]
    {
        let crypto = OpenSSLCrypto()
        let zero = [UInt8](repeating: 0, count: 8)
        let k1 = times2(try crypto.tdesCBCEncrypt(key: key, iv: zero, blocks: zero))
        let k2 = times2(k1)
        var padded = message
        let whole = !message.isEmpty && message.count % 8 == 0
        if !whole { padded += [0x80] + [UInt8](repeating: 0, count: 7 - message.count % 8) }
        let subkey = whole ? k1 : k2
        for index in 0..<8 { padded[padded.count - 8 + index] ^= subkey[index] }
        return Array(try crypto.tdesCBCEncrypt(key: key, iv: iv, blocks: padded).suffix(8))
    }

    /// Doubling in GF(2⁶⁴): shift left by a bit, 0x1B folded into the last byte when the top bit falls out.
    static func times2(_ block: [UInt8]) -> [UInt8] {
        let value = block.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let doubled = value << 1 ^ (value >> 63 == 1 ? 0x1B : 0)
        return (0..<8).map { UInt8(truncatingIfNeeded: doubled >> (56 - 8 * $0)) }
    }

    /// DESFire's CRC32, least significant byte first.
    static func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> $0) }
    }

    mutating func macCommand(_ command: [UInt8]) throws -> [UInt8] {
        iv = try Self.cmac(key: sessionKey, iv: iv, message: command)
        return iv
    }

    mutating func verifyResponse(_ response: [UInt8], status: UInt8) throws -> [UInt8] {
        guard response.count >= 8 else { throw Mismatch() }
        let data = Array(response.dropLast(8))
        guard try macCommand(data + [status]) == Array(response.suffix(8)) else { throw Mismatch() }
        return data
    }

    private mutating func encipher(_ plain: [UInt8]) throws -> [UInt8] {
        let blocks = plain + [UInt8](repeating: 0, count: (8 - plain.count % 8) % 8)
        let out = try crypto.tdesCBCEncrypt(key: sessionKey, iv: iv, blocks: blocks)
        iv = Array(out.suffix(8))
        return out
    }

    mutating func encipherCommand(header: [UInt8], data: [UInt8]) throws -> [UInt8] {
        header + (try encipher(data + Self.crc32(header + data)))
    }

    mutating func decipherResponse(_ ciphertext: [UInt8], status: UInt8, length: Int) throws -> [UInt8] {
        let plain = try crypto.tdesCBCDecrypt(key: sessionKey, iv: iv, blocks: ciphertext)
        iv = Array(ciphertext.suffix(8))
        guard plain.count == (length + 4 + 7) / 8 * 8 else { throw Mismatch() }
        let data = Array(plain.prefix(length))
        guard Array(plain[length..<length + 4]) == Self.crc32(data + [status]),
            plain[(length + 4)...].allSatisfy({ $0 == 0 })
        else { throw Mismatch() }
        return data
    }

    /// ChangeKey's whole command to an AES key: C4 ‖ `keyNumber` ‖ the cryptogram of newKey (⊕ `oldKey` for another
    /// key than the session's) ‖ `version` ‖ CRC32 of the header and those bytes ‖ (for another key) CRC32(newKey).
    mutating func changeKey(keyNumber: UInt8, newKey: [UInt8], version: UInt8, oldKey: [UInt8]?) throws -> [UInt8] {
        let header: [UInt8] = [0xC4, keyNumber]
        let keyData = (oldKey.map { zip(newKey, $0).map { $0 ^ $1 } } ?? newKey) + [version]
        let crcs = Self.crc32(header + keyData) + (oldKey == nil ? [] : Self.crc32(newKey))
        return header + (try encipher(keyData + crcs))
    }
}
