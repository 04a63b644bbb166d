public import KioskCore

/// Why a card is not one of this kiosk's cards.
public enum ForeignCardReason: Equatable, Sendable {
    /// Not an NTAG21x / Ultralight EV1 (bank card, transit card, MIFARE Classic, …).
    case unsupportedCardType
    /// A supported tag with empty user memory.
    case blank
    /// A supported tag with other content.
    case otherContent
    /// A supported tag protected by a password this kiosk does not know.
    case otherPassword
    /// The card accepted the password but answered with the wrong PACK (a clone or an emulator): not trusted.
    case wrongAcknowledge
    /// A diary card of another region, or of a key generation the kiosk does not hold.
    case otherRegion
}

/// The outcome of reading a card.
public enum CardReadResult: Equatable, Sendable {
    /// One of this kiosk's cards, complete and verified.
    case kioskCard(CardContent)
    /// "This card is not a kiosk card": nothing is to be stored.
    case notAKioskCard(ForeignCardReason)
    /// A kiosk card whose enrolment did not finish: to be enrolled again, never to be used.
    case incompleteEnrolment
    /// A kiosk card of a newer layout.
    case unsupportedLayout(version: UInt8)
    /// A diary card of the kiosk's region, opened with its keys (docs/diary-card.md), lying on the reader.
    case diaryCard(DiaryCardOnReader)
    /// A MIFARE DESFire card without a diary, read by a kiosk with a region: staff can make it a diary card.
    case newDiaryCard
}

/// Why enrolment failed. The card is never left reading as valid with wrong content.
public enum CardEnrolmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an NTAG213/215/216 or Ultralight EV1.
    case unsupportedCardType
    /// The card is protected by a password this kiosk does not know (another kiosk's card).
    case protectedByAnotherPassword
    /// The card left the reader before enrolment finished.
    case cardRemoved
    /// Reading back did not give what was written.
    case verificationFailed
    case layout(CardLayoutError)
    case crypto(CryptoError)
    case reader(NFCError)

    public var description: String {
        switch self {
        case .unsupportedCardType:
            "this card type cannot be enrolled (use an NTAG213/215/216 or MIFARE Ultralight EV1 card)"
        case .protectedByAnotherPassword: "this card is protected by another kiosk; it cannot be enrolled here"
        case .cardRemoved: "the card was taken away before enrolment finished; hold it on the reader and enrol again"
        case .verificationFailed: "the card did not read back correctly; enrol again or use another card"
        case .layout(let error): error.description
        case .crypto(let error): error.description
        case .reader(let error): error.description
        }
    }
}

/// Reads and enrols kiosk cards: the card password is derived per card from the kiosk's card key and the UID
/// (`CardPassword`), the content is laid out by `CardImage`, and the write order comes from `CardEnrolment`.
public struct KioskCardAccess<Crypto: CryptoProvider>: Sendable {
    private let cardKey: [UInt8]
    private let crypto: Crypto

    public init(cardKey: [UInt8], crypto: Crypto) {
        self.cardKey = cardKey
        self.crypto = crypto
    }

    /// Reads the card `target` that `link` has selected.
    public func read(_ target: NFCTarget, over link: some TagLink) throws(NFCError) -> CardReadResult {
        guard target.isUltralightFamily else { return .notAKioskCard(.unsupportedCardType) }
        do {
            return try readTag(target, commands: NTAGCommands(link: link))
        } catch let error as NFCError {
            throw error
        } catch {
            return .notAKioskCard(.otherPassword)  // the password could not be derived: treat as not ours
        }
    }

    private func readTag(_ target: NFCTarget, commands: NTAGCommands<some TagLink>) throws -> CardReadResult {
        guard
            let version = try unlessRefused({ () throws(NFCError) in try commands.getVersion() }, alsoUnexpected: true),
            NTAGModel(version: version) != nil
        else { return .notAKioskCard(.unsupportedCardType) }
        return try withPassword(uid: target.uid) { password in
            try readAuthenticated(target, commands: commands, password: password)
        }
    }

    private func readAuthenticated(
        _ target: NFCTarget, commands: NTAGCommands<some TagLink>,
        password: CardPassword
    ) throws -> CardReadResult {
        let authenticate = { () throws(NFCError) in try commands.authenticate(password: password.password) }
        guard let pack = try unlessRefused(authenticate) else {
            return try readUnprotected(target, commands: commands)
        }
        guard crypto.constantTimeEquals(pack, password.acknowledge) else { return .notAKioskCard(.wrongAcknowledge) }
        var image = try commands.fastRead(from: CardImage.firstPage, through: CardImage.commitPage)
        let reading = CardImage.decode(image, uid: target.uid)
        crypto.wipe(&image)
        switch reading {
        case .enrolled(let content): return .kioskCard(content)
        case .blank, .incomplete, .foreign: return .incompleteEnrolment
        case .unsupportedLayout(let version): return .unsupportedLayout(version: version)
        }
    }

    /// Derives the card's password, runs `body`, and wipes the password.
    private func withPassword<R>(uid: [UInt8], _ body: (CardPassword) throws -> R) throws -> R {
        var password = try CardPassword(cardKey: cardKey, uid: uid, crypto: crypto)
        do {
            let result = try body(password)
            password.wipe(using: crypto)
            return result
        } catch {
            password.wipe(using: crypto)
            throw error
        }
    }

    /// A card that refused this kiosk's password: select it again and look without the password.
    private func readUnprotected(_ target: NFCTarget, commands: NTAGCommands<some TagLink>) throws -> CardReadResult {
        guard try commands.link.reselect() != nil else { throw NFCError(code: .targetReleased) }
        guard
            let image = try unlessRefused({ () throws(NFCError) in
                try commands.fastRead(from: CardImage.firstPage, through: CardImage.commitPage)
            })
        else {
            return .notAKioskCard(.otherPassword)
        }
        switch CardImage.decode(image, uid: target.uid) {
        case .blank: return .notAKioskCard(.blank)
        case .foreign: return .notAKioskCard(.otherContent)
        // Kiosk layout but not protected by this kiosk's password: enrolment stopped before the password was set,
        // or the content was copied. Never valid.
        case .enrolled, .incomplete: return .incompleteEnrolment
        case .unsupportedLayout(let version): return .unsupportedLayout(version: version)
        }
    }

    /// Writes `content` to the card `target` that `link` has selected, sets its password, and verifies by selecting
    /// it again and reading it back.
    public func enrol(_ content: CardContent, on target: NFCTarget, over link: some TagLink) throws(CardEnrolmentError)
    {
        guard target.isUltralightFamily else { throw .unsupportedCardType }
        do {
            try enrolTag(content, target: target, commands: NTAGCommands(link: link))
        } catch let error as CardEnrolmentError {
            throw error
        } catch let error as NFCError {
            throw error.isCardGone ? .cardRemoved : .reader(error)
        } catch let error as CardLayoutError {
            throw .layout(error)
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch {
            throw .verificationFailed
        }
    }

    private func enrolTag(_ content: CardContent, target: NFCTarget, commands: NTAGCommands<some TagLink>) throws {
        guard let model = NTAGModel(version: try commands.getVersion()) else {
            throw CardEnrolmentError.unsupportedCardType
        }
        let image = try CardImage.encode(content, uid: target.uid)
        try withPassword(uid: target.uid) { password in
            try writeImage(image, model: model, commands: commands, password: password)
        }
        guard let again = try commands.link.reselect(), again.uid == target.uid else {
            throw CardEnrolmentError.cardRemoved
        }
        guard try read(again, over: commands.link) == .kioskCard(content) else {
            throw CardEnrolmentError.verificationFailed
        }
    }

    private func writeImage(
        _ image: [UInt8], model: NTAGModel, commands: NTAGCommands<some TagLink>,
        password: CardPassword
    ) throws {
        let (config, alreadyProtected) = try configuration(model, commands: commands, password: password)
        let steps = CardEnrolment.steps(
            image: image, password: password, configPage: model.configPage,
            cfg0: Array(config[0..<4]), cfg1: Array(config[4..<8]),
            alreadyProtected: alreadyProtected)
        for step in steps {
            switch step {
            case .write(let page, let bytes): try commands.write(page: page, bytes)
            case .authenticate: try authenticate(commands, password)
            }
        }
    }

    /// The configuration pages and whether the card is already protected (then only this kiosk's password may open
    /// it, and it is authenticated afterwards).
    private func configuration(
        _ model: NTAGModel, commands: NTAGCommands<some TagLink>,
        password: CardPassword
    ) throws -> (config: [UInt8], protected: Bool) {
        if let config = try readIfAllowed(page: model.configPage, commands: commands), Int(config[3]) >= model.pageCount
        {
            return (config, false)
        }
        guard try commands.link.reselect() != nil else { throw CardEnrolmentError.cardRemoved }
        try authenticate(commands, password)
        return (try commands.read(page: model.configPage), true)
    }

    /// READ of `page`, or nil if the card refuses it (read protection).
    private func readIfAllowed(page: Int, commands: NTAGCommands<some TagLink>) throws -> [UInt8]? {
        try unlessRefused { () throws(NFCError) in try commands.read(page: page) }
    }

    private func authenticate(_ commands: NTAGCommands<some TagLink>, _ password: CardPassword) throws {
        let authenticate = { () throws(NFCError) in try commands.authenticate(password: password.password) }
        guard let pack = try unlessRefused(authenticate) else {
            throw CardEnrolmentError.protectedByAnotherPassword
        }
        guard crypto.constantTimeEquals(pack, password.acknowledge) else { throw CardEnrolmentError.verificationFailed }
    }

    /// Runs `body`; nil if the card refused it (NAK), or also if it answered nonsense when `alsoUnexpected`.
    private func unlessRefused<R>(_ body: () throws(NFCError) -> R, alsoUnexpected: Bool = false) throws(NFCError) -> R?
    {
        do {
            return try body()
        } catch {
            if error.code == .refused || (alsoUnexpected && error.code == .unexpectedAnswer) { return nil }
            throw error
        }
    }
}
