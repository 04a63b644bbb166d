/// Moves a diary card to a newer key generation at a tap (docs/diary-card.md, "The region's keys"): the card master
/// key and the application's three keys are changed to the new generation's, each with the new generation as its key
/// version.
///
/// Each ChangeKey is atomic on the card, and a card pulled away half-way holds some keys of each generation; every
/// key's version says which. The identify key's version is what a kiosk reads as the card's generation
/// (`DiaryCardLink.open`), so it is changed last: until it is, every tap re-keys again, and each step skips a key
/// whose version is already the new one. The card master key goes first, so that no torn re-key leaves it on a
/// generation that is later retired. (A card master key on a generation the token no longer holds is left as it is:
/// the card keeps working, only its formatting needs that generation.)
enum DiaryCardRekeying {
    static func rekey(
        client: DESFireClient, uid: [UInt8], from old: UInt8, to new: UInt8, keys: any RegionKeys,
        crypto: any DESFireCrypto
    ) throws(DiaryCardError) {
        let aid = DESFireApplicationID(bytes: DiaryLayout.aid)
        var wiped: [[UInt8]] = []
        defer { for index in wiped.indices { crypto.wipe(&wiped[index]) } }
        func key(_ purpose: DiaryKeyPurpose, _ generation: UInt8) throws(DiaryCardError) -> [UInt8] {
            let value = try DiaryCardLink.key(purpose, uid: uid, generation: generation, keys)
            wiped.append(value)
            return value
        }
        func version(_ number: UInt8) throws(DiaryCardError) -> UInt8 {
            try DiaryCardLink.run { () throws(DESFireCommandError) in try client.getKeyVersion(number) }
        }
        let held: [UInt8]
        do { held = try keys.generations() } catch { throw .keysDoNotMatch }

        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(.picc) }
        let picc = try version(0)
        if picc != new, held.contains(picc) {
            try DiaryCardLink.authenticate(client, 0, try key(.piccMaster, picc))
            let newPICC = try key(.piccMaster, new)
            try DiaryCardLink.run { () throws(DESFireCommandError) in
                try client.changeKey(0x80, to: newPICC, version: new, currentKey: nil)
            }
        }

        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(aid) }
        let master = try version(DiaryLayout.applicationMasterKey) == new ? new : old
        try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, try key(.applicationMaster, master))
        func change(_ number: UInt8, _ purpose: DiaryKeyPurpose) throws(DiaryCardError) {
            guard try version(number) != new else { return }
            let current = try key(purpose, old)
            let next = try key(purpose, new)
            try DiaryCardLink.run { () throws(DESFireCommandError) in
                try client.changeKey(number, to: next, version: new, currentKey: current)
            }
        }
        try change(DiaryLayout.diaryKey, .diary)
        if master != new {
            let newMaster = try key(.applicationMaster, new)
            try DiaryCardLink.run { () throws(DESFireCommandError) in
                try client.changeKey(DiaryLayout.applicationMasterKey, to: newMaster, version: new, currentKey: nil)
            }
            try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, newMaster)
        }
        try change(DiaryLayout.identifyKey, .identify)
    }
}
