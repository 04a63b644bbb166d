public import Foundation

/// The kiosk's behaviour as a pure value: events in, actions out. It never reads a clock, never does I/O and never
/// draws randomness (it asks for it with `.requestRandom`); the runner carries out the actions in order and feeds
/// their results back as events. The crypto port is used only for deterministic operations: hashing venue codes,
/// comparing the staff code in constant time, wiping a card secret.
///
/// Rules:
/// - a visitor card, or its printed `KC1-…` code, taps: recorded only when the kiosk is bound to a venue and the
///   clock is synchronized; the outcome is shown with its light pattern, then any pending warning, until the visitor
///   confirms it;
/// - the staff code, or a staff card this kiosk enrolled (`StationState.staffCards`), opens staff mode, which
///   closes after `staffTimeout` without use, on `.leave` or when the staff card taps again; any other card whose
///   kind byte says "staff" (forged, or another kiosk's) and every printed card code of kind staff is refused;
/// - a venue code binds the kiosk in staff mode and is only a hint otherwise; anything else is "not a check-in code";
/// - a receipt is printed while the person it is for is there: one that fails is offered again for
///   `answerTime` (confirm prints it now, cancel drops it) and never printed later on its own.
public struct CheckInMachine: Sendable {
    /// What the kiosk is doing.
    public enum Mode: Sendable, Equatable {
        /// Serving visitors.
        case visitor
        /// Staff mode, open until `until` (extended by every staff action).
        case staff(StaffStep, until: Date)
    }

    /// Where staff are in the menu.
    public enum StaffStep: Sendable, Equatable {
        case menu
        /// Waiting for a venue's poster to be scanned (any venue code binds in staff mode; this only prompts).
        case awaitingVenueCode
        /// Waiting for a blank card to enrol (a visitor card, or a staff card after `.enrolStaffCard`).
        case awaitingBlankCard
        /// A card is being enrolled (randomness, writing, printing).
        case enrolling
        /// Creating a venue (waiting for its seed).
        case creatingVenue(CWAFields)
        /// Rotating the venue code (waiting for its seed).
        case rotating(CWAFields)
        /// Asked "wipe the kiosk?".
        case confirmingWipe(forgetVenue: Bool)
        /// Wiping.
        case wiping(forgetVenue: Bool)

        var isBusy: Bool {
            switch self {
            case .enrolling, .creatingVenue, .rotating, .wiping: true
            default: false
            }
        }
    }

    public private(set) var configuration: StationConfiguration
    /// The current state; the last one the runner saved is what a restart would see.
    public internal(set) var state: StationState
    public private(set) var mode: Mode = .visitor

    let crypto: any CryptoProvider
    private let parser: VenueCodeParser
    /// The state as last persisted (a failed persist reverts the venue binding to it).
    private var persisted: StationState
    private var needsPersist = false
    /// The secret of the card being enrolled; wiped once it is printed or enrolment failed.
    private var pendingCard: CardSecret?
    /// The kind of card `.awaitingBlankCard` and `.enrolling` make.
    private var enrolKind: CardKind = .visitor
    /// Receipts handed to the printer and not answered yet, by kind: kept only to offer a failed one again.
    private var printing: [PrintJob.Kind: PrintJob] = [:]
    /// A receipt that did not print, offered to the person at the kiosk until `until`: confirm tries it again now,
    /// cancel (or the time running out) drops it. Nothing is ever printed later on its own.
    var reprintOffer: (job: PrintJob, until: Date)?
    /// The hour (of the clock's lower bound) in which expiry last ran: it runs again as each hour begins.
    private var lastExpiryHour: Int64?
    private var clockWasSynchronized: Bool?

    // The card holder's session (`CheckInMachine+Session.swift`).
    /// The open session, if any.
    var session: VisitorSession?
    /// "My check-ins" was chosen: the next card or printed card code opens a session instead of tapping, until then.
    var sessionRequestUntil: Date?
    /// The visitor card tapped last, while it lies on the reader: its session can be offered without another tap.
    var cardOnReader: CardSecret?
    /// What the session asked the runner last.
    var pendingRequest: VisitorSession.Request?
    /// The questions asked after a visitor card was enrolled (permission to match, an optional PIN).
    var enrolment: EnrolmentQuestions?
    /// The last message shown, and when: the screen shows it for a while (`screen(now:)`).
    var lastShown: (message: StationMessage, at: Date)?
    /// Which choice the buttons would choose, for the screen it was made on (`ScreenModel` identity).
    var selection: (key: String, index: Int?)?
    /// The language a visitor chose on the idle screen, and when: it holds while they use the kiosk and returns to
    /// the kiosk's own after `visitorLanguageTime` without activity.
    var visitorLanguage: (language: Language, at: Date)?
    /// "Language" was chosen on the idle screen, and when: the languages are offered until one is chosen.
    var choosingLanguage: Date?
    /// When a button was last held to hear the screen (`CheckInMachine+Speech.swift`), refreshed by every action
    /// of the person at the kiosk.
    var speechRequested: Date?
    /// The screen last considered for speech, and its selected choice.
    var lastSpoken: (identity: String, selected: Int?)?
    /// Say the screen at the next `speech(now:)` even if it did not change (a button held again repeats it).
    var speakNow = false
    /// Something was said since the last stop (a stop is sent only then).
    var mayBeSpeaking = false
    /// The voice the person at the kiosk chose (louder, quieter, faster, slower): it lasts while the kiosk speaks
    /// for them and goes back to the venue's when it stops (the next person starts from the venue's).
    var visitorVoice: SpeechVoice?
    /// The speech settings were opened (from the choice every spoken screen offers), and when.
    var speechSettingsOpened: Date?
    /// A short sentence to say next instead of the whole screen (the new volume or speed after a change).
    var speechAnnouncement: String?
    /// The last activity of the session whose coming timeout was announced with a tone (once per quiet spell).
    var timeoutAnnounced: Date?
    /// How long a language chosen on the idle screen lasts without activity.
    public static let visitorLanguageTime: TimeInterval = 120

    /// The language the station speaks now: the session holder's, else the one a visitor chose, else the kiosk's.
    public var language: Language {
        if let session { return session.language ?? visitorLanguage?.language ?? configuration.language }
        return visitorLanguage?.language ?? configuration.language
    }

    /// The station's texts in the language it speaks now.
    public var texts: StationTexts { StationTexts(language) }

    /// `crypto` is used for hashing and constant-time comparison only.
    public init(
        configuration: StationConfiguration, state: StationState, crypto: any CryptoProvider,
        parser: VenueCodeParser = VenueCodeParser()
    ) {
        self.configuration = configuration
        self.state = state
        self.persisted = state
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
            if isSpeaking(now: now.now) { speakNow = true }
            break
        }
        return actions
    }

    private mutating func handling(_ event: StationEvent, now: ClockReading) -> [StationAction] {
        prune(now: now)
        if !isSpeaking(now: now.now) {
            // Nobody is spoken to any more: the next person's actions do not bring speech back (they ask for it
            // themselves), and they hear the venue's voice.
            speechRequested = nil
            visitorVoice = nil
            speechSettingsOpened = nil
        }
        switch event {
        case .cardRead, .codeScanned, .chosen, .navigated:
            // Someone is using the kiosk: a language they chose, and speech they asked for, hold on.
            if let chosen = visitorLanguage { visitorLanguage = (chosen.language, now.now) }
            if speechRequested != nil { speechRequested = now.now }
        case .tick:
            if let chosen = visitorLanguage, session == nil,
                now.now.timeIntervalSince(chosen.at) >= Self.visitorLanguageTime
            {
                visitorLanguage = nil
            }
        default:
            break
        }
        var actions = [StationAction]()
        switch event {
        case .cardRead, .codeScanned, .buttonPressed, .staffCommand, .tick, .chosen, .navigated:
            actions += closeStaffModeIfIdle(now: now)
        default:
            break
        }
        switch event {
        case .cardRead(let read):
            // Another card ends an open session (its card is wiped), then counts as usual.
            if session != nil { actions += closeSession(message: nil) }
            actions += cardRead(read, now: now)
        case .cardRemoved: actions += cardRemoved()
        case .codeScanned(let text):
            if var open = session {
                // The verification code from the test centre, shown while the holder is asked for it.
                if open.scannedVerificationCode(text, now: now.now) {
                    session = open
                    return actions
                }
                // Any other code ends the session, then counts as usual.
                actions += closeSession(message: nil)
            }
            actions += codeScanned(text, now: now)
        case .buttonPressed(let button): actions += buttonPressed(button, now: now)
        case .clockChanged(let reading): actions += clockChanged(reading)
        case .tick: actions += tick(now: now)
        case .tapDone(let outcome, let warning): actions += tapDone(outcome, warning: warning, now: now)
        case .enrolDone(let result): actions += enrolDone(result)
        case .printDone(let kind, let result): actions += printDone(kind, result, now: now)
        case .persistDone(let result): actions += persistDone(result)
        case .wipeDone(let result): actions += wipeDone(result)
        case .expiryDone(let result): actions += expiryDone(result)
        case .randomGenerated(let purpose, let result): actions += randomGenerated(purpose, result, now: now)
        case .staffCommand(let command): actions += staffCommand(command, now: now)
        case .chosen(let id): actions += chosen(id, now: now)
        case .navigated(let button): actions += navigated(button, now: now)
        case .speakRequested: speakRequested(now: now)
        case .cardOpened(let result): actions += cardOpened(result, now: now)
        case .cardAnswered(let result): actions += cardAnswered(result, now: now)
        }
        return actions
    }

    // MARK: - Cards and codes

    private mutating func cardRead(_ read: CardRead, now: ClockReading) -> [StationAction] {
        if case .staff(.awaitingBlankCard, _) = mode {
            extendStaff(now: now)
            switch read {
            case .blank, .damaged:
                mode = .staff(.enrolling, until: staffUntil(now))
                return [
                    .show(texts.message(.staffEnrollingTitle, .staffEnrollingBody, .prompt)),
                    .requestRandom(.cardEntropy),
                ]
            case .card(let secret) where secret.kind == .visitor:
                return [
                    .show(
                        texts.message(.staffAlreadyEnrolledTitle, .staffAlreadyEnrolledBody, .error)),
                    .indicate(.refused),
                ]
            case .foreign(let reason):
                return [
                    .show(
                        texts.message(
                            .staffCannotEnrolTitle, .staffCannotEnrolBody, .error, ["reason": texts.foreignCard(reason)]
                        )),
                    .indicate(.refused),
                ]
            case .card:
                break
            }
        }
        switch read {
        case .card(let secret): return card(secret, printed: false, now: now)
        case .blank: return [.show(texts.blankCard), .indicate(.refused)]
        case .damaged: return [.show(texts.damagedCard), .indicate(.refused)]
        case .foreign(let reason):
            var message = texts.notAKioskCard
            message.body = texts.foreignCard(reason) + " " + message.body
            return [.show(message), .indicate(.refused)]
        }
    }

    /// A kiosk card (tapped, or its printed code scanned).
    private mutating func card(_ secret: CardSecret, printed: Bool, now: ClockReading) -> [StationAction] {
        switch secret.kind {
        case .staff:
            // The kind byte is no proof: anyone can write it to a tag or into a printed code.
            if printed {
                return [
                    .show(
                        texts.message(.staffCodeNotStaffTitle, .staffCodeNotStaffBody, .error)), .indicate(.refused),
                ]
            }
            guard isEnrolledStaffCard(secret) else {
                return [
                    .show(
                        texts.message(.staffNotStaffHereTitle, .staffNotStaffHereBody, .error)),
                    .indicate(.refused),
                ]
            }
            if case .staff(let step, _) = mode, !step.isBusy { return leaveStaffMode() }
            return openStaffMode(now: now)
        case .visitor:
            var actions = [StationAction]()
            if let until = sessionRequestUntil, now.now < until {
                sessionRequestUntil = nil
                return openSession(secret, source: printed ? .printedCode : .reader, now: now)
            }
            sessionRequestUntil = nil
            guard now.isSynchronized else {
                return actions + [.show(texts.clockNotSet), .indicate(.clockNotSet)]
            }
            guard let venue = state.venue else {
                return actions + [.show(texts.notSetUp), .indicate(.error)]
            }
            forgetCardOnReader()
            if !printed { cardOnReader = secret }
            return actions + [.recordTap(secret, venue.stayVenue)]
        }
    }

    private mutating func codeScanned(_ text: String, now: ClockReading) -> [StationAction] {
        if isStaffCode(text) {
            if case .staff = mode {
                extendStaff(now: now)
                return []
            }
            return openStaffMode(now: now)
        }
        do {
            let secret = try CardSecret(printedText: text)
            return card(secret, printed: true, now: now)
        } catch .notACardCode {
            // Not a card code: maybe a venue code.
        } catch {
            return [
                .show(
                    texts.message(.stationCardCodeInvalidTitle, .stationCardCodeInvalidBody, .error)),
                .indicate(.refused),
            ]
        }
        let venue: VenueCode
        do {
            venue = try parser.parse(text, crypto: crypto)
        } catch .notAVenueCode, .tooLong {
            return [.show(texts.notACheckInCode), .indicate(.error)]
        } catch {
            return [
                .show(
                    texts.message(
                        .staffVenueCodeUnusableTitle, .staffVenueCodeUnusableBody, .error,
                        ["code": error.cwaErrorCode ?? "-"])),
                .indicate(.error),
            ]
        }
        guard case .staff = mode else { return [.show(texts.venueCodeHint), .indicate(.refused)] }
        extendStaff(now: now)
        return bind(venue, posterURL: nil, now: now, created: false)
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

    private mutating func tapDone(_ outcome: TapOutcome, warning: WarningNotice?, now: ClockReading) -> [StationAction]
    {
        var actions = [StationAction]()
        var changed = false
        switch outcome {
        case .checkedIn(_, let automaticCheckout, let endedElsewhere):
            // Rounded up to the hour: the counter stays conservative and keeps no check-in time to the minute.
            let hour = (automaticCheckout.timeIntervalSince1970 / 3600).rounded(.up) * 3600
            state.openCheckInEnds.append(Date(timeIntervalSince1970: hour))
            state.openCheckInEnds.sort()
            changed = true
            actions += [.show(endedElsewhere ? texts.checkedInEndedElsewhere : texts.checkedIn), .indicate(.accepted)]
        case .checkedOut:
            // The earliest entry goes: the counter may stay high for a while, never low.
            if !state.openCheckInEnds.isEmpty {
                state.openCheckInEnds.removeFirst()
                changed = true
            }
            actions += [.show(texts.checkedOut), .indicate(.checkedOut)]
        case .alreadyRegistered:
            actions += [.show(texts.alreadyRegistered), .indicate(.accepted)]
        case .refused(let refusal):
            actions += [
                .show(texts.message(.stationNotRecordedTitle, body: texts.refusal(refusal), .error)),
                .indicate(Self.pattern(for: refusal)),
            ]
        }
        if let warning, !warning.exposureDays.isEmpty {
            var index = state.warnings.firstIndex { crypto.constantTimeEquals($0.tag, warning.acknowledgementTag) }
            if index == nil {
                state.warnings.append(
                    WarningRecord(
                        tag: warning.acknowledgementTag,
                        expiryHour: warning.expiryHour))
                index = state.warnings.count - 1
                changed = true
            }
            if let index, !state.warnings[index].acknowledged {
                // The warning belongs to the card: the public screen only says there is news for it (no day, no
                // place) and offers its holder's session, where it is read, acknowledged and its slip printed.
                actions += [
                    .show(cardOnReader == nil ? texts.newsForCardShowCode : texts.newsForCard),
                    .indicate(.warningPending),
                ]
            }
        }
        // Feedback first: the stay is already durable; this state only keeps the counter and the warnings.
        if changed { actions.append(.persist(state)) }
        return actions
    }

    static func pattern(for refusal: TapRefusal) -> IndicatorPattern {
        switch refusal {
        case .clockNotSynchronized: .clockNotSet
        case .storeUnavailable, .cryptoFailure: .error
        case .clockBehindLastTap, .dailyLimitReached, .staffCard, .eventEnded, .cardBlocked: .refused
        }
    }

    mutating func buttonPressed(_ button: StationButton, now: ClockReading) -> [StationAction] {
        if case .staff(let step, _) = mode {
            extendStaff(now: now)
            switch (step, button) {
            case (.confirmingWipe(let forget), .confirm):
                return startWipe(forgetVenue: forget, now: now)
            case (.confirmingWipe, .cancel):
                mode = .staff(.menu, until: staffUntil(now))
                return [.show(texts.message(.staffNotWipedTitle, .staffNotWipedBody, .info))]
            case (.awaitingVenueCode, .cancel), (.awaitingBlankCard, .cancel):
                mode = .staff(.menu, until: staffUntil(now))
                return [.show(staffMenu)]
            default:
                break
            }
        }
        if let answered = answerReprintOffer(button, now: now) { return answered }
        return []
    }

    // MARK: - Staff mode

    var staffMenu: StationMessage { texts.message(.staffMenuTitle, .staffMenuBody, .prompt) }

    private func staffUntil(_ now: ClockReading) -> Date { now.now.addingTimeInterval(configuration.staffTimeout) }

    mutating func extendStaff(now: ClockReading) {
        if case .staff(let step, _) = mode { mode = .staff(step, until: staffUntil(now)) }
    }

    private mutating func openStaffMode(now: ClockReading) -> [StationAction] {
        mode = .staff(.menu, until: staffUntil(now))
        return [.show(staffMenu), .indicate(.accepted)]
    }

    private mutating func leaveStaffMode() -> [StationAction] {
        mode = .visitor
        enrolKind = .visitor
        wipePendingCard()
        dropEnrolmentQuestions()
        dropReprintOffer()
        return [.show(texts.message(.staffClosedTitle, .staffClosedBody, .info))]
    }

    private mutating func closeStaffModeIfIdle(now: ClockReading) -> [StationAction] {
        guard case .staff(let step, let until) = mode, now.now >= until else { return [] }
        if step.isBusy {
            mode = .staff(step, until: staffUntil(now))
            return []
        }
        return leaveStaffMode()
    }

    mutating func staffCommand(_ command: StaffCommand, now: ClockReading) -> [StationAction] {
        guard case .staff(let step, _) = mode else {
            return [
                .show(
                    texts.message(.staffNotOpenTitle, .staffNotOpenBody, .error)),
                .indicate(.refused),
            ]
        }
        if step.isBusy, command != .leave {
            return [
                .show(
                    texts.message(.staffBusyTitle, .staffBusyBody, .info))
            ]
        }
        extendStaff(now: now)
        dropEnrolmentQuestions()
        let until = staffUntil(now)
        switch command {
        case .bindVenue:
            mode = .staff(.awaitingVenueCode, until: until)
            return [
                .show(
                    texts.message(.staffBindVenueTitle, .staffBindVenueBody, .prompt))
            ]
        case .createVenue(let draft):
            let fields: CWAVenueEncoder.Fields
            do { fields = try draft.validated() } catch {
                return [
                    .show(
                        texts.message(
                            .staffVenueNotCreatedTitle, .staffVenueNotCreatedBody, .error, ["code": error.fieldNames])),
                    .indicate(.refused),
                ]
            }
            mode = .staff(.creatingVenue(CWAFields(fields)), until: until)
            return [.requestRandom(.venueSeed)]
        case .rotateVenueCode:
            guard let venue = state.venue else {
                return [
                    .show(texts.message(.staffNoVenueTitle, .staffNoVenueBody, .error)),
                    .indicate(.refused),
                ]
            }
            guard let fields = venue.cwaFields else {
                return [
                    .show(
                        texts.message(.staffNotRenewableTitle, .staffNotRenewableBody, .error)), .indicate(.refused),
                ]
            }
            if let refusal = refusalWhileCheckedIn(now: now) { return refusal }
            mode = .staff(.rotating(fields), until: until)
            return [.requestRandom(.rotatedVenueSeed)]
        case .reprintPoster:
            guard let venue = state.venue, let url = venue.posterURL else {
                return [
                    .show(
                        texts.message(.staffNoPosterTitle, .staffNoPosterBody, .error)), .indicate(.refused),
                ]
            }
            return [
                printAction(.venuePoster(VenuePoster(url: url, description: venue.description, address: venue.address)))
            ]
        case .enrolCard:
            enrolKind = .visitor
            mode = .staff(.awaitingBlankCard, until: until)
            return [
                .show(texts.message(.staffEnrolCardTitle, .staffEnrolCardBody, .prompt))
            ]
        case .enrolStaffCard:
            enrolKind = .staff
            mode = .staff(.awaitingBlankCard, until: until)
            return [
                .show(
                    texts.message(.staffEnrolStaffCardTitle, .staffEnrolStaffCardBody, .prompt))
            ]
        case .forgetStaffCards:
            guard configuration.staffCode?.isEmpty == false else {
                return [
                    .show(
                        texts.message(.staffStaffCardsKeptTitle, .staffStaffCardsKeptBody, .error)),
                    .indicate(.refused),
                ]
            }
            let count = state.staffCards.count
            state.staffCards = []
            return [
                .persist(state),
                .show(
                    texts.message(
                        .staffStaffCardsForgottenTitle, body: texts.catalog.count(.staffStaffCardsForgottenBody, count),
                        .success)),
                .indicate(.accepted),
            ]
        case .printStatus:
            let slip = StatusSlip(
                venueFormat: state.venue?.formatName, venueFingerprint: state.venue?.fingerprint,
                openCheckIns: state.openCheckIns(now: now), clockSynchronized: now.isSynchronized, printedAt: now.now,
                staffCards: state.staffCards.count)
            return [printAction(.statusSlip(slip))]
        case .wipe(let confirmed, let forgetVenue):
            if confirmed { return startWipe(forgetVenue: forgetVenue, now: now) }
            mode = .staff(.confirmingWipe(forgetVenue: forgetVenue), until: until)
            return [
                .show(
                    texts.message(
                        .staffWipeAskTitle, forgetVenue ? .staffWipeAskForgetVenue : .staffWipeAskKeepVenue, .prompt))
            ]
        case .leave:
            return leaveStaffMode()
        }
    }

    /// The one refusal of anything that would change the venue while visitors may be checked in at it: their
    /// leaving tap would start a stay at the new venue. Nil when nobody may be.
    private func refusalWhileCheckedIn(now: ClockReading) -> [StationAction]? {
        let open = state.openCheckIns(now: now)
        guard open > 0 else { return nil }
        return [
            .show(
                texts.message(.staffNotNowTitle, body: texts.catalog.count(.staffNotNowBody, open), .error)),
            .indicate(.refused),
        ]
    }

    private mutating func startWipe(forgetVenue: Bool, now: ClockReading) -> [StationAction] {
        mode = .staff(.wiping(forgetVenue: forgetVenue), until: staffUntil(now))
        return [.wipeStore]
    }

    /// Binds the kiosk to `venue` (scanned in staff mode, or created here).
    private mutating func bind(_ venue: VenueCode, posterURL: String?, now: ClockReading, created: Bool)
        -> [StationAction]
    {
        let bound: BoundVenue
        do { bound = try BoundVenue(venue, posterURL: posterURL, configuration: configuration, crypto: crypto) } catch {
            return [
                .show(
                    texts.message(
                        .staffVenueNotBoundTitle, .staffVenueNotBoundBody, .error, ["reason": error.description])),
                .indicate(.error),
            ]
        }
        if let end = bound.eventEnd, now.isSynchronized, end <= now.now {
            return [
                .show(
                    texts.message(
                        .staffVenueNotBoundTitle, .staffEventEndedBody, .error,
                        ["date": TimeText.date(unixSeconds: Int64(end.timeIntervalSince1970))])),
                .indicate(.error),
            ]
        }
        if state.venue?.locationId != bound.locationId {
            if state.venue != nil, let refusal = refusalWhileCheckedIn(now: now) { return refusal }
            state.openCheckInEnds = []
        }
        state.venue = bound
        if case .staff = mode { mode = .staff(.menu, until: staffUntil(now)) }
        var actions: [StationAction] = [
            .persist(state),
            .show(
                texts.message(
                    created ? .staffVenueCreatedTitle : .staffVenueBoundTitle,
                    created ? .staffVenueCreatedBody : .staffVenueBoundBody, .success,
                    [
                        "venue": bound.address.isEmpty ? bound.description : "\(bound.description), \(bound.address)",
                        "format": bound.formatName,
                    ])),
            .indicate(.accepted),
        ]
        if let posterURL {
            actions.append(
                printAction(
                    .venuePoster(
                        VenuePoster(
                            url: posterURL, description: bound.description,
                            address: bound.address))))
        }
        return actions
    }

    // MARK: - Results from the runner

    private mutating func randomGenerated(
        _ purpose: RandomPurpose, _ result: Result<[UInt8], StationFailure>,
        now: ClockReading
    ) -> [StationAction] {
        guard case .staff(let step, _) = mode else { return [] }
        var bytes: [UInt8]
        switch result {
        case .success(let value): bytes = value
        case .failure(let failure):
            mode = .staff(.menu, until: staffUntil(now))
            return [
                .show(texts.message(.staffNotDoneTitle, body: texts.failure(failure), .error)), .indicate(.error),
            ]
        }
        defer { crypto.wipe(&bytes) }
        switch (purpose, step) {
        case (.venueSeed, .creatingVenue(let fields)), (.rotatedVenueSeed, .rotating(let fields)):
            guard bytes.count == purpose.byteCount else { return [] }
            let url = CWAVenueEncoder.url(
                payload: CWAVenueEncoder.payload(fields.encoderFields, cryptographicSeed: bytes))
            let venue: VenueCode
            do {
                venue = try VenueCodeParser(cwaDescriptors: CWAQRCodeDescriptor.production).parse(url, crypto: crypto)
            } catch {
                mode = .staff(.menu, until: staffUntil(now))
                return [
                    .show(
                        texts.message(
                            .staffVenueNotCreatedTitle, .staffVenueNotCreatedBody, .error,
                            ["code": error.cwaErrorCode ?? "-"])),
                    .indicate(.refused),
                ]
            }
            return bind(venue, posterURL: url, now: now, created: true)
        case (.cardEntropy, .enrolling):
            guard pendingCard == nil, let secret = try? CardSecret(kind: enrolKind, entropy: bytes) else { return [] }
            pendingCard = secret
            return [.enrolCard(secret)]
        default:
            return []
        }
    }

    private mutating func enrolDone(_ result: Result<Void, StationFailure>) -> [StationAction] {
        guard case .staff(.enrolling, let until) = mode, let secret = pendingCard else { return [] }
        defer { wipePendingCard() }
        switch result {
        case .success where secret.kind == .staff:
            mode = .staff(.menu, until: until)
            enrolKind = .visitor
            guard let digest = try? StaffCardDigest.of(secret, crypto: crypto) else {
                return [
                    .show(
                        texts.message(.staffStaffCardNotEnrolledTitle, body: texts.failure(.crypto), .error)),
                    .indicate(.error),
                ]
            }
            if !state.staffCards.contains(where: { crypto.constantTimeEquals($0, digest) }) {
                state.staffCards.append(digest)
            }
            // Saved before it is announced: a staff card that is not saved does not open staff mode.
            return [
                .persist(state),
                .show(
                    texts.message(.staffStaffCardEnrolledTitle, .staffStaffCardEnrolledBody, .success)),
                .indicate(.accepted),
            ]
        case .success:
            mode = .staff(.menu, until: until)
            // The new holder is asked, on the screen, whether the kiosk may match their stays and for a PIN.
            enrolment = EnrolmentQuestions(card: secret)
            return [
                .show(
                    texts.message(.staffCardEnrolledTitle, .staffCardEnrolledBody, .success)), .indicate(.accepted),
                printAction(.personalCard(secret)),
            ]
        case .failure(let failure):
            mode = .staff(.awaitingBlankCard, until: until)
            return [
                .show(
                    texts.message(
                        .staffCardNotEnrolledTitle, .staffCardNotEnrolledBody, .error,
                        ["reason": texts.failure(failure)])), .indicate(.error),
            ]
        }
    }

    private mutating func wipePendingCard() {
        pendingCard?.wipe(using: crypto)
        pendingCard = nil
    }

    /// `.print(job)`, remembering the job until the printer answers (to offer it again if it fails).
    mutating func printAction(_ job: PrintJob) -> StationAction {
        if var earlier = printing.updateValue(job, forKey: job.kind) { earlier.wipe(using: crypto) }
        return .print(job)
    }

    private mutating func printDone(
        _ kind: PrintJob.Kind, _ result: Result<Void, StationFailure>,
        now: ClockReading
    ) -> [StationAction] {
        var job = printing.removeValue(forKey: kind)
        guard case .failure(let failure) = result else {
            job?.wipe(using: crypto)
            return []
        }
        dropReprintOffer()
        guard let job else {
            return [
                .show(
                    texts.message(
                        .staffNotPrintedTitle, .staffNotPrintedLater, .error, ["reason": texts.failure(failure)])),
                .indicate(.error),
            ]
        }
        reprintOffer = (job, now.now.addingTimeInterval(answerTime))
        return [
            .show(
                texts.message(
                    .staffNotPrintedTitle, .staffNotPrintedOffer, .error,
                    ["job": texts.printJob(job.kind), "reason": texts.failure(failure)])),
            .indicate(.error),
        ]
    }

    /// Confirm prints the offered receipt again now; cancel drops it. Nil when no offer is open.
    private mutating func answerReprintOffer(_ button: StationButton, now: ClockReading) -> [StationAction]? {
        guard let offer = reprintOffer else { return nil }
        guard now.now < offer.until else {
            dropReprintOffer()
            return nil
        }
        reprintOffer = nil
        switch button {
        case .confirm:
            return [
                .show(
                    texts.message(
                        .staffPrintingTitle, .staffPrintingBody, .info, ["job": texts.printJob(offer.job.kind)])),
                printAction(offer.job),
            ]
        case .cancel:
            var job = offer.job
            job.wipe(using: crypto)
            return [
                .show(
                    texts.message(.staffNotPrintedTitle, .staffNotPrintedCancelled, .info))
            ]
        }
    }

    private mutating func dropReprintOffer() {
        reprintOffer?.job.wipe(using: crypto)
        reprintOffer = nil
    }

    private mutating func persistDone(_ result: Result<Void, StationFailure>) -> [StationAction] {
        switch result {
        case .success:
            persisted = state
            needsPersist = false
            return []
        case .failure(let failure):
            // A binding or a staff card that is not saved is not used (a staff card forgotten stays forgotten);
            // counters and warnings are kept in memory and saved later.
            state.venue = persisted.venue
            let crypto = self.crypto
            let saved = persisted.staffCards
            state.staffCards.removeAll { card in !saved.contains { crypto.constantTimeEquals($0, card) } }
            needsPersist = true
            return [
                .show(texts.message(.staffSettingsNotSavedTitle, body: texts.failure(failure), .error)),
                .indicate(.error),
            ]
        }
    }

    private mutating func wipeDone(_ result: Result<Void, StationFailure>) -> [StationAction] {
        guard case .staff(.wiping(let forgetVenue), let until) = mode else { return [] }
        mode = .staff(.menu, until: until)
        switch result {
        case .success:
            state.openCheckInEnds = []
            state.warnings = []
            state.staffCards = []
            if forgetVenue { state.venue = nil }
            return [
                .persist(state),
                .show(
                    texts.message(
                        .staffWipedTitle, forgetVenue ? .staffWipedForgetVenue : .staffWipedKeepVenue, .success)),
                .indicate(.accepted),
            ]
        case .failure(let failure):
            return [
                .show(texts.message(.staffNotWipedTitle, body: texts.failure(failure), .error)), .indicate(.error),
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

    // MARK: - Time

    private mutating func clockChanged(_ reading: ClockReading) -> [StationAction] {
        let was = clockWasSynchronized
        clockWasSynchronized = reading.isSynchronized
        if reading.isSynchronized {
            guard was == false else { return [] }
            lastExpiryHour = nil
            return [.show(texts.clockSet)]
        }
        guard was != false else { return [] }
        return [.show(texts.clockNotSet), .indicate(.clockNotSet)]
    }

    private mutating func tick(now: ClockReading) -> [StationAction] {
        var actions = [StationAction]()
        actions += sessionTick(now: now)
        if let offer = reprintOffer, now.now >= offer.until { dropReprintOffer() }
        // Expiry runs at the first tick whose clock knows a lower bound of the real time, then as each of its hours
        // begins (rows expire by the hour), synchronized or not.
        if let earliest = now.earliest, RetentionPolicy.hourNumber(earliest) != lastExpiryHour {
            lastExpiryHour = RetentionPolicy.hourNumber(earliest)
            actions.append(.expireNow)
        }
        if needsPersist {
            needsPersist = false
            actions.append(.persist(state))
        }
        return actions
    }

    /// Drops counter entries and warning records that have run out, by the clock's lower bound of the real time
    /// (warning records by the hour, as the stays they concern), and has the state saved at the next tick so that
    /// what went from memory goes from the disk too.
    private mutating func prune(now: ClockReading) {
        guard let earliest = now.earliest else { return }
        let before = (state.openCheckInEnds.count, state.warnings.count)
        state.openCheckInEnds.removeAll { $0 <= earliest }
        state.warnings.removeAll { $0.expiryHour <= RetentionPolicy.hourNumber(earliest) }
        if (state.openCheckInEnds.count, state.warnings.count) != before { needsPersist = true }
    }
}
