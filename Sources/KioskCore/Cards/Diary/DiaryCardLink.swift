/// A diary card in the field, opened with the region's keys (docs/diary-card.md): the `DiaryCardFiles` a
/// `DiaryDesk` works through, over the DESFire commands of `DESFireClient`.
///
/// Opening selects the diary application, reads the identify key's version (the card's key generation, readable
/// without a key), authenticates with that generation's identify key, reads the card's real UID (GetCardUID,
/// enciphered) and authenticates with the card's own diary key, diversified from the UID. A card of an older
/// generation that the kiosk still holds is re-keyed to the newest first (`open(…rekey:)`), so that a retired
/// generation's token stops opening it. The diary key lives in this value until `close()`, which wipes it.
public final class DiaryCardLink: DiaryCardFiles {
    public let uid: [UInt8]
    /// The card's key generation after opening (after any re-keying).
    public let generation: UInt8
    private let client: DESFireClient
    private let crypto: any DESFireCrypto
    private var diaryKey: [UInt8]

    private init(
        client: DESFireClient, crypto: any DESFireCrypto, uid: [UInt8], generation: UInt8,
        diaryKey: [UInt8]
    ) {
        self.client = client
        self.crypto = crypto
        self.uid = uid
        self.generation = generation
        self.diaryKey = diaryKey
    }

    deinit { close() }

    /// Wipes the diary key and ends the card's session.
    public func close() {
        crypto.wipe(&diaryKey)
        client.close()
    }

    /// Opens the diary of the card behind `client`. `rekey`: move a card of an older generation to the newest.
    public static func open(
        client: DESFireClient, keys: any RegionKeys, crypto: any DESFireCrypto, rekey: Bool = true
    ) throws(DiaryCardError) -> DiaryCardLink {
        let aid = DESFireApplicationID(bytes: DiaryLayout.aid)
        do { try client.selectApplication(aid) } catch {
            if error == .status(.applicationNotFound) { throw .notADiaryCard }
            throw DiaryCardError(error)
        }
        let generations: [UInt8]
        do { generations = try keys.generations() } catch { throw .keysDoNotMatch }
        let cardGeneration = try run { () throws(DESFireCommandError) in
            try client.getKeyVersion(DiaryLayout.identifyKey)
        }
        guard generations.contains(cardGeneration) else { throw .keysDoNotMatch }
        // The identify key's input has no UID (`DiaryDiversification` puts zeros in its place): any 7 bytes do.
        var identify = try key(.identify, uid: [UInt8](repeating: 0, count: 7), generation: cardGeneration, keys)
        defer { crypto.wipe(&identify) }
        try authenticate(client, DiaryLayout.identifyKey, identify)
        let uid = try run { () throws(DESFireCommandError) in try client.getCardUID() }
        var generation = cardGeneration
        if rekey, let newest = generations.last, newest != cardGeneration {
            try DiaryCardRekeying.rekey(
                client: client, uid: uid, from: cardGeneration, to: newest, keys: keys, crypto: crypto)
            generation = newest
        }
        var diaryKey = try key(.diary, uid: uid, generation: generation, keys)
        do {
            try authenticate(client, DiaryLayout.diaryKey, diaryKey)
        } catch {
            crypto.wipe(&diaryKey)
            throw error
        }
        return DiaryCardLink(client: client, crypto: crypto, uid: uid, generation: generation, diaryKey: diaryKey)
    }

    static let kioskSecretLabel = Array("CheckInKiosk diary card secret v1".utf8)

    /// The card's secret for the station (`DiaryCardOnReader.secret`): the first 16 bytes of SHA-256 over a label
    /// and the card's diary key. The same card gives the same secret at every tap until its keys move to a newer
    /// generation; only a holder of the region's keys can compute it. It opens no stay.
    public func kioskSecret() throws(DiaryCardError) -> CardSecret {
        var message = Self.kioskSecretLabel + diaryKey
        defer { crypto.wipe(&message) }
        guard var digest = try? crypto.sha256(message) else { throw .refused("the kiosk's hash failed") }
        defer { crypto.wipe(&digest) }
        guard let secret = try? CardSecret(kind: .visitor, entropy: Array(digest.prefix(CardSecret.entropyLength)))
        else { throw .refused("the kiosk's hash failed") }
        return secret
    }

    // MARK: DiaryCardFiles

    public func readHeader() throws(DiaryCardError) -> [UInt8] {
        let start = try run { () throws(DESFireCommandError) in
            try client.readData(
                DiaryLayout.headerFile, offset: 0, length: DiaryHeader.fixedBytes, communication: .enciphered)
        }
        guard start.count == DiaryHeader.fixedBytes, (2...DiaryHeader.maximumRingRecords).contains(Int(start[10]))
        else {
            return start
        }
        let size = DiaryHeader.size(ringRecords: Int(start[10]))
        let rest = try run { () throws(DESFireCommandError) in
            try client.readData(
                DiaryLayout.headerFile, offset: DiaryHeader.fixedBytes, length: size - DiaryHeader.fixedBytes,
                communication: .enciphered)
        }
        return start + rest
    }

    public func readHeader(offset: Int, count: Int) throws(DiaryCardError) -> [UInt8] {
        try run { () throws(DESFireCommandError) in
            try client.readData(DiaryLayout.headerFile, offset: offset, length: count, communication: .enciphered)
        }
    }

    public func readRecord(fromNewest: Int) throws(DiaryCardError) -> [UInt8]? {
        do {
            return try client.readRecords(
                DiaryLayout.ringFile, newest: fromNewest, count: 1, recordSize: DiaryLayout.recordSize,
                communication: .enciphered)
        } catch {
            if error == .status(.boundaryError) {
                try reauthenticate()
                return nil
            }
            throw DiaryCardError(error)
        }
    }

    public func readRing(count: Int) throws(DiaryCardError) -> [[UInt8]] {
        guard count > 0 else { return [] }
        let bytes = try run { () throws(DESFireCommandError) in
            try client.readRecords(
                DiaryLayout.ringFile, newest: 0, count: count, recordSize: DiaryLayout.recordSize,
                communication: .enciphered)
        }
        return stride(from: 0, to: bytes.count, by: DiaryLayout.recordSize).map {
            Array(bytes[$0..<min($0 + DiaryLayout.recordSize, bytes.count)])
        }
    }

    public func write(header changes: [DiaryHeaderChange], appending record: [UInt8]?) throws(DiaryCardError) {
        try transaction { () throws(DESFireCommandError) in
            for change in changes {
                try client.writeData(
                    DiaryLayout.headerFile, offset: change.offset, data: change.bytes, communication: .enciphered)
            }
            if let record {
                try client.writeRecord(DiaryLayout.ringFile, data: record, communication: .enciphered)
            }
        }
    }

    public func clearRing(header: [UInt8]) throws(DiaryCardError) {
        try transaction { () throws(DESFireCommandError) in
            try client.writeData(DiaryLayout.headerFile, offset: 0, data: header, communication: .enciphered)
            try client.clearRecordFile(DiaryLayout.ringFile)
        }
    }

    // MARK: Plumbing

    /// Runs the writes, then CommitTransaction. After a failure the card has dropped the session and, when it is
    /// still in the field, the uncommitted writes (a new authentication aborts them, as does AbortTransaction).
    private func transaction(_ writes: () throws(DESFireCommandError) -> Void) throws(DiaryCardError) {
        do {
            try writes()
            try client.commitTransaction()
        } catch {
            if !error.isCardGone { try? client.abortTransaction() }
            throw DiaryCardError(error)
        }
    }

    /// A refused command ended the session: authenticate again with the diary key.
    private func reauthenticate() throws(DiaryCardError) {
        try Self.authenticate(client, DiaryLayout.diaryKey, diaryKey)
    }

    private func run<T>(_ body: () throws(DESFireCommandError) -> T) throws(DiaryCardError) -> T {
        try Self.run(body)
    }

    static func run<T>(_ body: () throws(DESFireCommandError) -> T) throws(DiaryCardError) -> T {
        do { return try body() } catch { throw DiaryCardError(error) }
    }

    static func authenticate(_ client: DESFireClient, _ number: UInt8, _ key: [UInt8]) throws(DiaryCardError) {
        try authenticate(client, number, DESFireKey.aes(key))
    }

    static func authenticate(_ client: DESFireClient, _ number: UInt8, _ key: DESFireKey) throws(DiaryCardError) {
        do { try client.authenticate(keyNumber: number, key: key) } catch {
            if error.isCardGone { throw .cardGone }
            throw .keysDoNotMatch
        }
    }

    static func key(_ purpose: DiaryKeyPurpose, uid: [UInt8], generation: UInt8, _ keys: any RegionKeys)
        throws(DiaryCardError) -> [UInt8]
    {
        do { return try keys.cardKey(purpose, uid: uid, aid: DiaryLayout.aid, generation: generation) } catch {
            throw .keysDoNotMatch
        }
    }
}

extension DiaryCardError {
    /// A DESFire command's failure as the diary sees it: gone, or refused with the status's name (no data).
    init(_ error: DESFireCommandError) {
        self = error.isCardGone ? .cardGone : .refused(error.description)
    }
}
