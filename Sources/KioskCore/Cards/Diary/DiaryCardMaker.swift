/// Makes a MIFARE DESFire card a diary card of the region (docs/diary-card.md, "The card's layout"), at a kiosk
/// with the region's token, in staff mode:
///
/// 1. authenticates to the card master key with the card's factory key (a factory-new EV1, EV2 or EV3: DES, all
///    zeros, with AuthenticateISO; the session is then triple DES), reads the real UID (GetCardUID);
/// 2. creates the diary application (three AES keys; only its master key changes keys; no free listing);
/// 3. changes the diary and identify keys to the region's, sizes the ring from GetFreeMemory, creates the header
///    (a backup file) and the ring (a cyclic record file), both in enciphered communication, read and written with
///    the diary key only;
/// 4. changes the application master key, writes the blank header (with the holder's first settings) in a
///    transaction;
/// 5. authenticates with the factory key again, turns the random UID on and changes the card master key to the
///    region's, an AES key (ChangeKey 0x80: a DES master key becomes an AES one).
///
/// Every key has the generation as its version. A card pulled away before step 5 is not a diary card yet (no
/// complete header): the next attempt starts again after formatting it with the factory key, which still opens it.
public enum DiaryCardMaker {
    /// What making the card found.
    public struct Made: Sendable, Equatable {
        /// The card's real UID.
        public var uid: [UInt8]
        /// The ring's records (`DiaryLayout.ringRecords`).
        public var ringRecords: Int
        public var generation: UInt8
    }

    /// Makes the card behind `client` a diary card of the newest generation `keys` hold. `factoryKey`: the card
    /// master key it came with (NXP's DES default; a card a vendor delivered with another key, AES or 2K3DES, needs
    /// that key).
    public static func make(
        client: DESFireClient, keys: any RegionKeys, profile: CardProfile = .unanswered,
        factoryKey: DESFireKey = .factoryDefault,
        crypto: any DESFireCrypto
    ) throws(DiaryCardError) -> Made {
        let aid = DESFireApplicationID(bytes: DiaryLayout.aid)
        guard let generation = try? keys.generations().last else { throw .keysDoNotMatch }
        var secrets: [[UInt8]] = []
        defer { for index in secrets.indices { crypto.wipe(&secrets[index]) } }
        func key(_ purpose: DiaryKeyPurpose, _ uid: [UInt8]) throws(DiaryCardError) -> [UInt8] {
            let value = try DiaryCardLink.key(purpose, uid: uid, generation: generation, keys)
            secrets.append(value)
            return value
        }
        let zero = [UInt8](repeating: 0, count: 16)
        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(.picc) }
        try DiaryCardLink.authenticate(client, 0, factoryKey)
        let uid = try DiaryCardLink.run { () throws(DESFireCommandError) in try client.getCardUID() }
        let settings = DESFireKeySettings(
            changeKeyAccess: DiaryLayout.applicationMasterKey, configurationChangeable: true, freeCreateDelete: false,
            freeDirectoryList: false, masterKeyChangeable: true)
        let rights = DESFireAccessRights(
            read: DiaryLayout.diaryKey, write: DiaryLayout.diaryKey, readWrite: DiaryLayout.diaryKey,
            change: DiaryLayout.applicationMasterKey)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.createApplication(aid, settings: settings, keyCount: DiaryLayout.keyCount)
            try client.selectApplication(aid)
        }
        try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, zero)
        let diary = try key(.diary, uid)
        let identify = try key(.identify, uid)
        let records = try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.changeKey(DiaryLayout.diaryKey, to: diary, version: generation, currentKey: zero)
            try client.changeKey(DiaryLayout.identifyKey, to: identify, version: generation, currentKey: zero)
            return DiaryLayout.ringRecords(freeMemory: try client.getFreeMemory())
        }
        guard let records else { throw .refused("the card has too little free memory for a diary") }
        var header = DiaryHeader(ringRecords: records)
        header.profile = profile
        let blank: [UInt8]
        do { blank = try header.encoded() } catch { throw .refused("the holder's settings do not fit") }
        let master = try key(.applicationMaster, uid)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.createBackupDataFile(
                DiaryLayout.headerFile, communication: .enciphered, accessRights: rights,
                size: DiaryHeader.size(ringRecords: records))
            try client.createCyclicRecordFile(
                DiaryLayout.ringFile, communication: .enciphered, accessRights: rights,
                recordSize: DiaryLayout.recordSize, maximumRecords: records)
            try client.changeKey(DiaryLayout.applicationMasterKey, to: master, version: generation, currentKey: nil)
        }
        try DiaryCardLink.authenticate(client, DiaryLayout.diaryKey, diary)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.writeData(DiaryLayout.headerFile, offset: 0, data: blank, communication: .enciphered)
            try client.commitTransaction()
            try client.selectApplication(.picc)
        }
        try DiaryCardLink.authenticate(client, 0, factoryKey)
        let picc = try key(.piccMaster, uid)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.enableRandomUID()
            try client.changeKey(0x80, to: picc, version: generation, currentKey: nil)
        }
        return Made(uid: uid, ringRecords: records, generation: generation)
    }
}
