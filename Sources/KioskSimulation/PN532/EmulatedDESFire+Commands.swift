internal import KioskCore

/// The commands of `EmulatedDESFire`, each as the MF3ICD81 datasheet names it, with its status codes; secure
/// messaging as in `KioskCore`'s `DESFireSecureChannel` (the kiosk's side), here the card's, in a session under AES or
/// under 2K3DES alike.
extension EmulatedDESFire {
    typealias Answer = (status: UInt8, data: [UInt8])

    /// The authentications and the key type each opens: AuthenticateAES (AA) an AES key, AuthenticateISO (1A) a DES
    /// or 2K3DES key. The legacy Authenticate (0A, DES and 2K3DES keys with DESFire EV0's secure messaging), which a
    /// real card also accepts, is not emulated: it answers ILLEGAL_COMMAND_CODE.
    static let authentications: [UInt8: DESFireKeySlot.KeyType] = [0xAA: .aes, 0x1A: .tripleDES]

    /// Commands whose bytes the card does not run through the CMAC chain on arrival: they carry their own
    /// cryptogram (the authentications, ChangeKey, ChangeKeySettings, SetConfiguration), depend on the file's mode
    /// (WriteData, WriteRecord) or end the session (SelectApplication).
    static let selfSecured: Set<UInt8> = [0xAA, 0x1A, 0xAF, 0xC4, 0x54, 0x5C, 0x3D, 0x3B, 0x5A]

    mutating func dispatch(code: UInt8, data: [UInt8]) -> Answer {
        if code == 0xAF { return continuation(data) }
        if session.incoming != nil {
            session.incoming = nil
            return (0xCA, [])
        }
        session.outgoing = nil
        session.authenticating = nil
        if code == 0x3D || code == 0x3B, data.count >= 7 {
            // A long write may come in parts: wait for the length its header announces.
            switch writeMode(fileNumber: data[0]) {
            case .failure(let failure): return (failure.status, [])
            case .success(let mode):
                let length = Self.le24(data, at: 4)
                let expected = 7 + payloadLength(length, mode: mode)
                if data.count < expected {
                    session.incoming = .init(code: code, data: data, expected: expected)
                    return (0xAF, [])
                }
            }
        }
        return execute(code: code, data: data)
    }

    private mutating func continuation(_ data: [UInt8]) -> Answer {
        if let outgoing = session.outgoing {
            var parts = outgoing.parts
            let part = parts.removeFirst()
            session.outgoing = parts.isEmpty ? nil : (parts, outgoing.status)
            return (parts.isEmpty ? outgoing.status : 0xAF, part)
        }
        if var incoming = session.incoming {
            incoming.data += data
            if incoming.data.count < incoming.expected {
                session.incoming = incoming
                return (0xAF, [])
            }
            session.incoming = nil
            guard incoming.data.count == incoming.expected else { return (0x7E, []) }
            return execute(code: incoming.code, data: incoming.data)
        }
        if let authenticating = session.authenticating {
            session.authenticating = nil
            return authenticateSecondPass(authenticating, data)
        }
        return (0x1C, [])
    }

    private mutating func execute(code: UInt8, data: [UInt8]) -> Answer {
        if session.channel != nil, !Self.selfSecured.contains(code) {
            _ = chainMAC([code] + data)
        }
        switch code {
        case 0x60: return getVersion(data)
        case 0x5A: return selectApplication(data)
        case 0x6A: return getApplicationIDs(data)
        case 0xCA: return createApplication(data)
        case 0xDA: return deleteApplication(data)
        case 0xFC: return formatPICC(data)
        case 0xAA, 0x1A: return authenticateFirstPass(code, data)
        case 0xC4: return changeKey(data)
        case 0x64: return getKeyVersion(data)
        case 0x45: return getKeySettings(data)
        case 0x54: return changeKeySettings(data)
        case 0x51: return getCardUID(data)
        case 0x5C: return setConfiguration(data)
        case 0x6E:
            guard data.isEmpty else { return (0x7E, []) }
            return ok(Self.le24(image.freeMemory))
        case 0x6F: return getFileIDs(data)
        case 0xF5: return getFileSettings(data)
        case 0xCD: return createFile(.standardData, data)
        case 0xCB: return createFile(.backupData, data)
        case 0xC0: return createFile(.cyclicRecord, data)
        case 0xBD: return readData(data)
        case 0xBB: return readRecords(data)
        case 0x3D, 0x3B: return write(code, data)
        case 0xEB: return clearRecordFile(data)
        case 0xC7: return commitTransaction(data)
        case 0xA7:
            guard data.isEmpty else { return (0x7E, []) }
            session.staged = [:]
            return ok()
        default: return (0x1C, [])
        }
    }

    // MARK: Helpers

    /// Success: `data`, followed in an authenticated session by the first 8 bytes of the CMAC of data ‖ 00.
    private mutating func ok(_ data: [UInt8] = []) -> Answer {
        guard session.channel != nil else { return (0x00, data) }
        let mac = chainMAC(data + [0x00]) ?? []
        return (0x00, data + Array(mac.prefix(8)))
    }

    /// The CMAC of `message` in the session's chain (the IV moves), or nil without a session.
    private mutating func chainMAC(_ message: [UInt8]) -> [UInt8]? {
        session.channel?.mac(message)
    }

    private var selectedIndex: Int? { image.applicationIndex(session.selected) }
    private var atPICC: Bool { session.selected == [0, 0, 0] }
    private var masterAuthenticated: Bool { session.channel?.keyNumber == 0 }

    private func key(_ number: UInt8) -> DESFireKeySlot? {
        if atPICC { return number == 0 ? image.piccKey : nil }
        guard let index = selectedIndex, Int(number) < image.applications[index].keys.count else { return nil }
        return image.applications[index].keys[Int(number)]
    }

    private var keySettings: UInt8 {
        if let index = selectedIndex { return image.applications[index].keySettings }
        return image.piccKeySettings
    }

    private func file(_ number: UInt8) -> (app: Int, file: Int)? {
        guard let app = selectedIndex,
            let file = image.applications[app].files.firstIndex(where: { $0.number == number })
        else { return nil }
        return (app, file)
    }

    /// RndA′ and RndB′: rotated left by one byte.
    static func rotatedLeft(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.dropFirst()) + bytes.prefix(1) }

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    static func le24(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16
    }

    /// The bytes a write of `length` data bytes sends in `mode`: enciphered, data ‖ CRC32 padded to the session's
    /// blocks; MAC'd, data ‖ 8 bytes of CMAC; plain, the data.
    func payloadLength(_ length: Int, mode: UInt8) -> Int {
        switch mode {
        case 0x03: session.channel?.padded(length + 4) ?? length
        case 0x01: length + 8
        default: length
        }
    }

    /// The communication mode of an access with one of `keys`: the file's own when the session's key grants it,
    /// plain when access is free (E), an authentication error otherwise.
    private func mode(for file: DESFireFileImage, keys: [UInt8]) -> Result<UInt8, Failure> {
        if let channel = session.channel, keys.contains(channel.keyNumber) { return .success(file.communication) }
        if keys.contains(0x0E) { return .success(0x00) }
        return .failure(Failure(status: 0xAE))
    }

    struct Failure: Error { var status: UInt8 }

    private func writeMode(fileNumber: UInt8) -> Result<UInt8, Failure> {
        guard let (app, index) = file(fileNumber) else {
            return .failure(Failure(status: selectedIndex == nil ? 0xA0 : 0xF0))
        }
        let file = image.applications[app].files[index]
        return mode(for: file, keys: [file.writeKey, file.readWriteKey])
    }

    // MARK: PICC level

    private mutating func getVersion(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        let storage = image.capacity.storageSizeByte
        let hardware: [UInt8] = [0x04, 0x01, 0x01, 0x01, 0x00, storage, 0x05]
        let software: [UInt8] = [0x04, 0x01, 0x01, 0x01, 0x04, storage, 0x05]
        let uid = image.randomUID ? [UInt8](repeating: 0, count: 7) : image.uid
        let production: [UInt8] = [0xBA, 0x7C, 0x4E, 0x55, 0x10, 0x47, 0x26]  // batch number, week 47, 2026
        session.pendingSplit = [7, 7]
        return ok(hardware + software + uid + production)
    }

    private mutating func selectApplication(_ data: [UInt8]) -> Answer {
        guard data.count == 3 else { return (0x7E, []) }
        session.channel = nil
        session.staged = [:]
        guard data == [0, 0, 0] || image.application(data) != nil else { return (0xA0, []) }
        session.selected = data
        return (0x00, [])
    }

    private mutating func getApplicationIDs(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard atPICC else { return (0x1C, []) }
        guard image.piccKeySettings & 0x02 != 0 || masterAuthenticated else { return (0xAE, []) }
        return ok(image.applications.flatMap(\.aid))
    }

    private mutating func createApplication(_ data: [UInt8]) -> Answer {
        guard data.count >= 5 else { return (0x7E, []) }
        guard atPICC else { return (0x1C, []) }
        guard image.piccKeySettings & 0x04 != 0 || masterAuthenticated else { return (0xAE, []) }
        let aid = Array(data[0..<3])
        let keys = Int(data[4] & 0x0F)
        // Only AES applications (key type flag 80): one with DES or 3K3DES keys is refused, as PARAMETER_ERROR.
        guard aid != [0, 0, 0], DESFireKeySlot.KeyType(flag: data[4]) == .aes, (1...14).contains(keys) else {
            return (0x9E, [])
        }
        guard image.application(aid) == nil else { return (0xDE, []) }
        guard image.applications.count < 28 else { return (0xCE, []) }
        image.applications.append(
            DESFireApplicationImage(
                aid: aid, keySettings: data[3], keys: Array(repeating: DESFireKeySlot(), count: keys), files: []))
        lastCost.eepromBlocks += 1
        return ok()
    }

    private mutating func deleteApplication(_ data: [UInt8]) -> Answer {
        guard data.count == 3 else { return (0x7E, []) }
        guard let index = image.applicationIndex(data) else { return (0xA0, []) }
        let allowed = (atPICC && masterAuthenticated) || (session.selected == data && masterAuthenticated)
        guard allowed else { return (0xAE, []) }
        image.applications.remove(at: index)
        lastCost.eepromBlocks += 1
        let answer = ok()
        if session.selected == data {
            session.selected = [0, 0, 0]
            session.channel = nil
            session.staged = [:]
        }
        return answer
    }

    private mutating func formatPICC(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard atPICC, masterAuthenticated else { return (0xAE, []) }
        guard !image.formatDisabled else { return (0x9D, []) }
        image.applications = []
        image.allocatedBytes = 0
        session.staged = [:]
        lastCost.eepromBlocks += 1
        return ok()
    }

    private mutating func setConfiguration(_ data: [UInt8]) -> Answer {
        guard data.count >= 2 else { return (0x7E, []) }
        guard atPICC, masterAuthenticated, var channel = session.channel else { return (0xAE, []) }
        guard data[0] == 0x00 else { return (0x9E, []) }
        guard
            let flags = channel.openCommand(
                header: [0x5C, 0x00], ciphertext: Array(data.dropFirst()), length: 1)
        else { return (0x1E, []) }
        session.channel = channel
        image.formatDisabled = flags[0] & 0x01 != 0
        image.randomUID = image.randomUID || flags[0] & 0x02 != 0
        lastCost.eepromBlocks += 1
        return ok()
    }

    private mutating func getCardUID(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard var channel = session.channel else { return (0xAE, []) }
        let sealed = channel.sealResponse(image.uid)
        session.channel = channel
        return (0x00, sealed)
    }

    // MARK: Keys

    /// AuthenticateAES or AuthenticateISO, first pass: AF ‖ E(K, RndB), one block in CBC from a zero IV. A key of the
    /// other type than the command's answers AUTHENTICATION_ERROR.
    private mutating func authenticateFirstPass(_ code: UInt8, _ data: [UInt8]) -> Answer {
        session.channel = nil
        session.staged = [:]
        guard data.count == 1 else { return (0x7E, []) }
        let number = data[0] & 0x0F
        guard let slot = key(number) else { return (0x40, []) }
        guard Self.authentications[code] == slot.type else { return (0xAE, []) }
        let cipher = blocks(slot.type)
        let size = slot.type.blockSize
        let rndB = Self.randomBytes(size)
        guard
            let encrypted = try? cipher.encryptCBC(
                key: slot.value, iv: [UInt8](repeating: 0, count: size), blocks: rndB)
        else { return (0xAE, []) }
        session.authenticating = .init(keyNumber: number, key: slot, rndB: rndB, encryptedRndB: encrypted)
        return (0xAF, encrypted)
    }

    /// The second pass: the host's E(K, RndA ‖ RndB′) in CBC from the block it received; the card checks RndB′ and
    /// answers 00 ‖ E(K, RndA′) in CBC from the last block the host sent. The session key: for AES RndA[0..3] ‖
    /// RndB[0..3] ‖ RndA[12..15] ‖ RndB[12..15]; for a DES key (halves equal to the bit) RndA[0..3] ‖ RndB[0..3]
    /// twice, for a 2K3DES key RndA[0..3] ‖ RndB[0..3] ‖ RndA[4..7] ‖ RndB[4..7] (libfreefare's
    /// `mifare_desfire_session_key_new`).
    private mutating func authenticateSecondPass(_ step: Session.Authenticating, _ data: [UInt8]) -> Answer {
        let size = step.key.type.blockSize
        guard data.count == 2 * size else { return (0x7E, []) }
        let cipher = blocks(step.key.type)
        guard let token = try? cipher.decryptCBC(key: step.key.value, iv: step.encryptedRndB, blocks: data)
        else { return (0xAE, []) }
        let rndA = Array(token[0..<size])
        guard Array(token[size...]) == Self.rotatedLeft(step.rndB) else { return (0xAE, []) }
        guard
            let answer = try? cipher.encryptCBC(
                key: step.key.value, iv: Array(data.suffix(size)), blocks: Self.rotatedLeft(rndA))
        else { return (0xAE, []) }
        let sessionKey =
            switch step.key.type {
            case .aes: DESFireAuthentication.sessionKey(rndA: rndA, rndB: step.rndB)
            case .tripleDES:
                DESFireAuthentication.tripleDESSessionKey(
                    rndA: rndA, rndB: step.rndB, singleDES: step.key.isSingleDES)
            }
        session.channel = DESFireCardChannel(keyNumber: step.keyNumber, sessionKey: sessionKey, cipher: cipher)
        return (0x00, answer)
    }

    /// ChangeKey: C4 ‖ key number ‖ cryptogram, enciphered with the session's cipher. At the PICC level bits 7–6 of the
    /// key number give the new key's type (80 AES, 00 DES or 2K3DES; 40, 3K3DES, is refused with PARAMETER_ERROR); an
    /// application's keys stay AES. The cryptogram: newKey ‖ version (AES keys only: a DES key's version is in its
    /// parity bits) ‖ CRC32(C4 ‖ key number ‖ newKey ‖ version) when changing the session's own key, which ends the
    /// session (the answer 00 carries no CMAC); for another key (newKey ⊕ oldKey) ‖ version ‖ CRC32 of that with the
    /// header ‖ CRC32(newKey). Zeros pad it to whole blocks.
    private mutating func changeKey(_ data: [UInt8]) -> Answer {
        guard var channel = session.channel else { return (0xAE, []) }
        guard let numberByte = data.first else { return (0x7E, []) }
        let number = numberByte & 0x0F
        guard let old = key(number) else { return (0x40, []) }
        guard let type = atPICC ? DESFireKeySlot.KeyType(flag: numberByte) : old.type else { return (0x9E, []) }
        let settings = keySettings
        if number == 0 {
            guard channel.keyNumber == 0 else { return (0xAE, []) }
            guard settings & 0x01 != 0 else { return (0x9D, []) }
        } else {
            switch settings >> 4 {
            case 0x0: guard channel.keyNumber == 0 else { return (0xAE, []) }
            case 0xE: guard channel.keyNumber == number else { return (0xAE, []) }
            case 0xF: return (0x9D, [])
            case let holder: guard channel.keyNumber == holder else { return (0xAE, []) }
            }
        }
        let same = channel.keyNumber == number
        let keyLength = 16 + (type.hasVersionByte ? 1 : 0)
        let crcEnd = keyLength + (same ? 4 : 8)
        guard data.count == 1 + channel.padded(crcEnd) else { return (0x7E, []) }
        guard let plain = channel.decipher(Array(data.dropFirst())) else { return (0x1E, []) }
        let keyData = Array(plain[0..<keyLength])
        guard DESFireCRC32.bytes([0xC4, numberByte] + keyData) == Array(plain[keyLength..<keyLength + 4]),
            plain[crcEnd...].allSatisfy({ $0 == 0 })
        else { return (0x1E, []) }
        var newKey = Array(keyData[0..<16])
        if !same {
            newKey = zip(newKey, old.value).map { $0 ^ $1 }
            guard DESFireCRC32.bytes(newKey) == Array(plain[keyLength + 4..<crcEnd]) else { return (0x1E, []) }
        }
        let slot =
            switch type {
            case .aes: DESFireKeySlot(value: newKey, version: keyData[16])
            case .tripleDES: DESFireKeySlot(tripleDES: newKey)
            }
        if let index = selectedIndex {
            image.applications[index].keys[Int(number)] = slot
        } else {
            image.piccKey = slot
        }
        lastCost.eepromBlocks += 1
        if same {
            session.channel = nil  // the session's key is gone: the card ends the authentication
            return (0x00, [])
        }
        session.channel = channel
        return ok()
    }

    private mutating func getKeyVersion(_ data: [UInt8]) -> Answer {
        guard data.count == 1 else { return (0x7E, []) }
        guard let slot = key(data[0] & 0x0F) else { return (0x40, []) }
        return ok([slot.version])
    }

    /// GetKeySettings: the settings, and the number of keys with the master key's type flag (a factory card's PICC
    /// level: 0F 01, DES; after ChangeKey 80 to AES, 0F 81; an application: 8N, its N AES keys).
    private mutating func getKeySettings(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard keySettings & 0x02 != 0 || masterAuthenticated else { return (0xAE, []) }
        let keys = selectedIndex.map { image.applications[$0].keys } ?? [image.piccKey]
        return ok([keySettings, UInt8(keys.count) | keys[0].type.flag])
    }

    private mutating func changeKeySettings(_ data: [UInt8]) -> Answer {
        guard masterAuthenticated, var channel = session.channel else { return (0xAE, []) }
        guard keySettings & 0x08 != 0 else { return (0x9D, []) }
        guard let settings = channel.openCommand(header: [0x54], ciphertext: data, length: 1)
        else { return (0x1E, []) }
        session.channel = channel
        if let index = selectedIndex {
            image.applications[index].keySettings = settings[0]
        } else {
            image.piccKeySettings = settings[0]
        }
        lastCost.eepromBlocks += 1
        return ok()
    }

    // MARK: Files

    private mutating func getFileIDs(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard let index = selectedIndex else { return (0xA0, []) }
        guard keySettings & 0x02 != 0 || masterAuthenticated else { return (0xAE, []) }
        return ok(image.applications[index].files.map(\.number))
    }

    private mutating func getFileSettings(_ data: [UInt8]) -> Answer {
        guard data.count == 1 else { return (0x7E, []) }
        guard selectedIndex != nil else { return (0xA0, []) }
        guard let (app, index) = file(data[0]) else { return (0xF0, []) }
        guard keySettings & 0x02 != 0 || masterAuthenticated else { return (0xAE, []) }
        let file = image.applications[app].files[index]
        var settings = [file.kind.rawValue, file.communication, UInt8(file.accessRights & 0xFF)]
        settings.append(UInt8(file.accessRights >> 8))
        settings += Self.le24(file.size)
        if file.kind == .cyclicRecord { settings += Self.le24(file.maxRecords) + Self.le24(file.records.count) }
        return ok(settings)
    }

    private mutating func createFile(_ kind: DESFireFileImage.Kind, _ data: [UInt8]) -> Answer {
        let length = kind == .cyclicRecord ? 10 : 7
        guard data.count == length else { return (0x7E, []) }
        guard let app = selectedIndex else { return (0x9D, []) }
        guard keySettings & 0x04 != 0 || masterAuthenticated else { return (0xAE, []) }
        let number = data[0]
        let size = Self.le24(data, at: 4)
        let records = kind == .cyclicRecord ? Self.le24(data, at: 7) : 0
        guard number <= 0x1F, [0x00, 0x01, 0x03].contains(data[1] & 0x03), size > 0,
            kind != .cyclicRecord || records >= 2
        else { return (0x9E, []) }
        guard file(number) == nil else { return (0xDE, []) }
        let file = DESFireFileImage(
            number: number, kind: kind, communication: data[1] & 0x03,
            accessRights: UInt16(data[3]) << 8 | UInt16(data[2]), size: size, maxRecords: records,
            data: kind == .cyclicRecord ? [] : [UInt8](repeating: 0, count: size), records: [])
        guard file.allocation <= image.freeMemory else { return (0x0E, []) }
        image.applications[app].files.append(file)
        image.applications[app].files.sort { $0.number < $1.number }
        image.allocatedBytes += file.allocation
        lastCost.eepromBlocks += 1
        return ok()
    }

    /// Sends `bytes` read from a file in `mode`: enciphered, or plain (with the session's CMAC when authenticated).
    private mutating func answerRead(_ bytes: [UInt8], mode: UInt8) -> Answer {
        guard mode == 0x03, var channel = session.channel else { return ok(bytes) }
        let sealed = channel.sealResponse(bytes)
        session.channel = channel
        return (0x00, sealed)
    }

    private mutating func readData(_ data: [UInt8]) -> Answer {
        guard data.count == 7 else { return (0x7E, []) }
        guard let (app, index) = file(data[0]) else { return (selectedIndex == nil ? 0xA0 : 0xF0, []) }
        let file = image.applications[app].files[index]
        guard file.kind != .cyclicRecord else { return (0x9E, []) }
        let mode: UInt8
        switch self.mode(for: file, keys: [file.readKey, file.readWriteKey]) {
        case .success(let found): mode = found
        case .failure(let failure): return (failure.status, [])
        }
        let offset = Self.le24(data, at: 1)
        var length = Self.le24(data, at: 4)
        guard offset < file.size else { return (0xBE, []) }
        if length == 0 { length = file.size - offset }
        guard offset + length <= file.size else { return (0xBE, []) }
        return answerRead(Array(file.data[offset..<offset + length]), mode: mode)
    }

    private mutating func readRecords(_ data: [UInt8]) -> Answer {
        guard data.count == 7 else { return (0x7E, []) }
        guard let (app, index) = file(data[0]) else { return (selectedIndex == nil ? 0xA0 : 0xF0, []) }
        let file = image.applications[app].files[index]
        guard file.kind == .cyclicRecord else { return (0x9E, []) }
        let mode: UInt8
        switch self.mode(for: file, keys: [file.readKey, file.readWriteKey]) {
        case .success(let found): mode = found
        case .failure(let failure): return (failure.status, [])
        }
        let offset = Self.le24(data, at: 1)
        var count = Self.le24(data, at: 4)
        let stored = file.records.count
        guard offset < stored else { return (0xBE, []) }
        let available = stored - offset
        if count == 0 { count = available }
        guard count <= available else { return (0xBE, []) }
        // `offset` counts back from the newest record; the records go out oldest first.
        let chosen = file.records[(stored - offset - count)..<(stored - offset)]
        return answerRead(chosen.flatMap { $0 }, mode: mode)
    }

    private mutating func write(_ code: UInt8, _ data: [UInt8]) -> Answer {
        guard data.count >= 7 else { return (0x7E, []) }
        let mode: UInt8
        switch writeMode(fileNumber: data[0]) {
        case .success(let found): mode = found
        case .failure(let failure): return (failure.status, [])
        }
        let header = Array(data[0..<7])
        let payload = Array(data[7...])
        let offset = Self.le24(data, at: 1)
        let length = Self.le24(data, at: 4)
        let bytes: [UInt8]
        switch mode {
        case 0x03:
            guard var channel = session.channel, payload.count == payloadLength(length, mode: mode),
                let opened = channel.openCommand(header: [code] + header, ciphertext: payload, length: length)
            else { return (0x1E, []) }
            session.channel = channel
            bytes = opened
        case 0x01:
            guard payload.count == length + 8, var channel = session.channel else { return (0x7E, []) }
            let body = Array(payload.prefix(length))
            let mac = channel.mac([code] + header + body)
            guard Array(mac.prefix(8)) == Array(payload.suffix(8)) else { return (0x1E, []) }
            session.channel = channel
            bytes = body
        default:
            guard payload.count == length else { return (0x7E, []) }
            _ = chainMAC([code] + data)
            bytes = payload
        }
        guard let (app, index) = file(data[0]) else { return (0xF0, []) }
        let file = image.applications[app].files[index]
        if code == 0x3D {
            guard file.kind != .cyclicRecord else { return (0x9E, []) }
            guard offset + length <= file.size else { return (0xBE, []) }
            if file.kind == .standardData {
                image.applications[app].files[index].data.replaceSubrange(offset..<offset + length, with: bytes)
                session.lastDirectWrite = .init(aid: session.selected, file: file.number, offset: offset, bytes: bytes)
                lastCost.eepromBlocks += Self.blocksSpanned(offset: offset, length: length)
            } else {
                var working = file.data
                var blocks: Set<Int> = []
                if case .backup(let staged, let touched) = session.staged[file.number] {
                    working = staged
                    blocks = touched
                }
                working.replaceSubrange(offset..<offset + length, with: bytes)
                if length > 0 { blocks.formUnion((offset / 32)...((offset + length - 1) / 32)) }
                session.staged[file.number] = .backup(data: working, blocks: blocks)
            }
        } else {
            guard file.kind == .cyclicRecord else { return (0x9E, []) }
            guard offset + length <= file.size else { return (0xBE, []) }
            var record = [UInt8](repeating: 0, count: file.size)
            var cleared = false
            if case .records(let new, let wasCleared) = session.staged[file.number] {
                record = new ?? record
                cleared = wasCleared
            }
            record.replaceSubrange(offset..<offset + length, with: bytes)
            session.staged[file.number] = .records(new: record, cleared: cleared)
        }
        return ok()
    }

    static func blocksSpanned(offset: Int, length: Int) -> Int {
        length == 0 ? 0 : (offset + length - 1) / 32 - offset / 32 + 1
    }

    private mutating func clearRecordFile(_ data: [UInt8]) -> Answer {
        guard data.count == 1 else { return (0x7E, []) }
        guard let (app, index) = file(data[0]) else { return (selectedIndex == nil ? 0xA0 : 0xF0, []) }
        let file = image.applications[app].files[index]
        guard file.kind == .cyclicRecord else { return (0x9E, []) }
        guard file.readWriteKey == 0x0E || session.channel?.keyNumber == file.readWriteKey else { return (0xAE, []) }
        session.staged[file.number] = .records(new: nil, cleared: true)
        return ok()
    }

    private mutating func commitTransaction(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard let app = selectedIndex else {
            session.staged = [:]
            return ok()
        }
        for (number, staged) in session.staged {
            guard let index = image.applications[app].files.firstIndex(where: { $0.number == number }) else {
                continue
            }
            switch staged {
            case .backup(let working, let blocks):
                image.applications[app].files[index].data = working
                lastCost.eepromBlocks += blocks.count
            case .records(let new, let cleared):
                var file = image.applications[app].files[index]
                if cleared {
                    file.records = []
                    lastCost.eepromBlocks += 1
                }
                if let new {
                    file.records.append(new)
                    if file.records.count > file.maxRecords - 1 { file.records.removeFirst() }
                    lastCost.eepromBlocks += DESFireFileImage.blocks(file.size)
                }
                image.applications[app].files[index] = file
            }
        }
        session.staged = [:]
        return ok()
    }
}
