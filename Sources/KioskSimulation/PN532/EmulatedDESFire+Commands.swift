internal import KioskCore

/// The commands of `EmulatedDESFire`, each as the MF3ICD81 datasheet names it, with its status codes; secure
/// messaging as in `KioskCore`'s `DESFireSecureChannel` (the kiosk's side), here the card's.
extension EmulatedDESFire {
    typealias Answer = (status: UInt8, data: [UInt8])

    /// Commands whose bytes the card does not run through the CMAC chain on arrival: they carry their own
    /// cryptogram (AuthenticateAES, ChangeKey, ChangeKeySettings, SetConfiguration), depend on the file's mode
    /// (WriteData, WriteRecord) or end the session (SelectApplication).
    static let selfSecured: Set<UInt8> = [0xAA, 0xAF, 0xC4, 0x54, 0x5C, 0x3D, 0x3B, 0x5A]

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
                let expected = 7 + Self.payloadLength(length, mode: mode)
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
        case 0xAA: return authenticateFirstPass(data)
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
        let cipher = self.cipher
        return session.channel?.mac(message, cipher: cipher)
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

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    static func le24(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16
    }

    static func payloadLength(_ length: Int, mode: UInt8) -> Int {
        switch mode {
        case 0x03: (length + 4 + 15) / 16 * 16
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
        guard aid != [0, 0, 0], data[4] & 0xC0 == 0x80, (1...14).contains(keys) else { return (0x9E, []) }
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
                header: [0x5C, 0x00], ciphertext: Array(data.dropFirst()), length: 1, cipher: cipher)
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
        let sealed = channel.sealResponse(image.uid, cipher: cipher)
        session.channel = channel
        return (0x00, sealed)
    }

    // MARK: Keys

    private mutating func authenticateFirstPass(_ data: [UInt8]) -> Answer {
        session.channel = nil
        session.staged = [:]
        guard data.count == 1 else { return (0x7E, []) }
        let number = data[0] & 0x0F
        guard let slot = key(number) else { return (0x40, []) }
        let rndB = Self.randomBytes(16)
        guard
            let encrypted = try? cipher.aes128CBCEncrypt(
                key: slot.value, iv: [UInt8](repeating: 0, count: 16), blocks: rndB)
        else { return (0xAE, []) }
        session.authenticating = .init(keyNumber: number, key: slot.value, rndB: rndB, encryptedRndB: encrypted)
        return (0xAF, encrypted)
    }

    private mutating func authenticateSecondPass(_ step: Session.Authenticating, _ data: [UInt8]) -> Answer {
        guard data.count == 32 else { return (0x7E, []) }
        guard let token = try? cipher.aes128CBCDecrypt(key: step.key, iv: step.encryptedRndB, blocks: data)
        else { return (0xAE, []) }
        let rndA = Array(token[0..<16])
        let rotatedB = Array(step.rndB.dropFirst()) + [step.rndB[0]]
        guard Array(token[16..<32]) == rotatedB else { return (0xAE, []) }
        let rotatedA = Array(rndA.dropFirst()) + [rndA[0]]
        guard let answer = try? cipher.aes128CBCEncrypt(key: step.key, iv: Array(data.suffix(16)), blocks: rotatedA)
        else { return (0xAE, []) }
        session.channel = DESFireCardChannel(
            keyNumber: step.keyNumber, sessionKey: DESFireAESAuthentication.sessionKey(rndA: rndA, rndB: step.rndB))
        return (0x00, answer)
    }

    private mutating func changeKey(_ data: [UInt8]) -> Answer {
        guard var channel = session.channel else { return (0xAE, []) }
        guard data.count == 33 else { return (0x7E, []) }
        let number = data[0] & 0x0F
        guard let old = key(number) else { return (0x40, []) }
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
        guard let plain = channel.decipher(Array(data.dropFirst()), cipher: cipher) else { return (0x1E, []) }
        let header = [0xC4, data[0]]
        let same = channel.keyNumber == number
        let keyData = Array(plain[0..<17])
        let newKey: [UInt8]
        var end = 21
        guard DESFireCRC32.bytes(header + keyData) == Array(plain[17..<21]) else { return (0x1E, []) }
        if same {
            newKey = Array(keyData[0..<16])
        } else {
            newKey = zip(keyData[0..<16], old.value).map { $0 ^ $1 }
            guard DESFireCRC32.bytes(newKey) == Array(plain[21..<25]) else { return (0x1E, []) }
            end = 25
        }
        guard plain[end...].allSatisfy({ $0 == 0 }) else { return (0x1E, []) }
        let slot = DESFireKeySlot(value: newKey, version: keyData[16])
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

    private mutating func getKeySettings(_ data: [UInt8]) -> Answer {
        guard data.isEmpty else { return (0x7E, []) }
        guard keySettings & 0x02 != 0 || masterAuthenticated else { return (0xAE, []) }
        let count = selectedIndex.map { image.applications[$0].keys.count } ?? 1
        return ok([keySettings, UInt8(count) | 0x80])
    }

    private mutating func changeKeySettings(_ data: [UInt8]) -> Answer {
        guard masterAuthenticated, var channel = session.channel else { return (0xAE, []) }
        guard keySettings & 0x08 != 0 else { return (0x9D, []) }
        guard let settings = channel.openCommand(header: [0x54], ciphertext: data, length: 1, cipher: cipher)
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
        let sealed = channel.sealResponse(bytes, cipher: cipher)
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
            guard var channel = session.channel, payload.count == Self.payloadLength(length, mode: mode),
                let opened = channel.openCommand(
                    header: [code] + header, ciphertext: payload, length: length, cipher: cipher)
            else { return (0x1E, []) }
            session.channel = channel
            bytes = opened
        case 0x01:
            guard payload.count == length + 8, var channel = session.channel else { return (0x7E, []) }
            let body = Array(payload.prefix(length))
            let mac = channel.mac([code] + header + body, cipher: cipher)
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
