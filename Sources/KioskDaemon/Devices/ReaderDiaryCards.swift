public import KioskCore
public import KioskNFC
public import KioskOpenSSL
internal import Synchronization

/// The region's diary cards on the kiosk's NFC reader (docs/diary-card.md, "At the station"): reads a DESFire card
/// placed there with the region's keys (`DiaryCardLink`), and carries out the station's taps and the holder's
/// requests on it (`DiaryCardAccess`, decided by `DiaryDesk`), on the reader's thread while the card lies there.
///
/// The card opened when it was read stays open for the requests of the same placement (its diary key in memory
/// only), and is closed, its key wiped, when the card leaves. A request whose open card no longer answers (the
/// reader selected the card again meanwhile) opens it once more; one for a card that has left refuses with
/// `.cardLeft`, nothing changed on it.
public final class ReaderDiaryCards: DiaryCardAccess {
    let reader: NFCReader<OpenSSLCrypto>
    let desk: DiaryDesk
    let crypto: OpenSSLCrypto
    /// The card opened at its read, for the requests of its placement (the reader's thread only uses it).
    private let opened = Mutex<OpenedCard?>(nil)
    /// The placement of the last DESFire card read that holds no diary (a new card), which `make` may make one.
    private let unmade = Mutex<UInt64?>(nil)

    /// A card opened, with its placement. Its link is used on the reader's thread only (the handler's `serve` and
    /// `left`, and `withDESFireCard`'s jobs, all run there); the lock only hands it from one to the next.
    private final class OpenedCard: @unchecked Sendable {
        let placement: UInt64
        let link: DiaryCardLink

        init(placement: UInt64, link: DiaryCardLink) {
            self.placement = placement
            self.link = link
        }
    }

    public init(reader: NFCReader<OpenSSLCrypto>, desk: DiaryDesk, crypto: OpenSSLCrypto) {
        self.reader = reader
        self.desk = desk
        self.crypto = crypto
    }

    /// What the reader does with a DESFire card.
    public static func handler(crypto: OpenSSLCrypto, cards: @escaping @Sendable () -> ReaderDiaryCards?)
        -> DESFireCardHandler
    {
        DESFireCardHandler(
            crypto: crypto, serve: { card in cards()?.read(card) ?? .notAKioskCard(.unsupportedCardType) },
            left: { cards()?.forget() })
    }

    /// Opens a DESFire card placed on the reader: a diary card of the region, one of another region, or no diary
    /// card. Nothing for a card that left while it was read.
    func read(_ card: DESFireCard) -> CardReadResult? {
        forget()
        do throws(DiaryCardError) {
            let placement = try DiaryCardPlacement.read(
                client: card.client, uidIsRandom: card.target.hasRandomUID, keys: desk.keys, crypto: crypto)
            guard case .diary(let link) = placement else {
                unmade.withLock { $0 = card.placement }
                return .newDiaryCard
            }
            let secret: CardSecret
            do { secret = try link.kioskSecret() } catch {
                link.close()
                throw error
            }
            let card = OpenedCard(placement: card.placement, link: link)
            opened.withLock { $0 = card }
            return .diaryCard(DiaryCardOnReader(placement: card.placement, secret: secret))
        } catch {
            switch error {
            case .cardGone: return nil
            case .notADiaryCard: return .notAKioskCard(.unsupportedCardType)
            case .keysDoNotMatch, .refused: return .notAKioskCard(.otherRegion)
            }
        }
    }

    /// The card left: its key is wiped.
    func forget() {
        let older = opened.withLock { kept -> OpenedCard? in
            defer { kept = nil }
            return kept
        }
        older?.link.close()
    }

    public func tap(_ card: DiaryCardOnReader, at venue: StayVenue, clock: ClockReading) async
        -> (outcome: TapOutcome, language: Language?, cardWasFull: Bool, matchingAllowed: Bool)
    {
        let desk = self.desk
        let answer = await onCard(card) { link throws(TapRefusal) in
            let tap = desk.stationTap(link, at: venue, clock: clock)
            if case .refused(let refusal) = tap.outcome, refusal == .diaryUnreadable || refusal == .cardLeft {
                throw refusal
            }
            return TapAnswer(
                outcome: tap.outcome, language: tap.language, cardWasFull: tap.cardWasFull,
                matchingAllowed: tap.matchingAllowed)
        }
        switch answer {
        case .success(let tap): return (tap.outcome, tap.language, tap.cardWasFull, tap.matchingAllowed)
        case .failure(let refusal): return (.refused(refusal), nil, false, false)
        }
    }

    public func matchable(of card: DiaryCardOnReader, clock: ClockReading) async -> (
        stays: [MatchableStay], profile: CardProfile
    )? {
        let desk = self.desk
        // A card that cannot be read now is matched at its next tap or in its holder's session.
        let answer = await onCard(card) { link throws(TapRefusal) in
            let found = try desk.matchable(of: link, clock: clock)
            return MatchableAnswer(stays: found.stays, profile: found.profile)
        }
        return (try? answer.get()).map { ($0.stays, $0.profile) }
    }

    private struct MatchableAnswer: Sendable {
        var stays: [MatchableStay]
        var profile: CardProfile
    }

    public func contents(of card: DiaryCardOnReader, clock: ClockReading) async throws(TapRefusal)
        -> CheckInDesk.CardContents
    {
        let desk = self.desk
        return try await onCard(card) { link throws(TapRefusal) in try desk.contents(of: link, clock: clock) }.get()
    }

    public func serve(_ request: VisitorSession.Request, of card: DiaryCardOnReader, clock: ClockReading)
        async
        throws(TapRefusal) -> ServedRequest
    {
        let desk = self.desk
        return try await onCard(card) { link throws(TapRefusal) in try desk.serve(request, of: link, clock: clock) }
            .get()
    }

    public func forgetOldDays(clock: ClockReading) async throws(TapRefusal) { try desk.forgetOldDays(clock: clock) }

    /// Makes the new DESFire card lying on the reader (read last, holding no diary, still there) a diary card of the
    /// region with `profile` (`DiaryCardMaker`; `factoryKey`: its card master key as it came, NXP's DES default unless
    /// said). Throws `.cardRemoved` when the card left first, `.enrolment(reason:)` when it was not made.
    public func make(profile: CardProfile, factoryKey: DESFireKey) async throws(StationFailure) {
        guard let placement = unmade.withLock({ $0 }) else {
            throw .enrolment(reason: "no new DESFire card was read on the reader: place one")
        }
        let keys = desk.keys
        let crypto = self.crypto
        let made = await reader.withDESFireCard(placement: placement) { card -> DiaryCardError? in
            do throws(DiaryCardError) {
                _ = try DiaryCardMaker.make(
                    client: card.client, keys: keys, profile: profile, factoryKey: factoryKey, crypto: crypto)
                return nil
            } catch {
                return error
            }
        }
        switch made {
        case .none, .some(.some(.cardGone)): throw .cardRemoved
        case .some(.some(let error)): throw .enrolment(reason: "the card was not made a diary card: \(error)")
        case .some(.none): return
        }
    }

    public func make(profile: CardProfile) async throws(StationFailure) {
        try await make(profile: profile, factoryKey: .factoryDefault)
    }

    private struct TapAnswer: Sendable {
        var outcome: TapOutcome
        var language: Language?
        var cardWasFull: Bool
        var matchingAllowed: Bool
    }

    /// Runs `body` on the card of `card`'s placement while it lies on the reader: with the card opened at its
    /// read, and once more with the card opened again when that one failed (a refused step changed nothing on
    /// the card: DESFire drops a transaction that was not committed).
    private func onCard<T: Sendable>(
        _ card: DiaryCardOnReader, _ body: @escaping @Sendable (DiaryCardLink) throws(TapRefusal) -> T
    ) async -> Result<T, TapRefusal> {
        let placement = card.placement
        let answer = await reader.withDESFireCard(placement: placement) { present -> Result<T, TapRefusal> in
            if let kept = self.take(placement) {
                let result = self.run(body, on: kept, placement: placement)
                // The kept session may have ended when the reader selected the card again: unless the card left, it
                // is opened once more below.
                guard case .failure(let refusal) = result, refusal != .cardLeft else { return result }
            }
            let link: DiaryCardLink
            do throws(DiaryCardError) {
                link = try DiaryCardLink.open(client: present.client, keys: self.desk.keys, crypto: self.crypto)
            } catch {
                return .failure(error == .cardGone ? .cardLeft : .diaryUnreadable)
            }
            return self.run(body, on: link, placement: placement)
        }
        return answer ?? .failure(.cardLeft)
    }

    /// `body` on the open `link`: kept for the placement's next request when it succeeds, closed when it fails.
    private func run<T>(
        _ body: (DiaryCardLink) throws(TapRefusal) -> T, on link: DiaryCardLink, placement: UInt64
    ) -> Result<T, TapRefusal> {
        do throws(TapRefusal) {
            let result = try body(link)
            keep(link, placement: placement)
            return .success(result)
        } catch {
            link.close()
            return .failure(error)
        }
    }

    private func take(_ placement: UInt64) -> DiaryCardLink? {
        let card = opened.withLock { kept -> OpenedCard? in
            guard let card = kept, card.placement == placement else { return nil }
            kept = nil
            return card
        }
        return card?.link
    }

    private func keep(_ link: DiaryCardLink, placement: UInt64) {
        let card = OpenedCard(placement: placement, link: link)
        let older = opened.withLock { kept -> OpenedCard? in
            defer { kept = card }
            return kept
        }
        older?.link.close()
    }
}
