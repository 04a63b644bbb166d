public import Foundation

/// The kiosk's behaviour as a pure value: events in, actions out. It never reads a clock, never does I/O and never
/// draws randomness (it asks for it with `.requestRandom`); the runner carries out the actions in order and feeds
/// their results back as events. The crypto port is used only for deterministic operations: hashing venue codes,
/// comparing the staff code in constant time, wiping a card secret.
///
/// Composed of small machines: one `Foreground` owns the screen, the buttons and the deadline (nobody, a visitor
/// with their `VisitorContext`, or `StaffMode`); `PrintQueue`, `Housekeeping` and `StationSpeech` are children the
/// machine maps; a holder's `VisitorSession` and a new card's `EnrolmentQuestions` answer with effects of their own.
///
/// Rules:
/// - a visitor card, or its printed `KC1-…` code, taps: recorded only when the kiosk is bound to a venue and the
///   clock is synchronized; the outcome is shown with its light pattern, then any news for the card (in words only:
///   its light and sound are the tap's own, so bystanders learn nothing);
/// - the staff code, or a staff card this kiosk enrolled (`StationState.staffCards`), opens staff mode, which
///   closes after `staffTimeout` without use, on `.leave` or when the staff card taps again; any other card whose
///   kind byte says "staff" (forged, or another kiosk's) and every printed card code of kind staff is refused;
/// - a venue code binds the kiosk in staff mode and is only a hint otherwise; anything else is "not a check-in code";
/// - a receipt is printed while the person it is for is there: one that fails is offered again to staff for
///   `answerTime` (confirm prints it now, cancel drops it), a warning slip only in its holder's session; nothing is
///   ever printed later on its own;
/// - everything of a person lives in their `VisitorContext` and goes when they leave.
public struct CheckInMachine: Sendable {
    /// What the kiosk is doing, as the runner and the status report name it.
    public enum Mode: Sendable, Equatable {
        /// Serving visitors.
        case visitor
        /// Staff mode, open until `until` (extended by every staff action).
        case staff(StaffStep, until: Date)
    }

    /// Who owns the screen, the buttons and the deadline.
    enum Foreground: Sendable {
        /// Nobody is using the kiosk (a message may still be shown for a while).
        case idle
        /// A visitor, with everything that is theirs.
        case visitor(VisitorContext)
        /// Staff.
        case staff(StaffMode)
    }

    public private(set) var configuration: StationConfiguration
    /// The current state; the last one the runner saved is what a restart would see.
    public internal(set) var state: StationState
    let crypto: any CryptoProvider
    private let parser: VenueCodeParser
    var foreground: Foreground = .idle
    /// The last message shown, and when: the screen shows it for a while (`screen(now:)`).
    var lastShown: (message: StationMessage, at: Date)?
    var printing = PrintQueue()
    var housekeeping: Housekeeping
    var speech = StationSpeech()

    /// How long a person's context lasts without any action of theirs while they are doing nothing in particular.
    public static let visitorLanguageTime: TimeInterval = 120

    /// Visitor or staff mode.
    public var mode: Mode {
        if case .staff(let staff) = foreground { return .staff(staff.step, until: staff.until) }
        return .visitor
    }

    /// The person at the kiosk (in staff mode, the one using it), if anyone.
    var person: VisitorContext? {
        get {
            switch foreground {
            case .idle: nil
            case .visitor(let person): person
            case .staff(let staff): staff.person
            }
        }
        set {
            switch foreground {
            case .idle, .visitor: foreground = newValue.map { .visitor($0) } ?? .idle
            case .staff(var staff):
                staff.person = newValue ?? VisitorContext(now: staff.person.lastActivity)
                foreground = .staff(staff)
            }
        }
    }

    /// Staff mode, while it is open.
    var staff: StaffMode? {
        get {
            if case .staff(let staff) = foreground { return staff }
            return nil
        }
        set {
            guard case .staff = foreground else { return }
            foreground = newValue.map { .staff($0) } ?? .idle
        }
    }

    /// The language the station speaks now: the session holder's, else the one the person here chose, else the
    /// kiosk's.
    public var language: Language {
        person?.session?.language ?? person?.language ?? configuration.language
    }

    /// The station's texts in the language it speaks now.
    public var texts: StationTexts { StationTexts(language, zone: configuration.timeZone) }

    /// `crypto` is used for hashing and constant-time comparison only.
    public init(
        configuration: StationConfiguration, state: StationState, crypto: any CryptoProvider,
        parser: VenueCodeParser = VenueCodeParser()
    ) {
        self.configuration = configuration
        self.state = state
        self.housekeeping = Housekeeping(persisted: state)
        self.crypto = crypto
        self.parser = parser
    }

    /// Handles one event at `now`; returns the actions to carry out, in order.
    public mutating func handle(_ event: StationEvent, now: ClockReading) -> [StationAction] {
        let actions = handling(event, now: now)
        // The screen shows the last message for a while (`screen(now:)`).
        for case .show(let message) in actions.reversed() {
            lastShown = (message, now.now)
            // A message shown again (a second tap's "Checked in") is news: it is said again, like a new screen.
            if isSpeaking(now: now.now) { speech.speakNow = true }
            break
        }
        return actions
    }

    private mutating func handling(_ event: StationEvent, now: ClockReading) -> [StationAction] {
        housekeeping.prune(&state, now: now)
        var actions = [StationAction]()
        switch event {
        case .cardRead, .codeScanned, .buttonPressed, .staffCommand, .tick, .chosen, .navigated:
            actions += closeStaffModeIfIdle(now: now)
        default:
            break
        }
        switch event {
        case .cardRead(let read): actions += cardRead(read, now: now)
        case .cardRemoved: actions += cardRemoved()
        case .codeScanned(let text):
            // The verification code from the test centre, shown while the holder is asked for it.
            if var open = person?.session, open.scannedVerificationCode(text, now: now.now) {
                person?.session = open
                return actions
            }
            actions += codeScanned(text, now: now)
        case .buttonPressed(let button): actions += buttonPressed(button, now: now)
        case .clockChanged(let reading): actions += clockChanged(reading)
        case .tick: actions += tick(now: now)
        case .tapDone(let outcome, let warning, let language, let cardWasFull):
            actions += tapDone(outcome, warning: warning, language: language, cardWasFull: cardWasFull, now: now.now)
        case .tapNews(let warning, let placement):
            guard case .diary(let card)? = person?.cardOnReader, card.placement == placement, person?.session == nil
            else { break }
            // A diary card's warning is told, never recorded here: what its holder acknowledged is on the card.
            actions += tell(warning, after: lastShown?.message, recording: false).actions
        case .enrolDone(let result): actions += enrolDone(result, now: now)
        case .diaryCardMade(let result): actions += diaryCardMade(result)
        case .printDone(let kind, let result): actions += printDone(kind, result, now: now)
        case .persistDone(let result): actions += persistDone(result)
        case .wipeDone(let result): actions += wipeDone(result)
        case .expiryDone(let result): actions += expiryDone(result)
        case .randomGenerated(let purpose, let result): actions += randomGenerated(purpose, result, now: now)
        case .staffCommand(let command): actions += staffCommand(command, now: now)
        case .chosen(let id):
            personActs(now: now)
            actions += chosen(id, now: now)
        case .navigated(let button):
            personActs(now: now)
            actions += navigated(button, now: now)
        case .speakRequested: speakRequested(now: now)
        case .cardOpened(let result): actions += cardOpened(result, now: now)
        case .cardAnswered(let result): actions += cardAnswered(result, now: now)
        }
        return actions
    }

    // MARK: - People

    /// Someone acts at the kiosk: their context starts if nobody's is open, and their time starts again.
    mutating func personActs(now: ClockReading) {
        var person = self.person ?? VisitorContext(now: now.now)
        person.lastActivity = now.now
        self.person = person
    }

    /// A visitor card (or its printed code) is shown: a card other than the one the person here showed is another
    /// person, and whatever was theirs goes first (their session closes); a session open on the same card closes
    /// too, and the card counts as usual.
    private mutating func cardArrives(_ card: VisitorCard, now: ClockReading) -> [StationAction] {
        guard staff == nil else { return [] }
        let fingerprint = try? VisitorContext.fingerprint(of: card.secret, crypto: crypto)
        var actions = [StationAction]()
        if let person {
            let same = fingerprint.flatMap { mine in
                person.cardFingerprint.map { crypto.constantTimeEquals($0, mine) }
            }
            if person.session != nil || same == false || (person.cardFingerprint != nil && fingerprint == nil) {
                actions += personLeaves()
            }
        }
        personActs(now: now)
        if person?.cardFingerprint == nil { person?.cardFingerprint = fingerprint }
        return actions
    }

    /// The person leaves (their card left the reader, “Done”, a deadline, another card): everything of theirs goes
    /// at once, their session and its card included. `message` is shown after (a session's closing words);
    /// without one, a session's screen leaves nothing behind.
    mutating func personLeaves(message: StationMessage? = nil) -> [StationAction] {
        let hadSession = person?.session != nil
        switch foreground {
        case .idle: break
        case .visitor(var person):
            person.wipe(using: crypto)
            foreground = .idle
        case .staff(var staff):
            staff.person.wipe(using: crypto)
            staff.person = VisitorContext(now: staff.person.lastActivity)
            foreground = .staff(staff)
        }
        if let message { return [.show(message)] }
        if hadSession { lastShown = nil }
        return []
    }

    /// An open session ends (the card or code shown now is not its holder's): its person leaves; nothing otherwise.
    private mutating func leavingSession() -> [StationAction] {
        person?.session != nil ? personLeaves() : []
    }

    mutating func cardRemoved() -> [StationAction] {
        guard let person else { return [] }
        // The card left the reader: its holder has gone (a printed code's holder leaves by “Done” or time).
        guard person.cardOnReader != nil || person.session?.source == .reader else { return [] }
        return personLeaves()
    }

    // MARK: - Cards and codes

    private mutating func cardRead(_ read: CardRead, now: ClockReading) -> [StationAction] {
        if case .awaitingBlankCard = staff?.step {
            extendStaff(now: now)
            switch read {
            case .blank, .damaged:
                setStaff(.enrolling, now: now)
                return [
                    .show(texts.message(.staffEnrollingTitle, .staffEnrollingBody, .prompt)),
                    .requestRandom(.cardEntropy),
                ]
            case .newDiaryCard where staff?.enrolKind == .visitor:
                setStaff(.enrolling, now: now)
                return [.show(texts.message(.staffEnrollingTitle, .staffEnrollingBody, .prompt)), .makeDiaryCard]
            case .newDiaryCard:
                // A staff card is a kiosk's own card: an NTAG.
                return refuse(
                    texts.message(
                        .staffCannotEnrolTitle, .staffCannotEnrolBody, .error,
                        ["reason": texts.foreignCard(.unsupportedCardType)]),
                    .refused, .foreignCard)
            case .card(let secret) where secret.kind == .visitor:
                return refuseAlreadyEnrolled()
            case .diary:
                // A diary card is its holder's already, at every kiosk of the region.
                return refuseAlreadyEnrolled()
            case .foreign(let reason):
                return refuse(
                    texts.message(
                        .staffCannotEnrolTitle, .staffCannotEnrolBody, .error, ["reason": texts.foreignCard(reason)]),
                    .refused, .foreignCard)
            case .card:
                break
            }
        }
        if case .card(let secret) = read { return card(secret, printed: false, now: now) }
        if case .diary(let card) = read { return visitor(.diary(card), printed: false, now: now) }
        // Not a kiosk card: an open session closes (the card shown is not its holder's).
        var actions = leavingSession()
        switch read {
        case .card, .diary: break
        case .blank, .newDiaryCard: actions += refuse(texts.blankCard, .refused, .blankCard)
        case .damaged: actions += refuse(texts.damagedCard, .refused, .damagedCard)
        case .foreign(let reason):
            var message = texts.notAKioskCard
            message.body = texts.foreignCard(reason) + " " + message.body
            actions += refuse(message, .refused, .foreignCard)
        }
        return actions
    }

    /// A visitor's card offered for enrolment: it is someone's already.
    private func refuseAlreadyEnrolled() -> [StationAction] {
        refuse(
            texts.message(.staffAlreadyEnrolledTitle, .staffAlreadyEnrolledBody, .error), .refused, .alreadyEnrolled)
    }

    /// A kiosk card (tapped, or its printed code scanned).
    private mutating func card(_ secret: CardSecret, printed: Bool, now: ClockReading) -> [StationAction] {
        switch secret.kind {
        case .staff:
            // The kind byte is no proof: anyone can write it to a tag or into a printed code.
            if printed {
                return refuse(
                    texts.message(.staffCodeNotStaffTitle, .staffCodeNotStaffBody, .error), .refused, .codeRefused)
            }
            guard isEnrolledStaffCard(secret) else {
                return refuse(
                    texts.message(.staffNotStaffHereTitle, .staffNotStaffHereBody, .error), .refused,
                    .unknownStaffCard)
            }
            if let step = staff?.step, !step.isBusy { return leaveStaffMode() }
            return openStaffMode(now: now)
        case .visitor:
            return visitor(.kiosk(secret), printed: printed, now: now)
        }
    }

    /// A visitor's card (tapped, or its printed code scanned): its holder's session opens when they asked for it,
    /// else the tap is recorded.
    private mutating func visitor(_ card: VisitorCard, printed: Bool, now: ClockReading) -> [StationAction] {
        var actions = cardArrives(card, now: now)
        if case .awaitingCard(let until) = person?.activity, now.now < until {
            return actions + openSession(card, source: printed ? .printedCode : .reader, now: now)
        }
        if case .awaitingCard = person?.activity { person?.activity = .browsing }
        guard now.isSynchronized else {
            return actions + refuse(texts.clockNotSet, .clockNotSet, .clockNotSynchronized)
        }
        guard let venue = state.venue else {
            return actions + refuse(texts.notSetUp, .error, .venueNotSetUp)
        }
        person?.cardOnReader?.wipe(using: crypto)
        // The card on the reader can open its holder's session without another tap (not in staff mode).
        let onReader = printed || staff != nil ? nil : card
        person?.cardOnReader = onReader
        actions.append(.recordTap(card, venue.stayVenue))
        return actions
    }

    private mutating func codeScanned(_ text: String, now: ClockReading) -> [StationAction] {
        if isStaffCode(text) {
            if staff != nil {
                extendStaff(now: now)
                return []
            }
            return openStaffMode(now: now)
        }
        let secret: CardSecret
        do {
            secret = try CardSecret(printedText: text)
        } catch .notACardCode {
            // Not a card code: maybe a venue code. Any such code ends an open session, then counts as usual.
            return venueCodeScanned(text, now: now, actions: leavingSession())
        } catch {
            return (leavingSession())
                + refuse(
                    texts.message(.stationCardCodeInvalidTitle, .stationCardCodeInvalidBody, .error), .refused,
                    .codeRefused)
        }
        return card(secret, printed: true, now: now)
    }

    private mutating func venueCodeScanned(_ text: String, now: ClockReading, actions: [StationAction])
        -> [StationAction]
    {
        var actions = actions
        let venue: VenueCode
        do {
            venue = try parser.parse(text, crypto: crypto)
        } catch .notAVenueCode, .tooLong {
            return actions + refuse(texts.notACheckInCode, .error, .codeRefused)
        } catch {
            return actions
                + refuse(
                    texts.message(
                        .staffVenueCodeUnusableTitle, .staffVenueCodeUnusableBody, .error,
                        ["code": error.cwaErrorCode ?? "-"]), .error, .codeRefused)
        }
        guard staff != nil else { return actions + refuse(texts.venueCodeHint, .refused, .codeRefused) }
        extendStaff(now: now)
        actions += bind(venue, posterURL: nil, now: now, created: false)
        return actions
    }

    /// A refusal: its message, its light and sound, and its count by reason (decided here, never guessed from the
    /// light).
    func refuse(_ message: StationMessage, _ pattern: IndicatorPattern, _ reason: RefusalReason) -> [StationAction] {
        [.show(message), .indicate(pattern), .countRefusal(reason)]
    }

    /// The staff code, compared as SHA-256 digests in constant time (the text's length does not show either).
    private func isStaffCode(_ text: String) -> Bool {
        guard let code = configuration.staffCode, !code.isEmpty else { return false }
        guard let expected = try? crypto.sha256(Array(code.utf8)),
            let scanned = try? crypto.sha256(Array(text.trimmingASCIIWhitespace().utf8))
        else { return false }
        return crypto.constantTimeEquals(expected, scanned)
    }

    /// Whether this kiosk enrolled `secret` as a staff card: its digest compared with every enrolled one in
    /// constant time.
    private func isEnrolledStaffCard(_ secret: CardSecret) -> Bool {
        guard secret.kind == .staff, !state.staffCards.isEmpty,
            let digest = try? StaffCardDigest.of(secret, crypto: crypto)
        else { return false }
        var found = false
        for known in state.staffCards where crypto.constantTimeEquals(known, digest) { found = true }
        return found
    }

    // MARK: - Visitors

    private mutating func tapDone(
        _ outcome: TapOutcome, warning: WarningNotice?, language: Language?, cardWasFull: Bool, now: Date
    ) -> [StationAction] {
        // The card's holder chose a language (kept with their card) and the visitor here chose none now: the tap is
        // answered in theirs, and so is what follows until they leave. Not in staff mode: its person is staff's, and
        // the next holder's questions would inherit it.
        if let language, case .visitor(var visitor) = foreground, !visitor.languageIsTheirs, visitor.session == nil {
            visitor.language = language
            foreground = .visitor(visitor)
        }
        var actions = [StationAction]()
        var changed = false
        switch outcome {
        case .checkedIn(_, let automaticCheckout, let endedElsewhere):
            // Rounded up to the hour: the counter stays conservative and keeps no check-in time to the minute.
            let hour = (automaticCheckout.timeIntervalSince1970 / 3600).rounded(.up) * 3600
            state.openCheckInEnds.append(Date(timeIntervalSince1970: hour))
            state.openCheckInEnds.sort()
            changed = true
            actions += [
                .show(
                    endedElsewhere ? texts.checkedInEndedElsewhere : texts.checkedIn(until: automaticCheckout, now: now)
                ),
                .indicate(.accepted),
            ]
        case .checkedOut(_, let stayedFor):
            // The earliest entry goes: the counter may stay high for a while, never low.
            if !state.openCheckInEnds.isEmpty {
                state.openCheckInEnds.removeFirst()
                changed = true
            }
            if let delay = state.venue?.checkoutWarningDelay, stayedFor > delay {
                actions += [.show(texts.checkedOutAfterLongStay(hours: Int(delay / 3600))), .indicate(.checkedOut)]
            } else {
                actions += [.show(texts.checkedOut), .indicate(.checkedOut)]
            }
        case .alreadyRegistered:
            actions += [.show(texts.alreadyRegistered), .indicate(.accepted)]
        case .refused(let refusal):
            actions += refuse(
                texts.message(.stationNotRecordedTitle, body: texts.refusal(refusal), .error),
                Self.pattern(for: refusal),
                RefusalReason(refusal))
        }
        // A diary card made room for the stay it wrote: its holder is told with the tap (and in their session).
        if cardWasFull, let index = actions.lastIndex(where: { if case .show = $0 { true } else { false } }),
            case .show(var message) = actions[index]
        {
            message.body += " " + texts.cardWasFull
            actions[index] = .show(message)
        }
        if let warning {
            let tapped = actions.compactMap { action -> StationMessage? in
                if case .show(let message) = action { message } else { nil }
            }.last
            let told = tell(warning, after: tapped)
            changed = changed || told.recorded
            actions += told.actions
        }
        // Feedback first: the stay is already durable; this state only keeps the counter and the warnings.
        if changed { actions.append(.persist(state)) }
        return actions
    }

    /// A warning for the card just tapped: recorded in the station's state, and, until its holder acknowledged it,
    /// told. The warning belongs to the card: the public screen only says there is news for it (no day, no place)
    /// and offers its holder's session, where it is read, acknowledged and its slip printed. No light or sound of its
    /// own: the tap's already played, and bystanders learn nothing more. The news replaces the tap's message
    /// (`tapped`) on the screen, so it begins with what the tap did. `recorded`: the state changed (to be saved).
    /// Without `recording` (a diary card's, whose runner left out what its holder acknowledged) it is only told.
    private mutating func tell(_ warning: WarningNotice, after tapped: StationMessage?, recording: Bool = true) -> (
        actions: [StationAction], recorded: Bool
    ) {
        guard !warning.exposureDays.isEmpty else { return ([], false) }
        var recorded = false
        var index = state.warnings.firstIndex { crypto.constantTimeEquals($0.tag, warning.acknowledgementTag) }
        if index == nil, recording {
            state.warnings.append(
                WarningRecord(
                    tag: warning.acknowledgementTag, expiryHour: warning.expiryHour,
                    owner: warning.ownerMark.isEmpty ? nil : warning.ownerMark))
            index = state.warnings.count - 1
            recorded = true
        }
        if let index, state.warnings[index].acknowledged { return ([], recorded) }
        let news = person?.cardOnReader == nil ? texts.newsForCardShowCode : texts.newsForCard
        return ([.show(tapped.map { texts.news(news, after: $0) } ?? news)], recorded)
    }

    static func pattern(for refusal: TapRefusal) -> IndicatorPattern {
        switch refusal {
        case .clockNotSynchronized: .clockNotSet
        case .storeUnavailable, .cryptoFailure, .profileUnreadable, .diaryUnreadable: .error
        case .clockBehindLastTap, .dailyLimitReached, .staffCard, .eventEnded, .cardBlocked, .cardLeft: .refused
        }
    }

    // MARK: - Time

    private mutating func clockChanged(_ reading: ClockReading) -> [StationAction] {
        switch housekeeping.clockChanged(reading) {
        case .set: [.show(texts.clockSet)]
        case .unset: [.show(texts.clockNotSet), .indicate(.clockNotSet)]
        case .none: []
        }
    }

    private mutating func tick(now: ClockReading) -> [StationAction] {
        var actions = personTick(now: now)
        if let offer = staff?.reprint, now.now >= offer.until { dropReprintOffer() }
        actions += housekeeping.tick(now: now, state: state)
        return actions
    }

    private mutating func persistDone(_ result: Result<Void, StationFailure>) -> [StationAction] {
        switch result {
        case .success:
            housekeeping.saved(state)
            return []
        case .failure(let failure):
            // A binding or a staff card that is not saved is not used (a staff card forgotten stays forgotten);
            // counters and warnings are kept in memory and saved later.
            let persisted = housekeeping.persisted
            state.venue = persisted.venue
            let crypto = self.crypto
            state.staffCards.removeAll { card in !persisted.staffCards.contains { crypto.constantTimeEquals($0, card) }
            }
            housekeeping.needsPersist = true
            return [
                .show(texts.message(.staffSettingsNotSavedTitle, body: texts.failure(failure), .error)),
                .indicate(.error),
            ]
        }
    }

    private mutating func expiryDone(_ result: Result<Int, StationFailure>) -> [StationAction] {
        guard case .failure(let failure) = result else { return [] }
        return [
            .show(texts.message(.staffOldNotDeletedTitle, body: texts.failure(failure), .error)),
            .indicate(.error),
        ]
    }
}

extension VisitorContext {
    static let fingerprintLabel = Array("CheckInKiosk person's card v1".utf8)

    /// What tells two cards apart within one visit: SHA-256 over a label and the card's secret, never kept beyond
    /// the person's context.
    static func fingerprint(of card: CardSecret, crypto: any CryptoProvider) throws(CryptoError) -> [UInt8] {
        try StaffCardDigest.digest(of: card, label: fingerprintLabel, crypto: crypto)
    }
}
