public import KioskCore

/// A MIFARE DESFire EV1 card (MF3ICD41/MF3ICD81) as NXP's MF3ICD81 datasheet and libfreefare expect it: an ISO/IEC
/// 14443-4 target (ATQA 0344, SAK 20, ATS 06 75 77 81 02 80, a 7-byte UID, or a random 4-byte UID starting with 08 per
/// power-up once random UID is on) answering native frames (command ‖ data → status ‖ data) and the same commands
/// wrapped in ISO/IEC 7816-4 APDUs (90 INS 00 00 Lc data 00 → data ‖ 91 status).
///
/// Keys: the PICC master key leaves the factory as on a real card, DES with 16 zero bytes (K1 = K2), version 0, key
/// settings 0F (`DESFireCardImage`); ChangeKey makes it a 2K3DES or an AES key. Applications have AES keys only. A DES
/// or 2K3DES key opens with AuthenticateISO (1A), an AES key with AuthenticateAES (AA); the other command answers
/// AUTHENTICATION_ERROR. The legacy Authenticate (0A) and 3K3DES keys, which a real card also has, are not emulated
/// (0A answers ILLEGAL_COMMAND_CODE).
///
/// The PN532 does the ISO-DEP block framing: `receive` gets whole frames. Answers longer than 59 bytes are split, each
/// part but the last with status AF, the host asking for the next with AF; a long WriteData or WriteRecord may be
/// sent in parts the same way, the card answering AF until its announced length has arrived.
///
/// Secure messaging is EV1's, the card's side of `KioskCore`'s `DESFireSecureChannel`, the same after either
/// authentication over its cipher's block (`DESFireCardChannel`: AES, or 2K3DES after AuthenticateISO): one IV runs
/// through the session; every plain command's CMAC and every response's CMAC (data ‖ status, its first 8 bytes
/// appended) moves it, and so does every ciphertext (its last block). Errors end the authentication.
///
/// Transactions: writes to backup data and record files are staged and take effect at CommitTransaction, at once;
/// AbortTransaction, selecting an application, a new authentication, a deselection or losing power discard them.
/// Standard data files are written at once.
///
/// The persistent part is `image` (`DESFireCardImage`); with a `DESFireCardMemory`, the image is loaded from its
/// file at every power-up and saved to it after every change.
public struct EmulatedDESFire: Sendable {
    public internal(set) var image: DESFireCardImage
    /// The file this card lives in, if it is shared with other processes.
    public let memory: DESFireCardMemory?
    /// The card's ciphers: AES-128, and two-key triple DES when the crypto it was given has it.
    let aes: DESFireAESBlocks
    let tripleDES: DESFireTripleDESBlocks
    /// The UID sent in anticollision for the current activation.
    public internal(set) var anticollisionUID: [UInt8]
    /// What the last frame cost the card (its time model, `DESFireTiming`).
    public internal(set) var lastCost = DESFireTiming.Cost()
    var powered = false
    /// Whether the card is in a field (powered up); a tear or a removal takes it out.
    public var isPowered: Bool { powered }
    var halted = false
    var session = Session()

    /// A card with `image`, its AES and triple DES done by `cipher` (OpenSSL's `OpenSSLCrypto` in the simulation).
    public init(image: DESFireCardImage, cipher: any AES128Cipher & TripleDESCipher) {
        self.init(image: image, memory: nil, aes: cipher, tripleDES: cipher)
    }

    /// A factory-fresh card.
    public init(uid: [UInt8], capacity: DESFireCapacity = .ev1_4K, cipher: any AES128Cipher & TripleDESCipher) {
        self.init(image: DESFireCardImage(uid: uid, capacity: capacity), cipher: cipher)
    }

    /// The card kept in `memory`'s file (created there from `initial` when the file does not exist yet).
    public init(memory: DESFireCardMemory, initial: DESFireCardImage, cipher: any AES128Cipher & TripleDESCipher)
        throws(DESFireCardMemory.Failure)
    {
        self.init(image: try memory.loadOrCreate(initial), memory: memory, aes: cipher, tripleDES: cipher)
    }

    private init(
        image: DESFireCardImage, memory: DESFireCardMemory?, aes: any AES128Cipher, tripleDES: any TripleDESCipher
    ) {
        self.image = image
        self.memory = memory
        self.aes = DESFireAESBlocks(aes)
        self.tripleDES = DESFireTripleDESBlocks(tripleDES)
        self.anticollisionUID = image.uid
    }

    /// The cipher of keys of `type`.
    func blocks(_ type: DESFireKeySlot.KeyType) -> any DESFireBlockCipher {
        switch type {
        case .aes: aes
        case .tripleDES: tripleDES
        }
    }

    /// ATQA as the PN532 reports it: 03 44 (double-size UID), 03 04 with a random single-size UID.
    public var atqa: [UInt8] { image.randomUID ? [0x03, 0x04] : [0x03, 0x44] }
    public static let sak: UInt8 = 0x20
    /// The ATS after its length byte TL (06): FSCI 5 (64 bytes), DR/DS 2, 4, 8, FWI 8, SFGI 1, CID supported.
    public static let ats: [UInt8] = [0x75, 0x77, 0x81, 0x02, 0x80]

    // MARK: Power and activation

    /// The field reaches the card: it loads its memory and, with random UID on, draws this power-up's UID.
    public mutating func powerOn() {
        guard !powered else { return }
        powered = true
        halted = false
        if let memory, let stored = try? memory.load() { image = stored }
        anticollisionUID = image.randomUID ? [0x08] + Self.randomBytes(3) : image.uid
        session = Session()
    }

    /// The card leaves the field (or the field goes off): everything volatile is lost.
    public mutating func powerOff() {
        powered = false
        halted = false
        session = Session()
    }

    /// Anticollision and RATS done: a new ISO-DEP session with the PICC level selected.
    public mutating func activate() {
        powerOn()
        halted = false
        session = Session()
    }

    /// S(DESELECT) or HLTA: the session ends, uncommitted writes are discarded.
    public mutating func deselect() {
        halted = true
        session = Session()
    }

    // MARK: Frames

    /// One frame from the host; the answer, or nil when the card does not answer (it is not active). With
    /// `tearing`, the card leaves the field while working on this frame: before it acts, or, for a command that
    /// programs the EEPROM, in the middle of it (a standard data file's write is then half done, a commit not at all).
    public mutating func receive(_ frame: [UInt8], tearing: Bool = false) -> [UInt8]? {
        guard powered, !halted, !frame.isEmpty else { return nil }
        lastCost = DESFireTiming.Cost()
        if tearing {
            var probe = self  // what the command would do; only a standard data file's write reaches memory
            _ = probe.process(frame)
            if let write = probe.session.lastDirectWrite {
                // Half of the bytes reach the EEPROM before the field is gone.
                let half = Array(write.bytes.prefix(write.bytes.count / 2))
                if !half.isEmpty { applyDirectWrite(write, bytes: half) }
                lastCost.eepromBlocks = probe.lastCost.eepromBlocks / 2
            }
            lastCost.processing = probe.lastCost.processing
            powerOff()
            return nil
        }
        let before = image
        let answer = process(frame)
        if image != before { persist() }
        return answer
    }

    private mutating func applyDirectWrite(_ write: Session.DirectWrite, bytes: [UInt8]) {
        guard let app = image.applicationIndex(write.aid),
            let file = image.applications[app].files.firstIndex(where: { $0.number == write.file })
        else { return }
        image.applications[app].files[file].data.replaceSubrange(
            write.offset..<write.offset + bytes.count, with: bytes)
        persist()
    }

    func persist() {
        try? memory?.save(image)
    }

    /// Parses a native or ISO-wrapped frame, continues chains, runs the command and builds the answer.
    mutating func process(_ frame: [UInt8]) -> [UInt8] {
        session.lastDirectWrite = nil
        let wrapped: Bool
        let code: UInt8
        let data: [UInt8]
        if frame[0] == 0x90, frame.count >= 5, frame[2] == 0, frame[3] == 0 {
            wrapped = true
            code = frame[1]
            if frame.count == 5 {
                data = []
            } else {
                let length = Int(frame[4])
                guard frame.count == 5 + length || frame.count == 6 + length else { return [0x67, 0x00] }
                data = Array(frame[5..<5 + length])
            }
        } else if frame[0] == 0x00 || frame[0] == 0x90 {
            return [0x6E, 0x00]  // an ISO/IEC 7816-4 command class the card does not serve
        } else {
            wrapped = false
            code = frame[0]
            data = Array(frame.dropFirst())
        }
        lastCost.processing = DESFireTiming.processing(
            authenticated: session.channel != nil || Self.authentications[code] != nil)
        let (status, payload) = dispatch(code: code, data: data)
        var body = payload
        var final = status
        if status != 0x00, status != 0xAF {
            session.channel = nil
            session.authenticating = nil
            body = []
        }
        if status == 0x00 || status == 0xAF, body.count > Self.maximumFrameData || session.pendingSplit != nil {
            let first = session.pendingSplit ?? []
            // The answer is longer than one frame: its first part now, the rest when asked with AF.
            session.pendingSplit = nil
            var parts: [[UInt8]] = []
            var rest = body
            for size in first where rest.count > size {
                parts.append(Array(rest.prefix(size)))
                rest.removeFirst(size)
            }
            while rest.count > Self.maximumFrameData {
                parts.append(Array(rest.prefix(Self.maximumFrameData)))
                rest.removeFirst(Self.maximumFrameData)
            }
            parts.append(rest)
            body = parts.removeFirst()
            if !parts.isEmpty {
                session.outgoing = (parts, status)
                final = 0xAF
            }
        }
        return wrapped ? body + [0x91, final] : [final] + body
    }

    /// The most data bytes one answer frame carries (64-byte frames: PCB, status and CRC take the rest).
    public static let maximumFrameData = 59

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

extension EmulatedDESFire: Equatable {
    /// Equal when the memory, the power state and the session are (the cipher is not compared).
    public static func == (lhs: EmulatedDESFire, rhs: EmulatedDESFire) -> Bool {
        lhs.image == rhs.image && lhs.anticollisionUID == rhs.anticollisionUID && lhs.powered == rhs.powered
            && lhs.halted == rhs.halted && lhs.session == rhs.session
            && lhs.memory?.path == rhs.memory?.path
    }
}

extension EmulatedDESFire {
    /// What the card holds only while powered and selected.
    struct Session: Equatable, Sendable {
        /// The selected application's AID (000000: the PICC level).
        var selected: [UInt8] = [0, 0, 0]
        var channel: DESFireCardChannel?
        var authenticating: Authenticating?
        /// Parts of an answer still to be sent with AF, and the final status.
        var outgoing: (parts: [[UInt8]], status: UInt8)?
        /// A command arriving in parts: its code, what has arrived, the length it announced.
        var incoming: Incoming?
        /// Staged writes of the transaction, by file number (of the selected application).
        var staged: [UInt8: Staged] = [:]
        /// Set by a command whose answer must be split other than in 59-byte parts (GetVersion: 7, 7, rest).
        var pendingSplit: [Int]?
        /// The standard data file write the last command made (what a tear leaves half done).
        var lastDirectWrite: DirectWrite?

        struct Authenticating: Equatable, Sendable {
            var keyNumber: UInt8
            var key: DESFireKeySlot
            var rndB: [UInt8]
            var encryptedRndB: [UInt8]
        }

        struct Incoming: Equatable, Sendable {
            var code: UInt8
            var data: [UInt8]
            var expected: Int
        }

        enum Staged: Equatable, Sendable {
            /// A backup data file's working copy and the 32-byte blocks written.
            case backup(data: [UInt8], blocks: Set<Int>)
            /// A record file's new record (if any) and whether it is cleared first.
            case records(new: [UInt8]?, cleared: Bool)
        }

        struct DirectWrite: Equatable, Sendable {
            var aid: [UInt8]
            var file: UInt8
            var offset: Int
            var bytes: [UInt8]
        }

        static func == (lhs: Session, rhs: Session) -> Bool {
            lhs.selected == rhs.selected && lhs.channel == rhs.channel && lhs.authenticating == rhs.authenticating
                && lhs.outgoing?.parts == rhs.outgoing?.parts && lhs.outgoing?.status == rhs.outgoing?.status
                && lhs.incoming == rhs.incoming && lhs.staged == rhs.staged
        }
    }
}

/// The card's side of EV1 secure messaging: the mirror of `KioskCore`'s `DESFireSecureChannel`, with the same running
/// IV, over the session's cipher: AES-128 (16-byte blocks) after AuthenticateAES, 2K3DES (8-byte blocks) after
/// AuthenticateISO. The IV is one block of zeros after the authentication; CMACs are NIST SP 800-38B's over that block
/// (`DESFireCMAC`: Rb 0x87 or 0x1B), CRCs `DESFireCRC32`'s, padding zeros to whole blocks.
struct DESFireCardChannel: Equatable, Sendable {
    var keyNumber: UInt8
    var sessionKey: [UInt8]
    let cipher: any DESFireBlockCipher
    var iv: [UInt8]

    init(keyNumber: UInt8, sessionKey: [UInt8], cipher: any DESFireBlockCipher) {
        self.keyNumber = keyNumber
        self.sessionKey = sessionKey
        self.cipher = cipher
        self.iv = [UInt8](repeating: 0, count: cipher.blockSize)
    }

    var blockSize: Int { cipher.blockSize }

    /// The length of `plain` padded with zeros to whole blocks.
    func padded(_ plain: Int) -> Int { (plain + blockSize - 1) / blockSize * blockSize }

    /// The CMAC of `message` from the IV, which it becomes (a command in plain, or a response's CMAC).
    mutating func mac(_ message: [UInt8]) -> [UInt8] {
        let mac = (try? DESFireCMAC.mac(key: sessionKey, iv: iv, message: message, blocks: cipher)) ?? iv
        iv = mac
        return mac
    }

    /// `plain` padded with zeros to whole blocks, enciphered in CBC from the IV; the last block becomes the IV.
    mutating func encipher(_ plain: [UInt8]) -> [UInt8] {
        let blocks = plain + [UInt8](repeating: 0, count: padded(plain.count) - plain.count)
        let out = (try? cipher.encryptCBC(key: sessionKey, iv: iv, blocks: blocks)) ?? blocks
        iv = Array(out.suffix(blockSize))
        return out
    }

    /// Deciphers whole blocks from the IV; the last ciphertext block becomes the IV. Nil if not whole blocks.
    mutating func decipher(_ ciphertext: [UInt8]) -> [UInt8]? {
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0,
            let plain = try? cipher.decryptCBC(key: sessionKey, iv: iv, blocks: ciphertext)
        else { return nil }
        iv = Array(ciphertext.suffix(blockSize))
        return plain
    }

    /// An enciphered command's data: deciphered, its CRC32 over `header` ‖ data checked at `length`, and only zeros
    /// after it. Nil on an integrity error.
    mutating func openCommand(header: [UInt8], ciphertext: [UInt8], length: Int) -> [UInt8]? {
        guard let plain = decipher(ciphertext), length >= 0, length + 4 <= plain.count,
            plain.count == padded(length + 4)
        else { return nil }
        let data = Array(plain[0..<length])
        guard DESFireCRC32.bytes(header + data) == Array(plain[length..<length + 4]),
            plain[(length + 4)...].allSatisfy({ $0 == 0 })
        else { return nil }
        return data
    }

    /// An enciphered response: data ‖ CRC32(data ‖ 00), padded and enciphered.
    mutating func sealResponse(_ data: [UInt8]) -> [UInt8] {
        encipher(data + DESFireCRC32.bytes(data + [0x00]))
    }

    /// Equal when the key number, the session key, the IV and the block size are (the cipher is not compared).
    static func == (lhs: DESFireCardChannel, rhs: DESFireCardChannel) -> Bool {
        lhs.keyNumber == rhs.keyNumber && lhs.sessionKey == rhs.sessionKey && lhs.iv == rhs.iv
            && lhs.blockSize == rhs.blockSize
    }
}

extension PN532Emulator {
    /// The DESFire card on the antenna as it is now, if a DESFire card is there.
    public var desfireCard: EmulatedDESFire? {
        if case .desfire(let card) = card { return card }
        return nil
    }
}
