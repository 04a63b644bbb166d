/// Moves a diary card to a newer key generation at a tap (docs/diary-card.md, "The region's keys"): the
/// application's three keys and the card master key are changed to the new generation's, each with the new
/// generation as its key version. Each ChangeKey is atomic on the card; a card pulled away half-way holds some keys
/// of each generation and is finished at its next tap (every key's version says which generation it has).
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
        let oldMaster = try key(.applicationMaster, old)
        try DiaryCardLink.authenticate(client, DiaryLayout.applicationMasterKey, oldMaster)
        for (number, purpose) in [(DiaryLayout.diaryKey, DiaryKeyPurpose.diary), (DiaryLayout.identifyKey, .identify)] {
            let version = try DiaryCardLink.run { () throws(DESFireCommandError) in try client.getKeyVersion(number) }
            guard version != new else { continue }
            let current = try key(purpose, old)
            let next = try key(purpose, new)
            try DiaryCardLink.run { () throws(DESFireCommandError) in
                try client.changeKey(number, to: next, version: new, currentKey: current)
            }
        }
        let newMaster = try key(.applicationMaster, new)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.changeKey(DiaryLayout.applicationMasterKey, to: newMaster, version: new, currentKey: nil)
        }
        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(.picc) }
        let oldPICC = try key(.piccMaster, old)
        try DiaryCardLink.authenticate(client, 0, oldPICC)
        let newPICC = try key(.piccMaster, new)
        try DiaryCardLink.run { () throws(DESFireCommandError) in
            try client.changeKey(0x80, to: newPICC, version: new, currentKey: nil)
        }
        try DiaryCardLink.run { () throws(DESFireCommandError) in try client.selectApplication(aid) }
    }
}
