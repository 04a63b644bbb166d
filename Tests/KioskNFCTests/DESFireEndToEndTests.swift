import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Logging
import Synchronization
import Testing

/// `DESFireClient` end to end: over the libnfc transport, through the real libnfc (`pn532_uart`) and the PN532
/// emulator, to its emulated MIFARE DESFire EV1 (`EmulatedDESFire`; its factory card master key is NXP's DES key of
/// zeros, opened with AuthenticateISO and a triple DES session, then changed to AES). A card is made a diary card as `docs/diary-card.md` lays it out, read and written in a
/// transaction under a random UID, and taken away mid-transaction.
@Suite(.serialized) struct DESFireEndToEndTests {
    let uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x12, 0x34, 0x80]
    let zero = [UInt8](repeating: 0, count: 16)
    let piccKey = (0..<16).map { UInt8(0xA0 + $0) }
    let applicationKey = (0..<16).map { UInt8(0x10 + $0) }
    let diaryKey = (0..<16).map { UInt8(0x30 + $0) }
    let identifyKey = (0..<16).map { UInt8(0x50 + $0) }
    let aid = DESFireApplicationID(bytes: DiaryLayout.aid)
    let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)

    func emulator() throws -> PN532PseudoTerminal {
        let card = EmulatedDESFire(uid: uid, capacity: .ev1_4K, cipher: OpenSSLCrypto())
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: .desfire(card)))
        terminal.start()
        return terminal
    }

    func card(_ target: NFCTarget?, _ device: NFCDevice) throws -> DESFireCard {
        let target = try #require(target)
        #expect(target.isISO14443Part4)
        return try #require(try DESFireCard.identify(target, over: device, crypto: OpenSSLCrypto()))
    }

    /// Makes the factory card a diary card: the application with three AES keys, its keys changed, the header
    /// and the ring, random UID on, the card master key changed.
    @discardableResult
    func provision(_ client: DESFireClient) throws -> Int {
        try client.authenticate(keyNumber: 0, key: .factoryDefault)
        let settings = DESFireKeySettings(
            changeKeyAccess: 0, configurationChangeable: true, freeCreateDelete: false, freeDirectoryList: false,
            masterKeyChangeable: true)
        try client.createApplication(aid, settings: settings, keyCount: DiaryLayout.keyCount)
        #expect(try client.getApplicationIDs() == [aid])
        try client.selectApplication(aid)
        try client.authenticate(keyNumber: DiaryLayout.applicationMasterKey, key: zero)
        try client.changeKey(DiaryLayout.diaryKey, to: diaryKey, version: 1, currentKey: zero)
        try client.changeKey(DiaryLayout.identifyKey, to: identifyKey, version: 1, currentKey: zero)
        #expect(client.isAuthenticated)
        let records = try #require(DiaryLayout.ringRecords(freeMemory: try client.getFreeMemory()))
        let headerSize = DiaryHeader.size(ringRecords: records)
        try client.createBackupDataFile(
            DiaryLayout.headerFile, communication: .enciphered, accessRights: rights, size: headerSize)
        try client.createCyclicRecordFile(
            DiaryLayout.ringFile, communication: .enciphered, accessRights: rights,
            recordSize: DiaryLayout.recordSize, maximumRecords: records)
        #expect(try client.getFileIDs().sorted() == [DiaryLayout.headerFile, DiaryLayout.ringFile])
        let ring = try client.getFileSettings(DiaryLayout.ringFile)
        #expect(ring.type == .cyclicRecord && ring.communication == .enciphered && ring.accessRights == rights)
        #expect(ring.recordSize == DiaryLayout.recordSize)
        #expect(ring.maximumRecords == records && ring.currentRecords == 0)
        #expect(try client.getFileSettings(DiaryLayout.headerFile).size == headerSize)
        #expect(try client.getKeySettings() == (settings, 3))
        try client.changeKey(DiaryLayout.applicationMasterKey, to: applicationKey, version: 1, currentKey: nil)
        #expect(!client.isAuthenticated)  // the card ended the session with the key it was opened with
        try client.authenticate(keyNumber: DiaryLayout.applicationMasterKey, key: applicationKey)
        #expect(try client.getKeyVersion(DiaryLayout.diaryKey) == 1)

        try client.selectApplication(.picc)
        try client.authenticate(keyNumber: 0, key: .factoryDefault)
        try client.enableRandomUID()
        try client.changeKey(0x80, to: piccKey, version: 1, currentKey: nil)
        #expect(!client.isAuthenticated)
        return records
    }

    @Test func provisionWriteInATransactionAndReadBack() throws {
        let terminal = try emulator()
        let device = try NFCDevice(connection: "pn532_uart:\(terminal.slavePath)")
        let first = try card(try device.poll(count: 1, period: 1), device)
        #expect(first.target.uid == uid)
        #expect(first.version.isDESFire)
        let headerSize = DiaryHeader.size(ringRecords: try provision(first.client))

        // The next tap: a random UID; the identify key learns the real one; the diary key opens the files.
        let tap = try card(try device.reselect(), device)
        #expect(tap.target.uid != uid && tap.target.hasRandomUID)
        let client = tap.client
        try client.selectApplication(aid)
        try client.authenticate(keyNumber: DiaryLayout.identifyKey, key: identifyKey)
        #expect(try client.getCardUID() == uid)
        #expect(throws: DESFireCommandError.self) {
            try client.readData(DiaryLayout.headerFile, offset: 0, length: 16, communication: .enciphered)
        }
        #expect(!client.isAuthenticated)
        try client.authenticate(keyNumber: DiaryLayout.diaryKey, key: diaryKey)
        let header = (0..<headerSize).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let record = (0..<DiaryLayout.recordSize).map { UInt8(truncatingIfNeeded: 255 - $0) }
        try client.writeData(DiaryLayout.headerFile, offset: 0, data: header, communication: .enciphered)
        try client.writeRecord(DiaryLayout.ringFile, data: record, communication: .enciphered)
        try client.commitTransaction()
        #expect(
            try client.readData(
                DiaryLayout.headerFile, offset: 0, length: headerSize, communication: .enciphered)
                == header)
        #expect(
            try client.readRecords(
                DiaryLayout.ringFile, count: 1, recordSize: DiaryLayout.recordSize, communication: .enciphered)
                == record)

        // Taken away mid-transaction: the header written, the record's frame lost. Nothing of it is kept.
        let newer = header.map { $0 ^ 0xFF }
        try client.writeData(DiaryLayout.headerFile, offset: 0, data: newer, communication: .enciphered)
        terminal.emulator.inject(.removeCardAfterCommands(0))
        do {
            try client.writeRecord(DiaryLayout.ringFile, data: record, communication: .enciphered)
            Issue.record("a card taken away must fail the write")
        } catch {
            #expect(error.isCardGone)
        }
        #expect(!client.isAuthenticated)
        terminal.emulator.place(try #require(terminal.emulator.withChip { $0.lastRemovedCard }))
        let back = try card(try device.reselect(), device)
        try back.client.selectApplication(aid)
        try back.client.authenticate(keyNumber: DiaryLayout.diaryKey, key: diaryKey)
        #expect(
            try back.client.readData(
                DiaryLayout.headerFile, offset: 0, length: headerSize, communication: .enciphered)
                == header)
        #expect(
            try back.client.readRecords(
                DiaryLayout.ringFile, count: 1, recordSize: DiaryLayout.recordSize, communication: .enciphered)
                == record)
        // One record only: a second is beyond the ring's contents.
        #expect(throws: DESFireCommandError.status(.boundaryError)) {
            try back.client.readRecords(
                DiaryLayout.ringFile, count: 2, recordSize: DiaryLayout.recordSize, communication: .enciphered)
        }

        // A wrong key opens nothing.
        #expect(throws: DESFireCommandError.self) {
            try back.client.authenticate(keyNumber: DiaryLayout.diaryKey, key: identifyKey)
        }
        #expect(!back.client.isAuthenticated)
    }
}

/// The reader's poll with a DESFire handler, against the emulated DESFire: the handler gets the card recognised,
/// once per placement, even with a random UID that changes at every selection.
@Suite(.serialized) struct DESFireReaderTests {
    @Test(arguments: [false, true])
    func handlerServesADESFireOncePerPlacement(randomUID: Bool) async throws {
        var image = DESFireCardImage(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        image.randomUID = randomUID
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: nil))
        terminal.start()
        let served = Mutex<[DESFireVersion]>([])
        let reader = NFCReader(
            connection: "pn532_uart:\(terminal.slavePath)",
            access: KioskCardAccess(cardKey: [UInt8](repeating: 0x5C, count: 32), crypto: OpenSSLCrypto()),
            logger: Logger(label: "test"), removalCheckInterval: .milliseconds(10),
            desfire: DESFireCardHandler(crypto: OpenSSLCrypto()) { card in
                served.withLock { $0.append(card.version) }
                // The client is ready: a command in plain, no session.
                return (try? card.client.getApplicationIDs()) == [] ? .notAKioskCard(.blank) : nil
            })
        reader.start()
        defer { reader.stop() }
        var events = reader.events.makeAsyncIterator()
        terminal.emulator.place(.desfire(EmulatedDESFire(image: image, cipher: OpenSSLCrypto())))
        #expect(await events.next() == .card(.notAKioskCard(.blank)))
        // The reader keeps checking that the card is still there: after 20 more of its commands it has had every
        // chance to serve the card again, however slow the machine.
        let seen = terminal.emulator.withChip { $0.commandLog.count }
        while terminal.emulator.withChip({ $0.commandLog.count }) < seen + 20 { await Task.yield() }
        #expect(served.withLock { $0.count } == 1)
        #expect(served.withLock { $0.first?.isDESFire } == true)
        terminal.emulator.removeCard()
        #expect(await events.next() == .removed)
    }
}

/// Every communication mode against the emulated card, in one session: files in plain, MAC'd and enciphered
/// communication written and read back, long enough for frames continued with AF both ways; a standard data file
/// written at once, a backup file only at CommitTransaction, or not at all after AbortTransaction.
@Suite(.serialized) struct DESFireCommunicationModeTests {
    @Test func everyModeWrittenAndReadBack() throws {
        let card = EmulatedDESFire(uid: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], cipher: OpenSSLCrypto())
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: .desfire(card)))
        terminal.start()
        let device = try NFCDevice(connection: "pn532_uart:\(terminal.slavePath)")
        let target = try #require(try device.poll(count: 1, period: 1))
        let client = try #require(try DESFireCard.identify(target, over: device, crypto: OpenSSLCrypto())).client
        let zero = [UInt8](repeating: 0, count: 16)
        let aid = DESFireApplicationID(0x12_3456)
        try client.createApplication(aid, settings: DESFireKeySettings(rawValue: 0x0B), keyCount: 1)
        try client.selectApplication(aid)
        try client.authenticate(keyNumber: 0, key: zero)
        let rights = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)
        let data = (0..<150).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for (file, mode) in zip([UInt8(1), 2, 3], DESFireCommunication.allCases) {
            try client.createStandardDataFile(file, communication: mode, accessRights: rights, size: 160)
            try client.writeData(file, offset: 5, data: data, communication: mode)
            #expect(try client.readData(file, offset: 5, length: data.count, communication: mode) == data, "\(mode)")
            #expect(try client.getFileSettings(file).communication == mode)
        }
        try client.createBackupDataFile(4, communication: .maced, accessRights: rights, size: 32)
        try client.writeData(4, offset: 0, data: [1, 2, 3], communication: .maced)
        #expect(try client.readData(4, offset: 0, length: 3, communication: .maced) == [0, 0, 0])
        try client.abortTransaction()
        try client.writeData(4, offset: 0, data: [4, 5, 6], communication: .maced)
        try client.commitTransaction()
        #expect(try client.readData(4, offset: 0, length: 3, communication: .maced) == [4, 5, 6])
        #expect(client.isAuthenticated)
        #expect(try client.getFileIDs().sorted() == [1, 2, 3, 4])
        try client.selectApplication(.picc)
        try client.authenticate(keyNumber: 0, key: .factoryDefault)
        try client.deleteApplication(aid)
        #expect(try client.getApplicationIDs().isEmpty)
        try client.formatPICC()
        #expect(try client.getFreeMemory() > 4000)
    }
}
