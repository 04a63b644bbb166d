public import KioskCore
internal import Synchronization

/// The region's keys (`RegionKeys`, docs/diary-card.md) served by a kiosk's PKCS #11 token. The token holds, as
/// sensitive keys (`RegionKeyLabels`):
///
/// - `region-card-g<N>`: the card master key of generation N. A card's key is the token's AES-CMAC (`CKM_AES_CMAC`)
///   of AN10922's D = 01 ‖ M for the 31-byte M of `DiaryDiversification`, which is exactly NXP AN10922's AES-128
///   diversification: the master key is used inside the token only.
/// - `region-day`: the ratchet's oldest key K(d₀), its day d₀ in its **`CKA_ID`** (4 bytes, big-endian:
///   `RegionKeyLabels.dayID`), so the label stays the one the design names and the day is read without parsing one.
///   K(d) for a later day is derived inside the token by d − d₀ steps of `CKM_AES_ECB_ENCRYPT_DATA` over
///   `DayRatchet.stepInput`, as session objects destroyed after use, errors included.
///
/// **A step of the ratchet that is interrupted** (power cut, crash) leaves no gap and no second key for good: a step
/// first derives K(d₀ + 1) as a token object (`region-day`, `CKA_ID` d₀ + 1) and only then destroys K(d₀). A stop
/// between the two leaves both; whoever next reads the day key (`stayKeyMaterial`, `advance`, the commands) keeps the
/// one of the latest day and destroys the others, which finishes the step. A stop before the derivation leaves K(d₀)
/// alone, as if the step had not begun. So the token never holds no day key, and holds two only until its next use.
///
/// What it returns (a card's key, a stay's key material) is plain bytes the caller wipes. Errors are
/// `RegionKeyError`: `.token` names the function and the `CKR_…` code only (or the label that is missing), never a
/// key or a UID.
///
/// A daemon opens it from the configuration's `region` section: the module (`PKCS11Module(path:)`, once per process),
/// a session with the token labelled `region.token` logged in with the PIN of the credential `region.pinCredential`,
/// and the region's name (`region.name`): `PKCS11RegionKeys.open(module:configuration:pin:)`.
public final class PKCS11RegionKeys: RegionKeys {
    public let systemIdentifier: [UInt8]
    /// The logged-in session with the region's token.
    public let session: PKCS11Session
    /// One day-key operation at a time: a step of `advance` and a `stayKeyMaterial` must not see each other half-way.
    let dayLock = Mutex(())

    /// The region's keys in the token `session` is logged in to, for the region whose system identifier is
    /// `regionName`'s UTF-8 zero-padded or cut to 20 bytes.
    public convenience init(session: PKCS11Session, regionName: String) {
        self.init(session: session, systemIdentifier: DiaryDiversification.systemIdentifier(regionName: regionName))
    }

    /// As above, from the 20-byte system identifier itself (fitted to 20 bytes).
    public init(session: PKCS11Session, systemIdentifier: [UInt8]) {
        self.session = session
        self.systemIdentifier = DiaryDiversification.fitted(systemIdentifier)
    }

    /// Opens the token of the configuration's `region` section through `module` and logs in with `pin` (read from
    /// the credential `region.pinCredential`): what a daemon does at start.
    public static func open(module: PKCS11Module, configuration: KioskConfiguration.Region, pin: PKCS11PIN)
        throws(PKCS11Error) -> PKCS11RegionKeys
    {
        let session = try module.openSession(tokenLabel: configuration.token, pin: pin)
        return PKCS11RegionKeys(session: session, regionName: configuration.name)
    }

    // MARK: RegionKeys

    public func generations() throws(RegionKeyError) -> [UInt8] {
        try mapped { () throws(PKCS11Error) in try cardGenerations() }
    }

    public func cardKey(_ purpose: DiaryKeyPurpose, uid: [UInt8], aid: [UInt8], generation: UInt8)
        throws(RegionKeyError) -> [UInt8]
    {
        let input: [UInt8]
        do throws(DiaryDiversification.InputError) {
            input = try DiaryDiversification.input(
                purpose: purpose, uid: uid, aid: aid, systemIdentifier: systemIdentifier)
        } catch {
            switch error {
            case .uidLength(let count): throw .token("a card's UID has 7 bytes, not \(count)")
            case .aidLength(let count): throw .token("an application's AID has 3 bytes, not \(count)")
            }
        }
        var message = DiaryDiversification.message(input: input)
        defer { Self.wipe(&message) }
        let label = RegionKeyLabels.card(generation: generation)
        let master: PKCS11SecretKey
        do throws(PKCS11Error) {
            master = try session.findSecretKey(label: label, allowing: .underTrustedKeys)
        } catch .keyNotFound {
            throw .unknownGeneration(generation)
        } catch {
            throw Self.regionError(error)
        }
        return try mapped { () throws(PKCS11Error) in try session.cmac(message, key: master) }
    }

    public func stayKeyMaterial(day: DiaryDay, uid: [UInt8], today: DiaryDay) throws(RegionKeyError) -> [UInt8] {
        guard uid.count == DiaryDiversification.uidLength else {
            throw .token("a card's UID has 7 bytes, not \(uid.count)")
        }
        return try dayLock.withLock { _ throws(RegionKeyError) -> [UInt8] in
            let (oldest, oldestDay) = try mapped { () throws(PKCS11Error) in try currentDayKey() }
            guard let steps = DayRatchet.stepsToReach(day: day, from: oldestDay, today: today) else {
                throw .dayUnavailable(day)
            }
            var message = [DiaryDiversification.stayPurpose] + uid
            defer { Self.wipe(&message) }
            return try mapped { () throws(PKCS11Error) in
                try withDayKey(from: oldest, steps: steps) { (key) throws(PKCS11Error) in
                    try session.cmac(message, key: key)
                }
            }
        }
    }

    public func advance(today: DiaryDay) throws(RegionKeyError) {
        try dayLock.withLock { _ throws(RegionKeyError) in
            try mapped { () throws(PKCS11Error) in
                var (key, day) = try currentDayKey()
                for _ in 0..<DayRatchet.stepsToAdvance(from: day, today: today) {
                    (key, day) = try step(key, day)
                }
            }
        }
    }

    // MARK: The ratchet inside the token

    /// Derives K(`day` + 1) from K(`day`) as the token's new `region-day`, then destroys K(`day`): in this order, so
    /// that a stop between the two leaves two day keys, which `currentDayKey` reduces to the newer.
    func step(_ key: PKCS11SecretKey, _ day: DiaryDay) throws(PKCS11Error) -> (PKCS11SecretKey, DiaryDay) {
        let next = try session.deriveAESKey(
            from: key, .aesECBEncryptData(DayRatchet.stepInput), label: RegionKeyLabels.day, usage: [.derive, .mac],
            export: .underTrustedKeys, id: RegionKeyLabels.dayID(day + 1))
        try session.destroy(key)
        return (next, day + 1)
    }

    /// The token's day key and its day. Finishes a step that was interrupted (two day keys: the newest is kept, the
    /// older destroyed). Throws `.keyNotFound("region-day")` on a token that has none.
    func currentDayKey() throws(PKCS11Error) -> (PKCS11SecretKey, DiaryDay) {
        var found: [(key: PKCS11SecretKey, day: DiaryDay)] = []
        for key in try session.secretKeys(labelled: RegionKeyLabels.day) where try session.isOnToken(key) {
            guard let day = RegionKeyLabels.day(fromID: try session.id(of: key)) else {
                throw .keyNotUsable(label: RegionKeyLabels.day, reason: "its CKA_ID is not a day (4 bytes)")
            }
            found.append((key, day))
        }
        guard let newest = found.max(by: { $0.day < $1.day }) else {
            throw .keyNotFound(label: RegionKeyLabels.day)
        }
        for older in found where older.key != newest.key {
            try session.destroy(older.key)
        }
        return newest
    }

    /// Runs `body` with K(d₀ + `steps`): `base` itself for no step, else a session object derived `steps` times,
    /// every intermediate destroyed as soon as the next exists and the last once `body` is done, errors included
    /// (a destruction the token refuses leaves a session object, which the session's end removes).
    func withDayKey<Result>(
        from base: PKCS11SecretKey, steps: Int, _ body: (PKCS11SecretKey) throws(PKCS11Error) -> Result
    ) throws(PKCS11Error) -> Result {
        var current = base
        defer { if current != base { try? session.destroy(current) } }
        for _ in 0..<steps {
            let next = try session.deriveAESKey(
                from: current, .aesECBEncryptData(DayRatchet.stepInput), label: "region-day-step",
                usage: [.derive, .mac], onToken: false)
            let previous = current
            // The newest is the one the deferred destruction removes, whatever fails next.
            current = next
            if previous != base { try session.destroy(previous) }
        }
        return try body(current)
    }

    /// The generations of the card master keys on the token, oldest first.
    func cardGenerations() throws(PKCS11Error) -> [UInt8] {
        let labels = try session.secretKeys().map(\.label)
        return Set(labels.compactMap(RegionKeyLabels.generation(ofLabel:))).sorted()
    }

    // MARK: Errors and wiping

    /// `body`'s PKCS #11 error as a `RegionKeyError`.
    func mapped<Result>(_ body: () throws(PKCS11Error) -> Result) throws(RegionKeyError) -> Result {
        do throws(PKCS11Error) {
            return try body()
        } catch {
            throw Self.regionError(error)
        }
    }

    /// `.token` with the function and the `CKR_…` code of a failed call, or what else failed (a missing key's label).
    static func regionError(_ error: PKCS11Error) -> RegionKeyError {
        switch error {
        case .failed(let function, let code): .token("\(function): \(code.name)")
        default: .token(error.description)
        }
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            for index in raw.indices { raw[index] = 0 }
        }
    }
}
