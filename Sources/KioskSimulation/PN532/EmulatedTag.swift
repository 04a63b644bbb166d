public import KioskCore

/// How a tag answered one command.
public enum TagAnswer: Equatable, Sendable {
    /// Data bytes (without CRC).
    case data([UInt8])
    /// The 4-bit ACK (0xA).
    case ack
    /// A 4-bit NAK; the tag then returns to its idle state.
    case nak(UInt8)
    /// No answer at all (unknown state, HALT, torn write).
    case silent
}

/// An NTAG21x or MIFARE Ultralight EV1 with a 7-byte UID and its full memory, answering the commands a reader sends
/// after anticollision: GET_VERSION, READ, FAST_READ, WRITE, COMPATIBILITY_WRITE, PWD_AUTH, READ_CNT, HALT.
public struct EmulatedTag: Equatable, Sendable {
    public let model: NTAGModel
    public private(set) var memory: [UInt8]
    /// Whether PWD_AUTH succeeded since the tag was last selected.
    public private(set) var authenticated = false
    /// Successful WRITE and COMPATIBILITY_WRITE commands since the tag was created.
    public private(set) var writeCount = 0
    /// Failed PWD_AUTH attempts since the last successful one.
    public private(set) var failedAuthentications = 0
    var halted = false
    var active = false
    private var pendingCompatibilityWrite: Int?

    /// A factory-fresh tag: UID and check bytes in pages 0–2, capability container in page 3, zeroed user memory,
    /// AUTH0 = FF (no protection), PWD = FFFFFFFF, PACK = 0000.
    public init(model: NTAGModel, uid: [UInt8]) {
        precondition(uid.count == 7, "NTAG21x and Ultralight EV1 UIDs are 7 bytes")
        self.model = model
        var memory = [UInt8](repeating: 0, count: model.pageCount * 4)
        let bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        let bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        memory.replaceSubrange(0..<9, with: [uid[0], uid[1], uid[2], bcc0, uid[3], uid[4], uid[5], uid[6], bcc1])
        memory[9] = 0x48
        switch model {
        case .ntag213: memory.replaceSubrange(12..<16, with: [0xE1, 0x10, 0x12, 0x00])
        case .ntag215: memory.replaceSubrange(12..<16, with: [0xE1, 0x10, 0x3E, 0x00])
        case .ntag216: memory.replaceSubrange(12..<16, with: [0xE1, 0x10, 0x6D, 0x00])
        case .ultralightEV1MF0UL11, .ultralightEV1MF0UL21: break
        }
        let cfg = model.configPage * 4
        if model.isNTAG {
            memory.replaceSubrange(cfg..<cfg + 4, with: [0x04, 0x00, 0x00, 0xFF])
        } else {
            memory.replaceSubrange(cfg..<cfg + 4, with: [0x00, 0x00, 0x00, 0xFF])
            memory[cfg + 5] = 0x05
        }
        memory.replaceSubrange(cfg + 8..<cfg + 12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        self.memory = memory
    }

    /// The 7-byte UID.
    public var uid: [UInt8] { Array(memory[0..<3]) + Array(memory[4..<8]) }

    /// The 4 bytes of `page`, as stored (PWD and PACK included, unlike what READ returns).
    public func page(_ page: Int) -> [UInt8] { Array(memory[page * 4..<page * 4 + 4]) }

    /// Overwrites `page` directly, bypassing access rules (to prepare test cards).
    public mutating func setPage(_ page: Int, to bytes: [UInt8]) {
        precondition(bytes.count == 4 && page < model.pageCount)
        memory.replaceSubrange(page * 4..<page * 4 + 4, with: bytes)
    }

    public var auth0: Int { Int(memory[model.configPage * 4 + 3]) }
    var readProtected: Bool { memory[(model.configPage + 1) * 4] & 0x80 != 0 }
    var authLimit: Int { Int(memory[(model.configPage + 1) * 4] & 0x07) }
    private var pwdPage: Int { model.configPage + 2 }
    private var packPage: Int { model.configPage + 3 }

    /// Called when the reader selects the tag (anticollision done): the tag is ACTIVE, not authenticated.
    public mutating func select() {
        active = true
        halted = false
        authenticated = false
        pendingCompatibilityWrite = nil
    }

    /// Called when the RF field goes off: the tag loses power and all state.
    public mutating func powerOff() {
        active = false
        halted = false
        authenticated = false
        pendingCompatibilityWrite = nil
    }

    private mutating func nak(_ code: UInt8 = 0x0) -> TagAnswer {
        active = false
        pendingCompatibilityWrite = nil
        return .nak(code)
    }

    private func mayRead(_ page: Int) -> Bool { authenticated || !readProtected || page < auth0 }
    private func mayWrite(_ page: Int) -> Bool { authenticated || page < auth0 }

    /// What READ returns for `page`: PWD and PACK read as zeros, protected pages as zeros.
    private func readable(_ page: Int) -> [UInt8] {
        if page == pwdPage || page == packPage || !mayRead(page) { return [0, 0, 0, 0] }
        return self.page(page)
    }

    /// Whether `command` would change memory (WRITE, or the data part of COMPATIBILITY_WRITE).
    public func isWrite(_ command: [UInt8]) -> Bool {
        active && !halted && (pendingCompatibilityWrite != nil || command.first == 0xA2)
    }

    /// Handles one command frame (without CRC). With `tearWrite`, a write is interrupted by the card leaving the
    /// field: half of the page is written and the tag does not answer.
    public mutating func handle(_ command: [UInt8], tearWrite: Bool = false) -> TagAnswer {
        guard active, !halted, let code = command.first else { return .silent }
        if let page = pendingCompatibilityWrite {
            pendingCompatibilityWrite = nil
            guard command.count == 16 else { return nak() }
            return store(Array(command[0..<4]), at: page, tearWrite: tearWrite)
        }
        switch code {
        case 0x60:  // GET_VERSION
            guard command.count == 1 else { return nak() }
            return .data(model.version)
        case 0x30:  // READ: 4 pages, rolling over at the end of memory
            guard command.count == 2 else { return nak() }
            let start = Int(command[1])
            guard start < model.pageCount, mayRead(start) else { return nak() }
            var out: [UInt8] = []
            for offset in 0..<4 { out += readable((start + offset) % model.pageCount) }
            return .data(out)
        case 0x3A:  // FAST_READ start…end
            guard command.count == 3 else { return nak() }
            let start = Int(command[1])
            let end = Int(command[2])
            guard start <= end, end < model.pageCount else { return nak() }
            for page in start...end where !mayRead(page) { return nak() }
            var out: [UInt8] = []
            for page in start...end { out += readable(page) }
            return .data(out)
        case 0xA2:  // WRITE
            guard command.count == 6 else { return nak() }
            return store(Array(command[2..<6]), at: Int(command[1]), tearWrite: tearWrite)
        case 0xA0:  // COMPATIBILITY_WRITE, first part
            guard command.count == 2 else { return nak() }
            let page = Int(command[1])
            guard writablePage(page) else { return nak() }
            pendingCompatibilityWrite = page
            return .ack
        case 0x1B:  // PWD_AUTH
            guard command.count == 5 else { return nak() }
            if authLimit > 0, failedAuthentications >= 1 << authLimit { return nak(0x4) }
            if Array(command[1..<5]) == page(pwdPage) {
                authenticated = true
                failedAuthentications = 0
                return .data(Array(page(packPage)[0..<2]))
            }
            failedAuthentications += 1
            return nak()
        case 0x39:  // READ_CNT (NFC counter, always 0 here)
            guard model.isNTAG, command.count == 2, command[1] == 0x02 else { return nak() }
            return .data([0, 0, 0])
        case 0x50:  // HALT
            halted = true
            active = false
            return .silent
        default:
            return nak()
        }
    }

    private func writablePage(_ page: Int) -> Bool { page >= 2 && page < model.pageCount && mayWrite(page) }

    private mutating func store(_ bytes: [UInt8], at page: Int, tearWrite: Bool) -> TagAnswer {
        guard writablePage(page) else { return nak() }
        var new = bytes
        let old = self.page(page)
        if page == 2 {  // lock bytes: only bytes 2–3, and bits can only be set
            new = [old[0], old[1], old[2] | bytes[2], old[3] | bytes[3]]
        } else if page == 3 {  // OTP / capability container: bits can only be set
            new = zip(old, bytes).map { $0 | $1 }
        }
        if tearWrite {
            // The field went away during the EEPROM cycle: half of the page is new, half old, and the tag is gone.
            setPage(page, to: Array(new[0..<2]) + Array(old[2..<4]))
            active = false
            return .silent
        }
        setPage(page, to: new)
        writeCount += 1
        return .ack
    }
}

/// Something the emulator can place on its antenna.
public enum EmulatedCard: Equatable, Sendable {
    /// An NTAG21x or Ultralight EV1.
    case tag(EmulatedTag)
    /// A MIFARE Classic 1K (4-byte UID, SAK 08): listed, but answers no Ultralight command.
    case mifareClassic(uid: [UInt8])
    /// An ISO/IEC 14443-4 smart card such as a bank card (SAK 20, with ATS): answers every frame with an ISO 7816
    /// "instruction not supported" status.
    case isoDep(uid: [UInt8], ats: [UInt8])
    /// A MIFARE DESFire EV1 (`EmulatedDESFire`): ISO/IEC 14443-4, native and ISO-wrapped DESFire commands.
    case desfire(EmulatedDESFire)

    /// A factory-fresh NTAG or Ultralight EV1.
    public static func blank(_ model: NTAGModel, uid: [UInt8]) -> EmulatedCard {
        .tag(EmulatedTag(model: model, uid: uid))
    }

    /// A bank card as the emulator presents it.
    public static let bankCard = EmulatedCard.isoDep(uid: [0x08, 0x12, 0x34, 0x56], ats: [0x78, 0x80, 0x70, 0x02])

    public var uid: [UInt8] {
        switch self {
        case .tag(let tag): tag.uid
        case .mifareClassic(let uid), .isoDep(let uid, _): uid
        case .desfire(let card): card.anticollisionUID
        }
    }

    var atqa: [UInt8] {
        switch self {
        case .tag: [0x00, 0x44]
        case .mifareClassic, .isoDep: [0x00, 0x04]
        case .desfire(let card): card.atqa
        }
    }

    var sak: UInt8 {
        switch self {
        case .tag: 0x00
        case .mifareClassic: 0x08
        case .isoDep: 0x20
        case .desfire: EmulatedDESFire.sak
        }
    }

    var ats: [UInt8]? {
        switch self {
        case .isoDep(_, let ats): ats
        case .desfire: EmulatedDESFire.ats
        case .tag, .mifareClassic: nil
        }
    }
}
