/// What the kiosk remembers of a card besides its stays: the holder's own choices, sealed under the card's record key
/// like a stay (nobody without the card can read them) and deleted with the card's data ("delete all", "block my
/// card", a wipe).
///
/// - `matchingAllowed`: the holder's answer to "may this kiosk check your check-ins against warnings?" (asked at
///   enrolment and changeable in the session). `nil` — never answered — counts as no: such a card is never matched.
/// - `pin`: an optional PIN's verifier, HMAC-SHA256 under the card's record key over a label and the digits; the
///   digits themselves are never stored. Wrong PINs are counted here (`wrongPINs`, back to zero only with the right
///   PIN), and from `CardProfile.pinAttempts` of them on the session is locked until `lockedUntil` (UNIX seconds),
///   longer after each further wrong PIN: the limit survives a restart because it is stored.
/// - `language` and `alwaysSpeak`: how the kiosk talks to this holder.
/// - `acknowledgedWarning`: a diary card's only (docs/diary-card.md): what tells the warning its holder read and
///   acknowledged last (`acknowledgement(of:using:)`: its exposure days, the same at every kiosk of the region), kept
///   on the card, so that no kiosk tells it again and none keeps a record of it. A kiosk card's acknowledgements are
///   the station's.
public struct CardProfile: Sendable, Equatable {
    public var matchingAllowed: Bool?
    public var pinVerifier: [UInt8]?
    public var wrongPINs: Int
    public var lockedUntil: Int64?
    public var language: String?
    public var alwaysSpeak: Bool
    public var acknowledgedWarning: [UInt8]?

    /// How many bytes a profile keeps of an acknowledgement.
    public static let acknowledgedTagBytes = 8
    static let acknowledgementLabel = Array("CheckInKiosk warning days v1".utf8)

    /// What a diary card keeps of an acknowledged `warning`: the first 8 bytes of SHA-256 over a label and its
    /// exposure days. Unlike the station's tag it needs no kiosk's key, so that every kiosk of the region recognises
    /// it; it lies in the card's enciphered header, beside the stays it is about. nil when the hash fails.
    public static func acknowledgement(of warning: WarningNotice, using crypto: some CryptoProvider) -> [UInt8]? {
        var message = acknowledgementLabel
        for day in warning.exposureDays {
            for shift in stride(from: 56, through: 0, by: -8) {
                message.append(UInt8(truncatingIfNeeded: day >> shift))
            }
        }
        return (try? crypto.sha256(message)).map { Array($0.prefix(acknowledgedTagBytes)) }
    }

    /// Whether `warning` is the one its holder acknowledged last (compared in constant time).
    public func acknowledges(_ warning: WarningNotice, using crypto: some CryptoProvider) -> Bool {
        guard let acknowledgedWarning, let acknowledgement = Self.acknowledgement(of: warning, using: crypto) else {
            return false
        }
        return crypto.constantTimeEquals(acknowledgedWarning, acknowledgement)
    }

    /// Wrong PINs in a row before the card's session is locked.
    public static let pinAttempts = 5
    /// How long the first lock lasts.
    public static let firstLockSeconds: Int64 = 3600
    /// The count is kept up to this (it fits the profile's byte; the lock has long outgrown any stay by then).
    public static let maxCountedPINs = 255

    /// How long the session is locked after `wrong` wrong PINs in a row: not before `pinAttempts`; then an hour,
    /// doubling with each further wrong PIN (2 h, 4 h, … — 2^20 hours at most). A guesser gets 13 tries in 14 days
    /// (5 at once, then one at 1, 3, 7, 15, 31, 63, 127 and 255 hours): 0.13 % of a 4-digit PIN's 10,000 values.
    public static func lockSeconds(after wrong: Int) -> Int64? {
        guard wrong >= pinAttempts else { return nil }
        return firstLockSeconds << Int64(min(wrong - pinAttempts, 20))
    }
    /// A PIN has 4 to 6 digits.
    public static let pinLengths = 4...6

    public init(
        matchingAllowed: Bool? = nil, pinVerifier: [UInt8]? = nil, wrongPINs: Int = 0, lockedUntil: Int64? = nil,
        language: String? = nil, alwaysSpeak: Bool = false
    ) {
        self.matchingAllowed = matchingAllowed
        self.pinVerifier = pinVerifier
        self.wrongPINs = wrongPINs
        self.lockedUntil = lockedUntil
        self.language = language
        self.alwaysSpeak = alwaysSpeak
        self.acknowledgedWarning = nil
    }

    /// A card that was never asked anything.
    public static let unanswered = CardProfile()

    public var hasPIN: Bool { pinVerifier != nil }

    /// Whether the card's session is locked at `now` (UNIX seconds) by wrong PINs.
    public func isLocked(at now: Int64) -> Bool {
        guard let lockedUntil else { return false }
        return now < lockedUntil
    }

    /// Whether `pin` is made of 4 to 6 digits.
    public static func isWellFormed(_ pin: String) -> Bool {
        pinLengths.contains(pin.count) && pin.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Counts a typed PIN's verifier `typed` against the card's `expected` at `now` (UNIX seconds): right brings the
    /// wrong-PIN count back to zero; wrong counts it and, from `pinAttempts` on, locks (`lockSeconds(after:)`).
    /// Compared in constant time. `changed`: the profile must be saved before the answer is given.
    public mutating func check(
        _ typed: [UInt8], against expected: [UInt8], now: Int64, crypto: some CryptoProvider
    ) -> (check: CheckInDesk.PINCheck, changed: Bool) {
        if crypto.constantTimeEquals(typed, expected) {
            guard wrongPINs != 0 || lockedUntil != nil else { return (.accepted, false) }
            wrongPINs = 0
            lockedUntil = nil
            return (.accepted, true)
        }
        wrongPINs = min(wrongPINs + 1, Self.maxCountedPINs)
        if let seconds = Self.lockSeconds(after: wrongPINs) { lockedUntil = now + seconds }
        if let lockedUntil, isLocked(at: now) { return (.locked(until: lockedUntil), true) }
        return (.wrong(remaining: max(0, Self.pinAttempts - wrongPINs)), true)
    }

    // MARK: Coding

    /// `"KPRF" | u8 version | u8 flags | u8 wrongPINs | i64 lockedUntil | u8 pinLength | pin verifier |
    /// u8 languageLength | language`, and in version 2 `| u8 length | acknowledgedWarning`; flags: bit 0 matching
    /// answered, bit 1 matching allowed, bit 2 always speak, bit 3 locked. Version 1 is written when there is no
    /// acknowledged warning (every kiosk card's profile), so what was stored before reads the same.
    func encoded() -> [UInt8] {
        var bytes = Array("KPRF".utf8) + [acknowledgedWarning == nil ? 1 : 2]
        var flags: UInt8 = 0
        if let matchingAllowed {
            flags |= 1
            if matchingAllowed { flags |= 2 }
        }
        if alwaysSpeak { flags |= 4 }
        if lockedUntil != nil { flags |= 8 }
        bytes.append(flags)
        bytes.append(UInt8(clamping: wrongPINs))
        let locked = UInt64(bitPattern: lockedUntil ?? 0)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: locked >> shift)) }
        let verifier = pinVerifier ?? []
        bytes.append(UInt8(clamping: verifier.count))
        bytes += verifier.prefix(255)
        let languageBytes = Array((language ?? "").utf8.prefix(16))
        bytes.append(UInt8(languageBytes.count))
        bytes += languageBytes
        if let acknowledgedWarning {
            let tag = acknowledgedWarning.prefix(Self.acknowledgedTagBytes)
            bytes.append(UInt8(tag.count))
            bytes += tag
        }
        return bytes
    }

    init?(encoded bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let magic = reader.read(4), magic == Array("KPRF".utf8), let version = reader.readInteger(UInt8.self),
            version == 1 || version == 2,
            let flags = reader.readInteger(UInt8.self), let wrong = reader.readInteger(UInt8.self),
            let locked = reader.read(8),
            let verifierLength = reader.readInteger(UInt8.self), let verifier = reader.read(Int(verifierLength)),
            let languageLength = reader.readInteger(UInt8.self), let language = reader.read(Int(languageLength))
        else { return nil }
        if version == 2 {
            guard let tagLength = reader.readInteger(UInt8.self), tagLength > 0, let tag = reader.read(Int(tagLength))
            else { return nil }
            acknowledgedWarning = tag
        } else {
            acknowledgedWarning = nil
        }
        guard reader.remaining == 0 else { return nil }
        matchingAllowed = flags & 1 == 0 ? nil : flags & 2 != 0
        alwaysSpeak = flags & 4 != 0
        wrongPINs = Int(wrong)
        let value = locked.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        lockedUntil = flags & 8 == 0 ? nil : Int64(bitPattern: value)
        pinVerifier = verifier.isEmpty ? nil : verifier
        self.language = language.isEmpty ? nil : String(decoding: language, as: UTF8.self)
    }
}

/// Seals a card's profile for the store: AES-256-GCM under the card's record key, fresh 96-bit nonce, associated data
/// `"KPRF1" · handle` (a profile moved to another card's handle fails to open).
enum CardProfileSealing {
    static let aadPrefix = Array("KPRF1".utf8)
    static let pinLabel = Array("CheckInKiosk PIN v1".utf8)

    static func seal(_ profile: CardProfile, keys: CardKeys, crypto: some CryptoProvider) throws(CryptoError)
        -> [UInt8]
    {
        let nonce = try crypto.randomBytes(count: 12)
        var plaintext = profile.encoded()
        defer { crypto.wipe(&plaintext) }
        return nonce
            + (try crypto.aes256GCMSeal(
                key: keys.recordKey, nonce: nonce, plaintext: plaintext, additionalData: aadPrefix + keys.handle))
    }

    static func open(_ sealed: [UInt8], keys: CardKeys, crypto: some CryptoProvider) -> CardProfile? {
        guard sealed.count >= 12 + 16,
            var plaintext = try? crypto.aes256GCMOpen(
                key: keys.recordKey, nonce: Array(sealed.prefix(12)), sealed: Array(sealed.dropFirst(12)),
                additionalData: aadPrefix + keys.handle)
        else { return nil }
        defer { crypto.wipe(&plaintext) }
        return CardProfile(encoded: plaintext)
    }

    /// The PIN's verifier: HMAC-SHA256(record key, label · digits).
    static func verifier(for pin: String, keys: CardKeys, crypto: some CryptoProvider) throws(CryptoError) -> [UInt8] {
        var message = pinLabel + Array(pin.utf8)
        defer { crypto.wipe(&message) }
        return try crypto.hmacSHA256(key: keys.recordKey, data: message)
    }
}

extension CardProfile {
    /// The profile with a new card's answers at enrolment (`VisitorSession.Request.saveEnrolment`): whether its
    /// stays may be matched, and the language its holder chose, if any.
    public func answering(matching: Bool, language: Language?) -> CardProfile {
        var profile = self
        profile.matchingAllowed = matching
        if let language { profile.language = language.rawValue }
        return profile
    }
}
