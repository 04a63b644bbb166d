/// The card-level and application commands of `DESFireClient` (MIFARE DESFire EV1 data sheet, command set): the
/// card's version, memory, real UID and configuration, its applications and their keys.
extension DESFireClient {
    /// GetVersion (60): the card's hardware, software and production data, in three frames.
    public func getVersion() throws(DESFireCommandError) -> DESFireVersion {
        try DESFireVersion(answer: run(0x60))
    }

    /// FormatPICC (FC): deletes every application and file. Needs the card master key's session.
    public func formatPICC() throws(DESFireCommandError) {
        try expectEmpty(run(0xFC), "FormatPICC")
    }

    /// GetFreeMemory (6E): the free bytes of the card's memory.
    public func getFreeMemory() throws(DESFireCommandError) -> Int {
        let answer = try run(0x6E)
        guard answer.count == 3 else { throw malformed("GetFreeMemory") }
        return DESFireBytes.integer(answer)
    }

    /// GetCardUID (51): the card's real 7-byte UID, enciphered in the session (any key of any application opens
    /// it). The only way to learn it once the random-ID option is on. Identifying: never log it.
    public func getCardUID() throws(DESFireCommandError) -> [UInt8] {
        try run(0x51, answer: .enciphered(length: 7))
    }

    /// SetConfiguration (5C) with option 00, the card's configuration byte, enciphered: bit 0 disables FormatPICC
    /// for good, bit 1 turns the random-ID option on for good (the anticollision UID is random at every
    /// selection). Neither can be undone. Needs the card master key's session.
    public func setPICCConfiguration(disableFormat: Bool, randomUID: Bool) throws(DESFireCommandError) {
        let configuration: UInt8 = (disableFormat ? 0x01 : 0) | (randomUID ? 0x02 : 0)
        try expectEmpty(run(0x5C, header: [0x00], data: [configuration], protection: .enciphered), "SetConfiguration")
    }

    /// Turns the random-ID option on for good (SetConfiguration, option 00, 02); formatting stays allowed.
    public func enableRandomUID() throws(DESFireCommandError) {
        try setPICCConfiguration(disableFormat: false, randomUID: true)
    }

    // MARK: - Applications

    /// SelectApplication (5A): `aid`, or the card itself (`DESFireApplicationID.picc`). Ends the session first:
    /// the card drops its authentication at a selection, and the command is sent in plain.
    public func selectApplication(_ aid: DESFireApplicationID) throws(DESFireCommandError) {
        close()
        try expectEmpty(run(0x5A, header: aid.bytes), "SelectApplication")
    }

    /// GetApplicationIDs (6A): every application's AID (frames continued with AF when there are more than 19).
    public func getApplicationIDs() throws(DESFireCommandError) -> [DESFireApplicationID] {
        let answer = try run(0x6A)
        guard answer.count % 3 == 0 else { throw malformed("GetApplicationIDs") }
        return stride(from: 0, to: answer.count, by: 3).map { DESFireApplicationID(bytes: Array(answer[$0..<$0 + 3])) }
    }

    /// CreateApplication (CA) with `keyCount` (1 to 14) AES keys, all zero and of version 0 until changed, and its
    /// key settings.
    public func createApplication(_ aid: DESFireApplicationID, settings: DESFireKeySettings, keyCount: Int)
        throws(DESFireCommandError)
    {
        guard (1...14).contains(keyCount), aid != .picc else { throw .invalidArgument("CreateApplication") }
        let aesKeys: UInt8 = 0x80
        try expectEmpty(
            run(0xCA, header: aid.bytes + [settings.rawValue, UInt8(keyCount) | aesKeys]), "CreateApplication")
    }

    /// DeleteApplication (DA).
    public func deleteApplication(_ aid: DESFireApplicationID) throws(DESFireCommandError) {
        guard aid != .picc else { throw .invalidArgument("DeleteApplication") }
        try expectEmpty(run(0xDA, header: aid.bytes), "DeleteApplication")
    }

    // MARK: - Keys

    /// ChangeKey (C4) of an AES key of the selected application to `newKey` with its key `version`; at the card
    /// level (no application selected), `keyNumber` 0x80 is the card master key as an AES key (the high bits name
    /// the key type there).
    ///
    /// Changing the key the session was opened with: `currentKey` is not needed, and the card ends the session
    /// (so does the client: authenticate again with the new key). Changing another key: `currentKey` is its
    /// current value (the cryptogram carries new ⊕ current), and the session goes on.
    public func changeKey(_ keyNumber: UInt8, to newKey: [UInt8], version: UInt8, currentKey: [UInt8]?)
        throws(DESFireCommandError)
    {
        guard let authenticated = authenticatedKeyNumber else { throw .notAuthenticated }
        let same = keyNumber & 0x0F == authenticated
        guard same || currentKey != nil else {
            throw .invalidArgument("ChangeKey of another key needs its current value")
        }
        let protection = Protection.changeKey(newKey: newKey, version: version, oldKey: same ? nil : currentKey)
        try expectEmpty(
            run(0xC4, header: [keyNumber], protection: protection, answer: same ? .endsSession : .maced), "ChangeKey")
    }

    /// GetKeyVersion (64): the version of key `keyNumber` of the selected application (or of the card).
    public func getKeyVersion(_ keyNumber: UInt8) throws(DESFireCommandError) -> UInt8 {
        let answer = try run(0x64, header: [keyNumber])
        guard answer.count == 1 else { throw malformed("GetKeyVersion") }
        return answer[0]
    }

    /// GetKeySettings (45): the selected application's (or the card's) key settings and its number of keys (the
    /// byte's low bits; the high bits name the key type, 80 for AES).
    public func getKeySettings() throws(DESFireCommandError) -> (settings: DESFireKeySettings, keyCount: Int) {
        let answer = try keySettingsAnswer()
        return (DESFireKeySettings(rawValue: answer[0]), Int(answer[1] & 0x0F))
    }

    /// Whether the selected application's (or at the PICC level the card master key's) keys are AES keys, from
    /// GetKeySettings' key-type bits (80); a factory-new card's master key is DES (00).
    public func keysAreAES() throws(DESFireCommandError) -> Bool {
        try keySettingsAnswer()[1] & 0xC0 == 0x80
    }

    private func keySettingsAnswer() throws(DESFireCommandError) -> [UInt8] {
        let answer = try run(0x45)
        guard answer.count == 2 else { throw malformed("GetKeySettings") }
        return answer
    }

    /// ChangeKeySettings (54): new key settings, enciphered. Needs the master key's session.
    public func changeKeySettings(_ settings: DESFireKeySettings) throws(DESFireCommandError) {
        try expectEmpty(run(0x54, data: [settings.rawValue], protection: .enciphered), "ChangeKeySettings")
    }

    // MARK: - Helpers

    /// `answer`, which must be empty (the command answers with its status only).
    func expectEmpty(_ answer: [UInt8], _ command: String) throws(DESFireCommandError) {
        guard answer.isEmpty else { throw malformed(command) }
    }

    /// A malformed answer ends the session like any error.
    func malformed(_ command: String) -> DESFireCommandError {
        close()
        return .malformedResponse(command)
    }
}
