import KioskCore
import KioskOpenSSL

/// The region's key schedule of docs/diary-card.md computed in memory, for tests of what is built on `RegionKeys`
/// (the kiosk's own implementation keeps the keys in a PKCS #11 token): AN10922 card keys, the day ratchet
/// K(d + 1) = AES-128-ECB(K(d), "kiosk day ratchet"), stay material CMAC(K(d), 05 ‖ UID).
final class SoftwareRegionKeys: RegionKeys, @unchecked Sendable {
    let systemIdentifier: [UInt8]
    private let cardMaster: [UInt8]
    private(set) var oldestDay: DiaryDay
    /// Generations 1 … this are held; generation N's card master key is the first's with its last byte ⊕ (N − 1).
    var newestGeneration: UInt8 = 1
    private var oldestKey: [UInt8]
    private let cipher = OpenSSLCrypto()

    init(cardMaster: [UInt8], dayKey: [UInt8], day: DiaryDay, region: String = "test region") {
        self.cardMaster = cardMaster
        self.oldestKey = dayKey
        self.oldestDay = day
        let name = Array(region.utf8.prefix(20))
        self.systemIdentifier = name + [UInt8](repeating: 0, count: 20 - name.count)
    }

    func generations() throws(RegionKeyError) -> [UInt8] { Array(1...newestGeneration) }

    func cardKey(_ purpose: DiaryKeyPurpose, uid: [UInt8], aid: [UInt8], generation: UInt8) throws(RegionKeyError)
        -> [UInt8]
    {
        guard (1...newestGeneration).contains(generation) else { throw .unknownGeneration(generation) }
        var master = cardMaster
        master[master.count - 1] ^= generation - 1
        guard
            let input = try? DiaryDiversification.input(
                purpose: purpose, uid: uid, aid: aid, systemIdentifier: systemIdentifier)
        else { throw .token("diversification input") }
        do { return try AN10922.diversifyAES128(masterKey: master, input: input, cipher: cipher) } catch {
            throw .token("AN10922")
        }
    }

    func stayKeyMaterial(day: DiaryDay, uid: [UInt8], today: DiaryDay) throws(RegionKeyError) -> [UInt8] {
        guard day >= oldestDay, day <= today else { throw .dayUnavailable(day) }
        var key = oldestKey
        do {
            for _ in oldestDay..<day { key = try cipher.aes128ECBEncrypt(key: key, blocks: DayRatchet.stepInput) }
            return try cipher.aes128CMAC(key: key, message: [DiaryDiversification.stayPurpose] + uid)
        } catch {
            throw .token("ratchet")
        }
    }

    func advance(today: DiaryDay) throws(RegionKeyError) {
        let target = DiaryRetention.oldestOpenDay(today: today)
        while oldestDay < target {
            do { oldestKey = try cipher.aes128ECBEncrypt(key: oldestKey, blocks: DayRatchet.stepInput) } catch {
                throw .token("ratchet")
            }
            oldestDay += 1
        }
    }
}

/// A diary card's two files in memory, with DESFire's transaction: `write` changes all or nothing, and a test can
/// make the card leave before the commit.
final class MemoryDiaryCard: DiaryCardFiles {
    let uid: [UInt8]
    let ringRecords: Int
    var header: [UInt8]
    /// Oldest first; at most `ringRecords − 1`.
    var ring: [[UInt8]] = []
    /// The next `write` finds the card gone.
    var leaveBeforeCommit = false
    private(set) var ringReads = 0
    private(set) var writes = 0

    init(uid: [UInt8], ringRecords: Int = 28) {
        self.uid = uid
        self.ringRecords = ringRecords
        self.header = try! DiaryHeader(ringRecords: ringRecords).encoded()
    }

    func readHeader() throws(DiaryCardError) -> [UInt8] { header }

    private(set) var headerBytesRead = 0
    func readHeader(offset: Int, count: Int) throws(DiaryCardError) -> [UInt8] {
        headerBytesRead += count
        return Array(header[offset..<min(header.count, offset + count)])
    }

    func readRecord(fromNewest: Int) throws(DiaryCardError) -> [UInt8]? {
        guard fromNewest >= 0, fromNewest < ring.count else { return nil }
        return ring[ring.count - 1 - fromNewest]
    }

    func readRing(count: Int) throws(DiaryCardError) -> [[UInt8]] {
        ringReads += 1
        guard count <= ring.count else { throw .refused("BOUNDARY_ERROR (BE)") }
        return Array(ring.suffix(count))
    }

    /// Every header change written, in order (for tests of what a tap writes).
    private(set) var headerChanges: [DiaryHeaderChange] = []

    func write(header changes: [DiaryHeaderChange], appending record: [UInt8]?) throws(DiaryCardError) {
        if leaveBeforeCommit {
            leaveBeforeCommit = false
            throw .cardGone
        }
        writes += 1
        headerChanges += changes
        for change in changes {
            header.replaceSubrange(change.offset..<change.offset + change.bytes.count, with: change.bytes)
        }
        if let record {
            ring.append(record)
            if ring.count > ringRecords - 1 { ring.removeFirst() }
        }
    }

    func clearRing(header: [UInt8]) throws(DiaryCardError) {
        if leaveBeforeCommit {
            leaveBeforeCommit = false
            throw .cardGone
        }
        writes += 1
        self.header = header
        ring = []
    }
}
