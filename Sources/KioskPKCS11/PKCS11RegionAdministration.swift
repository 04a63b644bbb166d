public import KioskCore
internal import Synchronization

/// What field staff do to a kiosk's region token (`kiosk region …`, docs/region.md): set a region up, install the
/// wrapping key, copy the keys to another kiosk wrapped under it, rotate and retire card key generations, and say
/// what the token holds. None of it ever hands out a key: card and day keys leave the token only wrapped under
/// `region-wrap`, which never leaves it.
extension PKCS11RegionKeys {
    /// What the token holds for the region, without a secret.
    public struct Status: Sendable, Equatable {
        /// The card master key generations, oldest first.
        public var generations: [UInt8]
        /// The ratchet's oldest day d₀, or nil when the token has no day key.
        public var day: DiaryDay?
        /// Whether the region's wrapping key is installed.
        public var hasWrappingKey: Bool
    }

    /// What an import did.
    public struct ImportOutcome: Sendable, Equatable {
        /// Generations unwrapped into the token.
        public var added: [UInt8]
        /// Generations the token held already, left as they were.
        public var kept: [UInt8]
        /// The token's day key afterwards.
        public var day: DiaryDay
    }

    /// Why a region command cannot do what it was asked. Names labels, generations and days, never a key.
    public enum AdministrationError: Error, Equatable, Sendable, CustomStringConvertible {
        case alreadySetUp(generations: [UInt8], hasDayKey: Bool)
        case notSetUp
        case noWrappingKey
        case wrappingKeyPresent
        case generationsExhausted
        case unknownGeneration(UInt8)
        case newestGeneration(UInt8)
        case otherRegion
        case otherDayChain
        case components(String)
        case token(PKCS11Error)

        public var description: String {
            switch self {
            case .alreadySetUp(let generations, let hasDayKey):
                "the token holds region keys already ("
                    + (generations.isEmpty ? "" : "generations \(Self.list(generations))")
                    + (generations.isEmpty || !hasDayKey ? "" : " and ") + (hasDayKey ? "a day key" : "")
                    + "): it is set up; use `kiosk region rotate` for a new generation"
            case .notSetUp:
                "the token holds no region keys: run `kiosk region init` on the region's first kiosk, or"
                    + " `kiosk region import` on the others"
            case .noWrappingKey:
                "the token has no wrapping key (region-wrap): its security officer installs it with"
                    + " `kiosk region install-wrapping-key`"
            case .wrappingKeyPresent:
                "the token has a wrapping key (region-wrap) already; a token holds one"
            case .generationsExhausted:
                "generation 255 is the last: the region needs new cards' keys set up from scratch"
            case .unknownGeneration(let generation):
                "the token holds no card key of generation \(generation)"
            case .newestGeneration(let generation):
                "generation \(generation) is the newest, the one new cards get: rotate first (`kiosk region rotate`)"
            case .otherRegion:
                "the file is another region's keys (its system identifier differs from this kiosk's region name)"
            case .otherDayChain:
                "the file's day key and the token's are of different ratchets: the token belongs to another set-up"
                    + " of the region; nothing was imported"
            case .components(let reason):
                reason
            case .token(let error):
                error.description
            }
        }

        private static func list(_ generations: [UInt8]) -> String {
            generations.map(String.init).joined(separator: ", ")
        }
    }

    /// The AES key wrap the export uses: RFC 3394 (16-byte keys need no padding).
    static let exportWrapping = PKCS11KeyWrapping.aesKeyWrap

    /// The token's region keys, without a secret.
    public func status() throws(AdministrationError) -> Status {
        try administered { () throws(PKCS11Error) in
            let day: DiaryDay?
            do throws(PKCS11Error) {
                day = try dayLock.withLock { _ throws(PKCS11Error) in try currentDayKey().1 }
            } catch .keyNotFound {
                day = nil
            }
            return Status(generations: try cardGenerations(), day: day, hasWrappingKey: try wrappingKey() != nil)
        }
    }

    /// Sets the region up on this token, its first kiosk: generates the card master key of generation 1 and a day
    /// key for `today` − 14, both leaving the token only wrapped under a trusted key. Refused on a token that holds
    /// either already.
    public func setUp(today: DiaryDay) throws(AdministrationError) {
        let status = try status()
        guard status.generations.isEmpty, status.day == nil else {
            throw .alreadySetUp(generations: status.generations, hasDayKey: status.day != nil)
        }
        try administered { () throws(PKCS11Error) in
            let card = try session.generateAESKey(
                label: RegionKeyLabels.card(generation: 1), usage: .mac, export: .underTrustedKeys)
            do throws(PKCS11Error) {
                _ = try session.generateAESKey(
                    label: RegionKeyLabels.day, usage: [.derive, .mac], export: .underTrustedKeys,
                    id: RegionKeyLabels.dayID(DiaryRetention.oldestOpenDay(today: today)))
            } catch {
                try? session.destroy(card)
                throw error
            }
        }
    }

    /// Generates the card master key of the next generation; returns it.
    public func rotate() throws(AdministrationError) -> UInt8 {
        let generations = try status().generations
        guard let newest = generations.last else { throw .notSetUp }
        guard newest < UInt8(RegionKeyLabels.generations.upperBound) else { throw .generationsExhausted }
        try administered { () throws(PKCS11Error) in
            _ = try session.generateAESKey(
                label: RegionKeyLabels.card(generation: newest + 1), usage: .mac, export: .underTrustedKeys)
        }
        return newest + 1
    }

    /// Destroys the card master key of `generation`: no card of that generation opens with this token any more.
    /// The newest generation cannot be retired (cards are re-keyed to it).
    public func retire(generation: UInt8) throws(AdministrationError) {
        let generations = try status().generations
        guard generations.contains(generation) else { throw .unknownGeneration(generation) }
        guard generation != generations.last else { throw .newestGeneration(generation) }
        try administered { () throws(PKCS11Error) in
            for key in try session.secretKeys(labelled: RegionKeyLabels.card(generation: generation)) {
                try session.destroy(key)
            }
        }
    }

    /// Every card master key and the day key, wrapped under `region-wrap`.
    public func exportKeys() throws(AdministrationError) -> RegionKeyExport {
        let status = try status()
        guard status.day != nil, !status.generations.isEmpty else { throw .notSetUp }
        return try administered { () throws(PKCS11Error) in
            guard let wrap = try wrappingKey() else { throw .keyNotFound(label: RegionKeyLabels.wrap) }
            var cards: [RegionKeyExport.CardKey] = []
            for generation in status.generations {
                let key = try session.findSecretKey(
                    label: RegionKeyLabels.card(generation: generation), allowing: .underTrustedKeys)
                cards.append(
                    .init(generation: generation, wrapped: try session.wrap(key, with: wrap, Self.exportWrapping)))
            }
            // The day and its key read together, under the day lock.
            let (wrappedDay, day) = try dayLock.withLock { _ throws(PKCS11Error) -> ([UInt8], DiaryDay) in
                let (key, day) = try currentDayKey()
                return (try session.wrap(key, with: wrap, Self.exportWrapping), day)
            }
            return RegionKeyExport(
                systemIdentifier: systemIdentifier, cards: cards, dayKey: .init(day: day, wrapped: wrappedDay))
        }
    }

    /// Unwraps an export's keys into this token under its `region-wrap`: the generations it lacks (those it holds
    /// are kept as they are), and the day key when the token has none or an older one of the same ratchet (checked
    /// by deriving the older forward inside the token and comparing a CMAC of a fixed message under both). Nothing
    /// is left half-imported: on a failure the keys made so far are destroyed.
    public func importKeys(_ export: RegionKeyExport) throws(AdministrationError) -> ImportOutcome {
        guard export.systemIdentifier == systemIdentifier else { throw .otherRegion }
        let have = try status().generations
        return try administered { () throws(PKCS11Error) -> ImportOutcome in
            guard let wrap = try wrappingKey() else { throw .keyNotFound(label: RegionKeyLabels.wrap) }
            var made: [PKCS11SecretKey] = []
            do throws(PKCS11Error) {
                var added: [UInt8] = []
                for card in export.cards where !have.contains(card.generation) {
                    made.append(
                        try session.unwrapAESKey(
                            card.wrapped, with: wrap, Self.exportWrapping, label: card.label, usage: .mac,
                            export: .underTrustedKeys))
                    added.append(card.generation)
                }
                let day = try dayLock.withLock { _ throws(PKCS11Error) -> DiaryDay in
                    try importDayKey(export.dayKey, wrap: wrap, made: &made)
                }
                return ImportOutcome(added: added, kept: export.cards.map(\.generation).filter(have.contains), day: day)
            } catch {
                for key in made { try? session.destroy(key) }
                throw error
            }
        }
    }

    /// The message whose CMAC under two day keys of the same day tells whether they are one key.
    static let chainCheckMessage = Array("kiosk region day chain check".utf8)

    /// Imports the file's day key K(e) beside the token's K(o), if any (under the day lock).
    private func importDayKey(_ file: RegionKeyExport.DayKey, wrap: PKCS11SecretKey, made: inout [PKCS11SecretKey])
        throws(PKCS11Error) -> DiaryDay
    {
        let own: (key: PKCS11SecretKey, day: DiaryDay)?
        do throws(PKCS11Error) {
            own = try currentDayKey()
        } catch .keyNotFound {
            own = nil
        }
        guard let own else {
            made.append(try unwrapDayKey(file, wrap: wrap, onToken: true))
            return file.day
        }
        let imported = try unwrapDayKey(file, wrap: wrap, onToken: false)
        defer { try? session.destroy(imported) }
        // The older of the two, derived forward to the newer's day, must be the newer.
        let (older, newer, steps) =
            own.day >= file.day ? (imported, own.key, own.day - file.day) : (own.key, imported, file.day - own.day)
        let same = try withDayKey(from: older, steps: steps) { (derived) throws(PKCS11Error) -> Bool in
            try session.cmac(Self.chainCheckMessage, key: derived) == session.cmac(Self.chainCheckMessage, key: newer)
        }
        guard same else { throw .invalidArgument(Self.otherChainMarker) }
        guard file.day > own.day else { return own.day }
        // Newer in the file: kept on the token first, the token's older key destroyed after (as a ratchet step).
        made.append(try unwrapDayKey(file, wrap: wrap, onToken: true))
        try session.destroy(own.key)
        return file.day
    }

    private static let otherChainMarker = "region day keys of different ratchets"

    private func unwrapDayKey(_ file: RegionKeyExport.DayKey, wrap: PKCS11SecretKey, onToken: Bool)
        throws(PKCS11Error) -> PKCS11SecretKey
    {
        try session.unwrapAESKey(
            file.wrapped, with: wrap, Self.exportWrapping, label: onToken ? RegionKeyLabels.day : "region-day-import",
            usage: [.derive, .mac], export: onToken ? .underTrustedKeys : .never,
            id: onToken ? RegionKeyLabels.dayID(file.day) : nil, onToken: onToken)
    }

    /// The token's `region-wrap`, or nil.
    func wrappingKey() throws(PKCS11Error) -> PKCS11SecretKey? {
        do throws(PKCS11Error) {
            return try session.findSecretKey(label: RegionKeyLabels.wrap)
        } catch .keyNotFound {
            return nil
        }
    }

    /// Installs `region-wrap` from two or more custodians' components (16 bytes each) through a session of the
    /// token's security officer: trusted, used for wrapping only, never leaving the token. Refused with fewer than
    /// two components, two equal ones (their exclusive or would cancel), a result of zeros, or a token that has one.
    public static func installWrappingKey(officer: PKCS11Session, components: [[UInt8]])
        throws(AdministrationError)
    {
        guard components.count >= 2 else {
            throw .components("a wrapping key needs two or more custodians' components, not \(components.count)")
        }
        guard components.allSatisfy({ $0.count == PKCS11Session.keyBytes }) else {
            throw .components("each component has \(PKCS11Session.keyBytes) bytes (32 hexadecimal digits)")
        }
        guard Set(components).count == components.count else {
            throw .components("two components are the same: each custodian makes their own")
        }
        var combined = [UInt8](repeating: 0, count: PKCS11Session.keyBytes)
        for component in components {
            for index in combined.indices { combined[index] ^= component[index] }
        }
        let zero = combined.allSatisfy { $0 == 0 }
        wipe(&combined)
        guard !zero else { throw .components("the components cancel each other out: make new ones") }
        let present: Bool
        do {
            present = try !officer.secretKeys(labelled: RegionKeyLabels.wrap).isEmpty
        } catch {
            throw .token(error)
        }
        guard !present else { throw .wrappingKeyPresent }
        do {
            _ = try officer.importWrappingKey(label: RegionKeyLabels.wrap, components: components, trusted: true)
        } catch {
            throw .token(error)
        }
    }

    /// `body`'s PKCS #11 error as an `AdministrationError`.
    private func administered<Result>(_ body: () throws(PKCS11Error) -> Result) throws(AdministrationError)
        -> Result
    {
        do {
            return try body()
        } catch .keyNotFound(label: RegionKeyLabels.wrap) {
            throw .noWrappingKey
        } catch .keyNotFound(label: RegionKeyLabels.day) {
            throw .notSetUp
        } catch .invalidArgument(Self.otherChainMarker) {
            throw .otherDayChain
        } catch {
            throw .token(error)
        }
    }
}
