public import Foundation

/// The questions a new card's holder answers at enrolment, on the screen: may the kiosk match their stays against
/// warnings (yes and no alike, nothing selected), and an optional PIN (typed twice).
struct EnrolmentQuestions: Sendable {
    enum Step: Sendable, Equatable {
        case matching
        case pinOffer
        case pin(first: String?, typed: String, problem: String?)
        case saving
    }

    var card: CardSecret
    var step: Step = .matching
    var matching: Bool?

    init(card: CardSecret) { self.card = card }
}

/// The card holder's session and the screen: what the station shows, the choices and the two buttons.
extension CheckInMachine {
    /// How long a visitor's message (checked in, checked out, refused) stays before the idle screen returns.
    public static let messageHoldTime: TimeInterval = 15
    /// How long the kiosk waits for a card after "My check-ins" was chosen: short, for meanwhile a card tapped opens
    /// its session instead of checking in (the warning and "More time" come 20 seconds before the end).
    public static let sessionRequestTime: TimeInterval = 45

    /// Whether a card holder's session is open.
    public var isSessionOpen: Bool { session != nil }

    // MARK: - The screen

    /// What the screen shows at `now`: the enrolment questions, the holder's session, the prompt for a card after
    /// "My check-ins", the last message for a while (in staff mode until the next one), or the idle screen. The
    /// selected choice is the one the buttons moved to on this same screen.
    public func screen(now: ClockReading) -> ScreenModel {
        var screen = offeringSpeechSettings(baseScreen(now: now), now: now.now)
        if let selection, selection.key == Self.identity(of: screen),
            selection.index.map(screen.choices.indices.contains) != false
        {
            screen.selected = selection.index
        }
        return screen
    }

    private func baseScreen(now: ClockReading) -> ScreenModel {
        // The speech settings lie over whatever is under them, and give it back as it was.
        if let until = speechSettingsDeadline(now: now.now) {
            return warningBeforeEnd(speechSettingsScreen(), until: until, now: now.now)
        }
        // Whatever waits for an answer (staff mode, the enrolled card's questions too; the wait for a card; the
        // languages; a receipt offered again) says before it ends that it will.
        let screen = stationScreen(now: now)
        guard let until = waitingDeadline(now: now.now) else { return screen }
        return warningBeforeEnd(screen, until: until, now: now.now)
    }

    /// The screen under the speech settings, without the warning before a wait ends.
    private func stationScreen(now: ClockReading) -> ScreenModel {
        if let enrolment { return enrolmentScreen(enrolment) }
        if let session { return session.screen(now: now.now) }
        if let until = sessionRequestUntil, now.now < until {
            return messageScreen(texts.sessionPrompt, choices: [.init(id: "cancel-session", label: texts.cancel)])
        }
        var choices = [ScreenModel.Choice]()
        if case .staff(.menu, _) = mode, reprintOffer.map({ now.now < $0.until }) != true {
            // The menu's entries, chosen on the screen or with the two buttons.
            choices = StaffCommand.menu.map { .init(id: "staff:" + $0.name, label: texts.catalog[$0.label]) }
        } else if case .staff = mode {
            choices = [.init(id: "confirm", label: texts.confirm), .init(id: "cancel", label: texts.cancel)]
        } else if reprintOffer.map({ now.now < $0.until }) == true {
            choices = [.init(id: "confirm", label: texts.confirm), .init(id: "cancel", label: texts.cancel)]
        } else {
            choices = [
                .init(id: "session", label: texts.myCheckIns), .init(id: "language", label: texts.languageChoice),
            ]
        }
        if let since = choosingLanguage, now.now.timeIntervalSince(since) < answerTime {
            return LanguageChoice.screen(in: texts.catalog, back: .init(id: "cancel-language", label: texts.cancel))
        }
        if let shown = lastShown {
            var staff = false
            if case .staff = mode { staff = true }
            // A clock set back (or not yet set) keeps the message rather than dropping it early.
            if staff || now.now.timeIntervalSince(shown.at) < Self.messageHoldTime
                || reprintOffer.map({ now.now < $0.until }) == true
            {
                return messageScreen(shown.message, choices: choices)
            }
        }
        let idle: StationMessage
        if !now.isSynchronized {
            idle = texts.clockNotSet
        } else if state.venue == nil {
            idle = texts.notSetUp
        } else {
            idle = texts.idle
        }
        var screen = messageScreen(idle, choices: choices)
        screen.kind = "idle"
        return screen
    }

    /// How long a screen that waits for a visitor's answer waits (the languages, the speech settings, a receipt
    /// offered again, a printed code's session): the venue's `checkIns.sessionInactivitySeconds`.
    public var answerTime: TimeInterval { configuration.sessionInactivity }
    /// How long before a waiting screen ends by itself it says so and offers more time: the 20 seconds WCAG 2.2.1
    /// gives to ask for more, as a printed code's session does.
    public static let timeWarning: TimeInterval = VisitorSession.inactivityWarning

    /// When the screen shown now stops waiting by itself, if it waits at all: the speech settings over everything;
    /// otherwise the earliest of staff mode, the wait for a card after "My check-ins", the languages and a receipt
    /// offered again. A session warns by its own rule (a printed code's) or lasts while its card lies on the reader.
    func waitingDeadline(now: Date) -> Date? {
        if let until = speechSettingsDeadline(now: now) { return until }
        guard session == nil else { return nil }
        var deadlines = [Date]()
        if let until = staffDeadline(now: now) { deadlines.append(until) }
        if enrolment == nil {
            if let until = sessionRequestUntil, now < until { deadlines.append(until) }
            if let since = choosingLanguage, now.timeIntervalSince(since) < answerTime {
                deadlines.append(since.addingTimeInterval(answerTime))
            }
            if let offer = reprintOffer, now < offer.until { deadlines.append(offer.until) }
        }
        return deadlines.min()
    }

    /// "More time" on a waiting screen: everything that waits starts its time again. False when nothing waits here.
    mutating func moreTime(now: ClockReading) -> Bool {
        guard session == nil, waitingDeadline(now: now.now) != nil else { return false }
        extendStaff(now: now)
        if sessionRequestUntil != nil { sessionRequestUntil = now.now.addingTimeInterval(Self.sessionRequestTime) }
        if choosingLanguage != nil { choosingLanguage = now.now }
        if let offer = reprintOffer { reprintOffer = (offer.job, now.now.addingTimeInterval(answerTime)) }
        return true
    }

    /// When staff mode closes by itself, unless staff act before (not while it is busy: it waits for that).
    func staffDeadline(now: Date) -> Date? {
        guard case .staff(let step, let until) = mode, !step.isBusy, session == nil else { return nil }
        return until
    }

    /// `screen` with, in its last `timeWarning` seconds, the time left and a “More time” choice (a tone comes with
    /// it at the tick, and speech when it is on).
    func warningBeforeEnd(_ screen: ScreenModel, until: Date, now: Date) -> ScreenModel {
        let left = until.timeIntervalSince(now)
        guard left <= Self.timeWarning else { return screen }
        var warned = screen
        warned.lines.append(texts.catalog.text(.timeRunningOut, ["seconds": String(max(0, Int(left.rounded(.up))))]))
        warned.choices.append(.init(id: "more-time", label: texts.catalog[.timeMoreTime]))
        return warned
    }

    func messageScreen(_ message: StationMessage, choices: [ScreenModel.Choice]) -> ScreenModel {
        ScreenModel(
            kind: message.kind.rawValue, title: message.title, lines: [message.body], choices: choices,
            selected: choices.isEmpty ? nil : 0, language: language.rawValue, buttonHint: texts.buttonHint)
    }

    /// What makes two screens the same for the selection: title and choices (the speech settings' choice aside: the
    /// selection stays where it was when speech begins).
    static func identity(of screen: ScreenModel) -> String {
        ([screen.title] + screen.choices.map(\.id).filter { $0 != speechSettingsChoice }).joined(separator: "\u{1F}")
    }

    // MARK: - Buttons and choices

    mutating func navigated(_ button: NavigationButton, now: ClockReading) -> [StationAction] {
        let current = screen(now: now)
        session?.touched(now: now.now)
        extendStaff(now: now)
        switch button {
        case .next:
            selection = (Self.identity(of: current), current.selectingNext().selected)
            return []
        case .choose:
            guard let id = current.selectedID else { return [] }
            return chosen(id, now: now)
        }
    }

    mutating func chosen(_ id: String, now: ClockReading) -> [StationAction] {
        let current = screen(now: now)
        guard current.offers(id) else { return [] }
        selection = nil
        if let handled = chosenForSpeech(id, now: now) { return handled }
        // More time answers none of the questions under it (an enrolled card's stay where they were).
        if id == "more-time", moreTime(now: now) { return [] }
        if enrolment != nil { return answerEnrolment(id, now: now) }
        if session != nil {
            guard var open = session else { return [] }
            let effect = open.choose(id, now: now.now)
            session = open
            return perform(effect, now: now)
        }
        switch id {
        case "session":
            if var card = cardOnReader {
                cardOnReader = nil
                defer { card.wipe(using: crypto) }
                return openSession(card, source: .reader, now: now)
            }
            sessionRequestUntil = now.now.addingTimeInterval(Self.sessionRequestTime)
            return []
        case "cancel-session":
            sessionRequestUntil = nil
            return []
        case "language":
            choosingLanguage = now.now
            return []
        case "cancel-language":
            choosingLanguage = nil
            return []
        case _ where LanguageChoice.language(of: id) != nil:
            choosingLanguage = nil
            visitorLanguage = LanguageChoice.language(of: id).map { ($0, now.now) }
            // A message still held (a tap's result) was written in the old language: the idle screen, in the new one.
            lastShown = nil
            return []
        case _ where id.hasPrefix("staff:"):
            guard let command = StaffCommand.named(String(id.dropFirst("staff:".count))) else { return [] }
            return staffCommand(command, now: now)
        case "confirm": return buttonPressed(.confirm, now: now)
        case "cancel": return buttonPressed(.cancel, now: now)
        default: return []
        }
    }

    // MARK: - Opening and closing

    mutating func openSession(_ card: CardSecret, source: VisitorSession.Source, now: ClockReading)
        -> [StationAction]
    {
        if session != nil { _ = closeSession(message: nil) }
        session = VisitorSession(
            card: card, source: source, now: now.now, language: language, warningAdvice: configuration.warningAdvice,
            inactivityLimit: configuration.sessionInactivity)
        selection = nil
        return [.openCard(card)]
    }

    /// Closes the session: its card is wiped and the screen shows nothing of it any more.
    mutating func closeSession(message: StationMessage?) -> [StationAction] {
        session?.wipe(using: crypto)
        session = nil
        speechSettingsOpened = nil
        pendingRequest = nil
        selection = nil
        guard let message else {
            lastShown = nil
            return []
        }
        return [.show(message)]
    }

    mutating func cardRemoved() -> [StationAction] {
        forgetCardOnReader()
        guard session?.source == .reader else { return [] }
        // Taking the card away closes its session at once.
        return closeSession(message: nil)
    }

    mutating func forgetCardOnReader() {
        cardOnReader?.wipe(using: crypto)
        cardOnReader = nil
    }

    mutating func sessionTick(now: ClockReading) -> [StationAction] {
        if let until = sessionRequestUntil, now.now >= until { sessionRequestUntil = nil }
        if speechSettingsOpened != nil, speechSettingsDeadline(now: now.now) == nil {
            // The speech settings ran out: what lay under them comes back, an open session with its full time.
            speechSettingsOpened = nil
            session?.touched(now: now.now)
        }
        if let deadline = waitingDeadline(now: now.now), deadline.timeIntervalSince(now.now) <= Self.timeWarning,
            timeoutAnnounced != deadline
        {
            // A waiting screen about to end: a tone beside its words, once.
            timeoutAnnounced = deadline
            return [.indicate(.timeRunningOut)]
        }
        // A session under the speech settings waits for them.
        guard let session, session.source == .printedCode, speechSettingsOpened == nil else { return [] }
        let idle = now.now.timeIntervalSince(session.lastActivity)
        if idle >= session.inactivityLimit { return closeSession(message: SessionTexts(language).closedMessage) }
        // The warning before the end: on the screen (and aloud when speech is on), and with a tone, once per quiet
        // spell; any choice (“More time” among them) starts the time again.
        guard idle >= session.inactivityLimit - VisitorSession.inactivityWarning,
            timeoutAnnounced != session.lastActivity
        else { return [] }
        timeoutAnnounced = session.lastActivity
        return [.indicate(.timeRunningOut)]
    }

    // MARK: - Answers from the runner

    mutating func cardOpened(_ result: Result<VisitorSession.CardView, StationFailure>, now: ClockReading)
        -> [StationAction]
    {
        guard var open = session else { return [] }
        switch result {
        case .success(var view):
            view.warningAcknowledged = isAcknowledged(view.warning)
            let effect = open.answered(.contents(view), now: now.now)
            session = open
            return perform(effect, now: now)
        case .failure(let failure):
            let refusal: IndicatorPattern = failure == .refused(.cardBlocked) ? .refused : .error
            return closeSession(message: texts.message(.sessionNotOpened, body: texts.failure(failure), .error))
                + [.indicate(refusal)]
        }
    }

    mutating func cardAnswered(_ result: Result<VisitorSession.Answer, StationFailure>, now: ClockReading)
        -> [StationAction]
    {
        let request = pendingRequest
        pendingRequest = nil
        if let enrolment, case .saving = enrolment.step {
            dropEnrolmentQuestions()
            switch result {
            case .success: return [.show(SessionTexts(language).enrolmentSaved)]
            case .failure(let failure):
                return [
                    .show(texts.message(.sessionNotSaved, body: texts.failure(failure), .error)),
                    .indicate(.error),
                ]
            }
        }
        guard var open = session else { return [] }
        if request == .block, case .success = result {
            return closeSession(message: SessionTexts(language).blockedMessage) + [.indicate(.accepted)]
        }
        let answer: VisitorSession.Answer
        switch result {
        case .success(var value):
            if case .contents(var view) = value {
                view.warningAcknowledged = isAcknowledged(view.warning)
                value = .contents(view)
            }
            answer = value
        case .failure(let failure): answer = .failed(failure.description)
        }
        let effect = open.answered(answer, now: now.now)
        session = open
        return perform(effect, now: now)
    }

    private func isAcknowledged(_ warning: WarningNotice?) -> Bool {
        guard let warning else { return false }
        return state.warnings.contains {
            $0.acknowledged && crypto.constantTimeEquals($0.tag, warning.acknowledgementTag)
        }
    }

    /// Carries out what the session asked for.
    private mutating func perform(_ effect: VisitorSession.Effect, now: ClockReading) -> [StationAction] {
        switch effect {
        case .none:
            return []
        case .close(let reason):
            return closeSession(
                message: StationMessage(title: SessionTexts(language).closedTitle, body: reason, kind: .info))
        case .request(let request):
            guard var open = session else { return [] }
            switch request {
            case .acknowledgeWarning(let tag):
                // Only the card's holder, in their session, acknowledges its warning.
                let expiry = open.view?.warning?.expiryHour ?? 0
                if let index = state.warnings.firstIndex(where: { crypto.constantTimeEquals($0.tag, tag) }) {
                    state.warnings[index].acknowledged = true
                } else {
                    state.warnings.append(WarningRecord(tag: tag, expiryHour: expiry, acknowledged: true))
                }
                _ = open.answered(.done, now: now.now)
                session = open
                return [.persist(state), .acknowledgeWarning(tag: tag)]
            case .printWarningSlip(let slip):
                // Printed only now, while its holder is here and asked for it.
                _ = open.answered(.done, now: now.now)
                session = open
                return [printAction(.warningSlip(slip))]
            default:
                pendingRequest = request
                return [.cardRequest(open.card, request)]
            }
        }
    }

    // MARK: - Enrolment questions

    private func enrolmentScreen(_ questions: EnrolmentQuestions) -> ScreenModel {
        let texts = SessionTexts(language)
        var screen: ScreenModel
        switch questions.step {
        case .matching:
            screen = texts.matchingQuestion()
        case .pinOffer:
            screen = ScreenModel(
                kind: "prompt", title: texts.pinOfferTitle, lines: [texts.pinOfferExplained],
                choices: [.init(id: "set-pin", label: texts.setPIN), .init(id: "no-pin", label: texts.noPIN)],
                selected: nil)
        case .pin(let first, let typed, let problem):
            screen = ScreenModel(
                kind: "prompt", title: first == nil ? texts.newPINTitle : texts.repeatPINTitle,
                lines: [problem, texts.pinRule, texts.digitsTyped(typed.count)].compactMap { $0 },
                choices: (0...9).map { ScreenModel.Choice(id: "key:\($0)", label: "\($0)") } + [
                    .init(id: "key:delete", label: texts.deleteKey), .init(id: "key:ok", label: texts.okKey),
                    .init(id: "no-pin", label: texts.noPIN),
                ],
                keypad: .init(
                    purpose: .pin, shown: String(repeating: "•", count: typed.count),
                    keys: (0...9).map(String.init)))
        case .saving:
            screen = ScreenModel(kind: "prompt", title: texts.opening, lines: [texts.keepCard])
        }
        screen.buttonHint = texts.buttonHint
        return screen
    }

    private mutating func answerEnrolment(_ id: String, now: ClockReading) -> [StationAction] {
        guard var questions = enrolment else { return [] }
        extendStaff(now: now)
        switch questions.step {
        case .matching:
            guard id == "yes" || id == "no" else { return [] }
            questions.matching = id == "yes"
            questions.step = .pinOffer
        case .pinOffer:
            if id == "set-pin" {
                questions.step = .pin(first: nil, typed: "", problem: nil)
            } else {
                return saveEnrolment(questions, pin: nil)
            }
        case .pin(let first, let typed, _):
            if id == "no-pin" { return saveEnrolment(questions, pin: nil) }
            switch VisitorSession.keypad(id, typed: typed, maxLength: CardProfile.pinLengths.upperBound) {
            case .typed(let now): questions.step = .pin(first: first, typed: now, problem: nil)
            case .submit(let pin):
                let texts = SessionTexts(language)
                if !CardProfile.isWellFormed(pin) {
                    questions.step = .pin(first: first, typed: "", problem: texts.pinFormat)
                } else if let first {
                    guard first == pin else {
                        questions.step = .pin(first: nil, typed: "", problem: texts.pinMismatch)
                        enrolment = questions
                        return []
                    }
                    return saveEnrolment(questions, pin: pin)
                } else {
                    questions.step = .pin(first: pin, typed: "", problem: nil)
                }
            case .other: break
            }
        case .saving:
            break
        }
        enrolment = questions
        return []
    }

    private mutating func saveEnrolment(_ questions: EnrolmentQuestions, pin: String?) -> [StationAction] {
        var questions = questions
        questions.step = .saving
        enrolment = questions
        let request = VisitorSession.Request.saveEnrolment(matching: questions.matching ?? false, pin: pin)
        pendingRequest = request
        return [.cardRequest(questions.card, request)]
    }

    mutating func dropEnrolmentQuestions() {
        enrolment?.card.wipe(using: crypto)
        enrolment = nil
    }
}
