/// The PWD_AUTH password and expected PACK of one card, derived from the kiosk's card key and the card's UID, so
/// that every card has its own password and the kiosk stores none.
public struct CardPassword: Sendable {
    /// The 4-byte PWD.
    public private(set) var password: [UInt8]
    /// The 2-byte PACK the card must answer with.
    public private(set) var acknowledge: [UInt8]

    static let salt = Array("kiosk card password v1".utf8)

    /// HKDF-SHA256 with the card key as input key material and the UID as info; 6 bytes: PWD then PACK.
    public init(cardKey: [UInt8], uid: [UInt8], crypto: some CryptoProvider) throws(CryptoError) {
        var derived = try crypto.hkdfSHA256(inputKeyMaterial: cardKey, salt: Self.salt, info: uid, length: 6)
        password = Array(derived[0..<4])
        acknowledge = Array(derived[4..<6])
        crypto.wipe(&derived)
    }

    /// Overwrites both values.
    public mutating func wipe(using crypto: some CryptoProvider) {
        crypto.wipe(&password)
        crypto.wipe(&acknowledge)
    }
}

/// One step of writing a card.
public enum CardEnrolmentStep: Equatable, Sendable {
    /// WRITE `bytes` (4) to `page`.
    case write(page: Int, bytes: [UInt8])
    /// PWD_AUTH with the card's password; the PACK must match, or enrolment stops.
    case authenticate
}

/// The order in which enrolment writes a card (pure; the NFC adapter carries the steps out).
public enum CardEnrolment {
    /// AUTHLIM, the low three bits of ACCESS: how many wrong passwords in a row (2^AUTHLIM) the tag takes before it
    /// refuses every password for good. **0: no limit**, deliberately (docs/THREAT-MODEL.md, "The card password"):
    ///
    /// - a limit would let anyone with a reader brick a card in a pocket in about a second (128 wrong tries at
    ///   most), leaving a person without a phone without their card; the counter resets at every right password, so
    ///   it only ever stops someone who has the card to themselves;
    /// - that someone gains little: guessing the 32-bit password at the tag's pace (a few hundred tries a second,
    ///   each needing a new selection after a wrong one) takes months of contact, while the password and the card
    ///   secret cross the air in clear at every tap anyway (PWD_AUTH and READ are not encrypted), and the printed
    ///   card carries the secret too. The password keeps casual readers (phones) out, nothing more.
    public static let authenticationLimit: UInt8 = 0

    /// Steps for a card whose configuration pages start at `configPage` (CFG0 … AUTH0, CFG1 ACCESS, PWD, PACK).
    ///
    /// - A card not yet protected first gets PWD and PACK (inactive while AUTH0 is past the end), then ACCESS with
    ///   PROT (reads need the password too) and AUTHLIM = `authenticationLimit`, then AUTH0 = 4 (protection on). Then it must accept the password —
    ///   proving the password really is set before anything that makes the card valid is written.
    /// - A card already protected (re-enrolment) is authenticated first.
    /// - Then the commit page is zeroed ("not committed"), pages 4–13 written, and the commit page written last.
    ///
    /// `cfg0` and `cfg1` are the current configuration pages (their other bytes are kept).
    public static func steps(
        image: [UInt8], password: CardPassword, configPage: Int, cfg0: [UInt8], cfg1: [UInt8],
        alreadyProtected: Bool
    ) -> [CardEnrolmentStep] {
        precondition(image.count == CardImage.byteCount && cfg0.count == 4 && cfg1.count == 4)
        var steps: [CardEnrolmentStep] = []
        if alreadyProtected {
            steps.append(.authenticate)
        } else {
            steps.append(.write(page: configPage + 2, bytes: password.password))
            steps.append(.write(page: configPage + 3, bytes: password.acknowledge + [0, 0]))
            let access = cfg1[0] & 0x78 | 0x80 | authenticationLimit & 0x07
            steps.append(.write(page: configPage + 1, bytes: [access] + cfg1[1..<4]))
            steps.append(.write(page: configPage, bytes: Array(cfg0[0..<3]) + [UInt8(CardImage.firstPage)]))
            steps.append(.authenticate)
        }
        steps.append(.write(page: CardImage.commitPage, bytes: [0, 0, 0, 0]))
        for index in 0..<CardImage.pageCount - 1 {
            steps.append(.write(page: CardImage.firstPage + index, bytes: Array(image[index * 4..<index * 4 + 4])))
        }
        let commit = (CardImage.pageCount - 1) * 4
        steps.append(.write(page: CardImage.commitPage, bytes: Array(image[commit..<commit + 4])))
        return steps
    }
}
