public import Foundation

/// The card holder's session inside the visitor's context: opening it, the runner's answers, what it asks for, and
/// the person's deadlines.
extension CheckInMachine {
    /// Whether a card holder's session is open.
    public var isSessionOpen: Bool { person?.session != nil }

    // MARK: - Opening and closing

    mutating func openSession(_ card: VisitorCard, source: VisitorSession.Source, now: ClockReading)
        -> [StationAction]
    {
        let session = VisitorSession(
            card: card, source: source, now: now.now, language: language, warningAdvice: configuration.warningAdvice,
            inactivityLimit: configuration.sessionInactivity, zone: configuration.timeZone,
            staysPerPage: configuration.screen.staysPerPage)
        person?.activity = .session(session)
        person?.selection = nil
        return [.openCard(card)]
    }

    /// Closes the session: its holder has left, everything of theirs goes and the screen shows nothing of it.
    mutating func closeSession(message: StationMessage?) -> [StationAction] { personLeaves(message: message) }

    /// The person's deadlines at a tick: the wait for a card and the languages end; the speech settings give back
    /// what lay under them; a screen about to end by itself says so with a tone, once; a session without a choice
    /// for its time closes (whatever opened it: a card left on the reader too); a person who does nothing in
    /// particular is gone after `visitorLanguageTime`.
    mutating func personTick(now: ClockReading) -> [StationAction] {
        if case .visitor(var person) = foreground {
            switch person.activity {
            case .awaitingCard(let until) where now.now >= until: person.activity = .browsing
            case .choosingLanguage(let until) where now.now >= until: person.activity = .browsing
            default: break
            }
            foreground = .visitor(person)
        }
        if person?.speech.settingsOpened != nil, speechSettingsDeadline(now: now.now) == nil {
            // The speech settings ran out: what lay under them comes back, an open session with its full time.
            person?.speech.settingsOpened = nil
            person?.session?.touched(now: now.now)
        }
        let announced = housekeeping.announce(waitingDeadline(now: now.now), now: now.now)
        if !announced.isEmpty { return announced }
        guard case .visitor(let person) = foreground else { return [] }
        if let session = person.session {
            guard now.now.timeIntervalSince(session.lastActivity) >= session.inactivityLimit else { return [] }
            // Closed, and its card must leave the reader and come back to open it again.
            return closeSession(message: SessionTexts(language, zone: configuration.timeZone).closedMessage)
        }
        if case .browsing = person.activity, now.now.timeIntervalSince(person.lastActivity) >= Self.visitorLanguageTime
        {
            return personLeaves()
        }
        return []
    }

    // MARK: - Answers from the runner

    mutating func cardOpened(_ result: Result<VisitorSession.CardView, StationFailure>, now: ClockReading)
        -> [StationAction]
    {
        guard var open = person?.session else { return [] }
        switch result {
        case .success(var view):
            view.warningAcknowledged = isAcknowledged(view)
            let effect = open.answered(.contents(view), now: now.now)
            person?.session = open
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
        if let questions = staff?.questions, questions.isSaving {
            let language = self.language
            dropEnrolmentQuestions()
            switch result {
            case .success: return [.show(SessionTexts(language).enrolmentSaved)]
            case .failure(let failure):
                return [
                    .show(StationTexts(language).message(.sessionNotSaved, body: texts.failure(failure), .error)),
                    .indicate(.error),
                ]
            }
        }
        guard var open = person?.session else { return [] }
        let request = person?.pendingRequest
        person?.pendingRequest = nil
        // A deletion by the holder takes what the station derived from the card's stays with it: its warning
        // records (their tags were found with the card's keys when the session opened).
        var forgotten = [StationAction]()
        if case .success = result, let request, request.deletesStays {
            forgotten = forgetWarnings(open.view?.ownedWarnings ?? [])
        }
        if case .acknowledgeWarning(let tag)? = request, case .success = result {
            forgotten.append(.acknowledgeWarning(tag: tag))
        }
        if request == .block, case .success = result {
            return forgotten + closeSession(message: SessionTexts(language).blockedMessage) + [.indicate(.accepted)]
        }
        let answer: VisitorSession.Answer
        switch result {
        case .success(var value):
            if case .contents(var view) = value {
                view.warningAcknowledged = isAcknowledged(view)
                value = .contents(view)
            }
            answer = value
        case .failure(let failure): answer = .failed(failure.description)
        }
        let effect = open.answered(answer, now: now.now)
        person?.session = open
        return forgotten + perform(effect, now: now)
    }

    /// Drops the station's warning records with these tags, and has the state saved.
    private mutating func forgetWarnings(_ tags: [[UInt8]]) -> [StationAction] {
        let crypto = self.crypto
        let before = state.warnings.count
        state.warnings.removeAll { record in tags.contains { crypto.constantTimeEquals($0, record.tag) } }
        return state.warnings.count == before ? [] : [.persist(state)]
    }

    /// Whether the view's warning was acknowledged: on the card for a diary card, else in the station's records.
    private func isAcknowledged(_ view: VisitorSession.CardView) -> Bool {
        guard let warning = view.warning else { return false }
        if view.contents.profile.acknowledges(warning, using: crypto) { return true }
        return state.warnings.contains {
            $0.acknowledged && crypto.constantTimeEquals($0.tag, warning.acknowledgementTag)
        }
    }

    /// Carries out what the session asked for.
    mutating func perform(_ effect: VisitorSession.Effect, now: ClockReading) -> [StationAction] {
        switch effect {
        case .none:
            return []
        case .close(let reason, let title):
            return closeSession(
                message: StationMessage(title: title ?? SessionTexts(language).closedTitle, body: reason, kind: .info))
        case .request(let request):
            guard var open = person?.session else { return [] }
            switch request {
            case .acknowledgeWarning where open.card.isDiary:
                // A diary card keeps what its holder acknowledged, recognised at every kiosk of the region: nothing of
                // it stays on this one.
                guard let warning = open.view?.warning,
                    let kept = CardProfile.acknowledgement(of: warning, using: crypto)
                else { return [] }
                let onCard = VisitorSession.Request.acknowledgeWarning(tag: kept)
                person?.pendingRequest = onCard
                return [.cardRequest(open.card, onCard)]
            case .acknowledgeWarning(let tag):
                // Only the card's holder, in their session, acknowledges its warning.
                let expiry = open.view?.warning?.expiryHour ?? 0
                let owner = open.view?.warning?.ownerMark
                if let index = state.warnings.firstIndex(where: { crypto.constantTimeEquals($0.tag, tag) }) {
                    state.warnings[index].acknowledged = true
                } else {
                    state.warnings.append(
                        WarningRecord(
                            tag: tag, expiryHour: expiry, acknowledged: true,
                            owner: owner?.isEmpty == false ? owner : nil))
                }
                _ = open.answered(.done, now: now.now)
                person?.session = open
                return [.persist(state), .acknowledgeWarning(tag: tag)]
            case .printWarningSlip(let slip):
                // Printed only now, while its holder is here and asked for it.
                _ = open.answered(.done, now: now.now)
                person?.session = open
                return [printAction(.warningSlip(slip))]
            default:
                person?.pendingRequest = request
                return [.cardRequest(open.card, request)]
            }
        }
    }
}
