import KioskCore
import KioskOpenSSL
import KioskSimulation

/// The kiosk's side of MIFARE DESFire EV1 for the emulator's tests: `KioskCore`'s `DESFireAESAuthentication` and
/// `DESFireSecureChannel` over native frames, sent through `transmit` (to an `EmulatedDESFire`, or through a PN532).
/// Long commands go in 59-byte parts continued with AF; answers continued with AF are joined.
struct DESFireTestClient {
    /// Sends one native frame; nil when the card does not answer.
    var transmit: ([UInt8]) -> [UInt8]?
    let cipher = OpenSSLCrypto()
    var channel: DESFireSecureChannel?

    struct Refused: Error, Equatable { var status: UInt8 }
    struct Gone: Error {}

    static let diaryAID: [UInt8] = [0x4B, 0x44, 0x31]
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
        var authentication = try DESFireAESAuthentication(key: key, cipher: cipher)
        let token = try authentication.answer(
            encryptedRndB: Array(first.dropFirst()), rndA: try cipher.randomBytes(count: 16))
        guard let second = transmit([0xAF] + token), !second.isEmpty else { throw Gone() }
        guard second[0] == 0 else { throw Refused(status: second[0]) }
        channel = try authentication.finish(encryptedRndAPrime: Array(second.dropFirst()))
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
        try authenticate(0, key: Self.zeroKey)
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
