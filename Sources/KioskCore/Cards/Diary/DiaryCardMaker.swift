/// Makes a MIFARE DESFire card a diary card of the region (docs/diary-card.md, "The card's layout"), at a kiosk
/// with the region's token, in staff mode:
///
/// 1. authenticates to the card master key with the card's factory key (a factory-new EV1, EV2 or EV3: DES, all
///    zeros, with AuthenticateISO; the session is then triple DES), removes a diary application an earlier attempt
///    left, reads the real UID (GetCardUID);
/// 2. creates the diary application (three AES keys, all zero; only its master key changes keys; no free listing),
///    sizes the ring from GetFreeMemory, creates the header (a backup file) and the ring (a cyclic record file), both
///    in enciphered communication, read and written with the diary key only, and writes the blank header (with the
///    holder's first settings) in a transaction;
/// 3. changes the diary key and the application master key to the region's, and the identify key last: its version
///    is what a kiosk reads as the card's generation, so until then the card reads as one still to be made
///    (`DiaryCardPlacement`);
/// 4. `finish`: changes the card master key to the region's (an AES key: ChangeKey 0x80), then turns the random UID
///    on.
///
/// Every key has the generation as its version. A card pulled away before step 3 is done is made again from the
/// start (its card master key is still the factory's); one pulled away in step 4 is a diary card whose UID is not
/// random yet, finished at its next read (`DiaryCardPlacement.read`).
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
        let uid = try DiaryCardLink.run { () throws(DESFireCommandError) in
            // An attempt pulled away left its application: start again without it.
            let applications = try client.getApplicationIDs()
            if applications == [aid] {
                try client.formatPICC()
            } else if applications.contains(aid) {
                try client.deleteApplication(aid)
            }
            return try client.getCardUID()
        }
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
        let records = try DiaryCardLink.run { () throws(DESFireCommandError) in
            DiaryLayout.ringRecords(freeMemory: try client.getFreeMemory())
        }
        guard let records else { throw .refused("the card has too little free memory for a diary") }
        var header = DiaryHeader(ringRecords: records)
        header.profile = profile
        let blank: [UInt8]
        do { blank = try header.encoded() } catch { throw .refused("the holder's settings do not fit") }
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.createBackupDataFile(
                DiaryLayout.headerFile, communication: .enciphered, accessRights: rights,
                size: DiaryHeader.size(ringRecords: records))
            try client.createCyclicRecordFile(
                DiaryLayout.ringFile, communication: .enciphered, accessRights: rights,
                recordSize: DiaryLayout.recordSize, maximumRecords: records)
        }
        try DiaryCardLink.authenticate(client, DiaryLayout.diaryKey, zero)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.writeData(DiaryLayout.headerFile, offset: 0, data: blank, communication: .enciphered)
            try client.commitTransaction()
        }
        try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, zero)
        let diary = try key(.diary, uid)
        let master = try key(.applicationMaster, uid)
        let identify = try key(.identify, uid)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.changeKey(DiaryLayout.diaryKey, to: diary, version: generation, currentKey: zero)
            try client.changeKey(DiaryLayout.applicationMasterKey, to: master, version: generation, currentKey: nil)
        }
        try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, master)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.changeKey(DiaryLayout.identifyKey, to: identify, version: generation, currentKey: zero)
        }
        try finish(client: client, uid: uid, generation: generation, keys: keys, factoryKey: factoryKey, crypto: crypto)
        return Made(uid: uid, ringRecords: records, generation: generation)
    }

    /// The last step of making a card: its card master key changed to the region's of `generation`, unless it is an
    /// AES key already, then the random UID turned on. Leaves the card at the PICC level, with no session.
    static func finish(
        client: DESFireClient, uid: [UInt8], generation: UInt8, keys: any RegionKeys,
        factoryKey: DESFireKey = .factoryDefault, crypto: any DESFireCrypto
    ) throws(DiaryCardError) {
        var picc = try DiaryCardLink.key(.piccMaster, uid: uid, generation: generation, keys)
        defer { crypto.wipe(&picc) }
        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(.picc) }
        if !(try DiaryCardLink.run { () throws(DESFireCommandError) in try client.keysAreAES() }) {
            try DiaryCardLink.authenticate(client, 0, factoryKey)
            try DiaryCardLink.run { () throws(DESFireCommandError) in
                try client.changeKey(0x80, to: picc, version: generation, currentKey: nil)
            }
        }
        try DiaryCardLink.authenticate(client, 0, picc)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.enableRandomUID()
            client.close()
        }
    }
}
