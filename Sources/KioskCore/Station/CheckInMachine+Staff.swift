public import Foundation

/// Staff mode: its menu, binding and creating venues, enrolling cards, printing, wiping.
extension CheckInMachine {
    var staffMenu: StationMessage { texts.message(.staffMenuTitle, .staffMenuBody, .prompt) }

    func staffUntil(_ now: ClockReading) -> Date { now.now.addingTimeInterval(configuration.staffTimeout) }

    /// Staff acted: their time starts again.
    mutating func extendStaff(now: ClockReading) {
        let until = staffUntil(now)
        staff?.until = until
    }

    /// Moves staff mode to `step`, with its whole time again.
    mutating func setStaff(_ step: StaffStep, now: ClockReading) {
        let until = staffUntil(now)
        staff?.step = step
        staff?.until = until
    }

    mutating func openStaffMode(now: ClockReading) -> [StationAction] {
        // A visitor's session closes (nothing of its holder stays); the person who opened staff mode keeps what
        // they chose at the kiosk (its language, speech).
        var actions = person?.session != nil ? personLeaves() : []
        var mode = StaffMode(until: staffUntil(now), now: now.now)
        if case .visitor(var person) = foreground {
            person.wipe(using: crypto)
            person.activity = .browsing
            person.cardFingerprint = nil
            person.lastActivity = now.now
            mode.person = person
        }
        foreground = .staff(mode)
        actions += [.show(staffMenu), .indicate(.accepted)]
        return actions
    }

    mutating func leaveStaffMode() -> [StationAction] {
        if var staff {
            staff.wipe(using: crypto)
            self.staff = staff
        }
        foreground = .idle
        return [.show(texts.message(.staffClosedTitle, .staffClosedBody, .info))]
    }

    mutating func closeStaffModeIfIdle(now: ClockReading) -> [StationAction] {
        guard let staff, now.now >= staff.until else { return [] }
        if staff.step.isBusy {
            extendStaff(now: now)
            return []
        }
        return leaveStaffMode()
    }

    mutating func buttonPressed(_ button: StationButton, now: ClockReading) -> [StationAction] {
        guard let step = staff?.step else { return [] }
        extendStaff(now: now)
        switch (step, button) {
        case (.confirmingWipe(let forget), .confirm):
            return startWipe(forgetVenue: forget, now: now)
        case (.confirmingWipe, .cancel):
            setStaff(.menu, now: now)
            return [.show(texts.message(.staffNotWipedTitle, .staffNotWipedBody, .info))]
        case (.awaitingVenueCode, .cancel), (.awaitingBlankCard, .cancel):
            setStaff(.menu, now: now)
            return [.show(staffMenu)]
        default:
            return answerReprintOffer(button, now: now) ?? []
        }
    }

    mutating func staffCommand(_ command: StaffCommand, now: ClockReading) -> [StationAction] {
        guard let step = staff?.step else {
            return [.show(texts.message(.staffNotOpenTitle, .staffNotOpenBody, .error)), .indicate(.refused)]
        }
        if step.isBusy, command != .leave {
            return [.show(texts.message(.staffBusyTitle, .staffBusyBody, .info))]
        }
        extendStaff(now: now)
        dropEnrolmentQuestions()
        switch command {
        case .bindVenue:
            setStaff(.awaitingVenueCode, now: now)
            return [.show(texts.message(.staffBindVenueTitle, .staffBindVenueBody, .prompt))]
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
            setStaff(.creatingVenue(CWAFields(fields)), now: now)
            return [.requestRandom(.venueSeed)]
        case .rotateVenueCode:
            guard let venue = state.venue else {
                return [.show(texts.message(.staffNoVenueTitle, .staffNoVenueBody, .error)), .indicate(.refused)]
            }
            guard let fields = venue.cwaFields else {
                return [
                    .show(texts.message(.staffNotRenewableTitle, .staffNotRenewableBody, .error)), .indicate(.refused),
                ]
            }
            if let refusal = refusalWhileCheckedIn(now: now) { return refusal }
            setStaff(.rotating(fields), now: now)
            return [.requestRandom(.rotatedVenueSeed)]
        case .reprintPoster:
            guard let venue = state.venue, let url = venue.posterURL else {
                return [.show(texts.message(.staffNoPosterTitle, .staffNoPosterBody, .error)), .indicate(.refused)]
            }
            return [
                printAction(.venuePoster(VenuePoster(url: url, description: venue.description, address: venue.address)))
            ]
        case .enrolCard, .enrolStaffCard:
            let kind: CardKind = command == .enrolCard ? .visitor : .staff
            staff?.enrolKind = kind
            setStaff(.awaitingBlankCard, now: now)
            return [
                .show(
                    kind == .visitor
                        ? texts.message(.staffEnrolCardTitle, .staffEnrolCardBody, .prompt)
                        : texts.message(.staffEnrolStaffCardTitle, .staffEnrolStaffCardBody, .prompt))
            ]
        case .forgetStaffCards:
            guard configuration.staffCode?.isEmpty == false else {
                return [
                    .show(texts.message(.staffStaffCardsKeptTitle, .staffStaffCardsKeptBody, .error)),
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
            setStaff(.confirmingWipe(forgetVenue: forgetVenue), now: now)
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
            .show(texts.message(.staffNotNowTitle, body: texts.catalog.count(.staffNotNowBody, open), .error)),
            .indicate(.refused),
        ]
    }

    private mutating func startWipe(forgetVenue: Bool, now: ClockReading) -> [StationAction] {
        setStaff(.wiping(forgetVenue: forgetVenue), now: now)
        return [.wipeStore]
    }

    /// Binds the kiosk to `venue` (scanned in staff mode, or created here).
    mutating func bind(_ venue: VenueCode, posterURL: String?, now: ClockReading, created: Bool) -> [StationAction] {
        let bound: BoundVenue
        // A scanned code that cannot be bound is a refused code; a venue created here is staff's own command.
        let counted: [StationAction] = created ? [] : [.countRefusal(.codeRefused)]
        do { bound = try BoundVenue(venue, posterURL: posterURL, configuration: configuration, crypto: crypto) } catch {
            return [
                .show(
                    texts.message(
                        .staffVenueNotBoundTitle, .staffVenueNotBoundBody, .error, ["reason": error.description])),
                .indicate(.error),
            ] + counted
        }
        if let end = bound.eventEnd, now.isSynchronized, end <= now.now {
            return [
                .show(
                    texts.message(
                        .staffVenueNotBoundTitle, .staffEventEndedBody, .error,
                        ["date": TimeText.date(unixSeconds: Int64(end.timeIntervalSince1970))])),
                .indicate(.error),
            ] + counted
        }
        if state.venue?.locationId != bound.locationId {
            if state.venue != nil, let refusal = refusalWhileCheckedIn(now: now) { return refusal + counted }
            state.openCheckInEnds = []
        }
        state.venue = bound
        if staff != nil { setStaff(.menu, now: now) }
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
                    .venuePoster(VenuePoster(url: posterURL, description: bound.description, address: bound.address))))
        }
        return actions
    }

    // MARK: - Results from the runner

    mutating func randomGenerated(
        _ purpose: RandomPurpose, _ result: Result<[UInt8], StationFailure>, now: ClockReading
    )
        -> [StationAction]
    {
        guard let step = staff?.step else { return [] }
        var bytes: [UInt8]
        switch result {
        case .success(let value): bytes = value
        case .failure(let failure):
            setStaff(.menu, now: now)
            return [.show(texts.message(.staffNotDoneTitle, body: texts.failure(failure), .error)), .indicate(.error)]
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
                setStaff(.menu, now: now)
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
            guard staff?.pendingCard == nil, let kind = staff?.enrolKind,
                let secret = try? CardSecret(kind: kind, entropy: bytes)
            else { return [] }
            staff?.pendingCard = secret
            return [.enrolCard(secret)]
        default:
            return []
        }
    }

    mutating func enrolDone(_ result: Result<Void, StationFailure>, now: ClockReading) -> [StationAction] {
        guard var mode = staff, mode.step == .enrolling, let secret = mode.pendingCard else { return [] }
        mode.pendingCard = nil
        defer {
            var wiped = secret
            wiped.wipe(using: crypto)
        }
        switch result {
        case .success where secret.kind == .staff:
            mode.step = .menu
            mode.enrolKind = .visitor
            staff = mode
            guard let digest = try? StaffCardDigest.of(secret, crypto: crypto) else {
                return [
                    .show(texts.message(.staffStaffCardNotEnrolledTitle, body: texts.failure(.crypto), .error)),
                    .indicate(.error),
                ]
            }
            if !state.staffCards.contains(where: { crypto.constantTimeEquals($0, digest) }) {
                state.staffCards.append(digest)
            }
            // Saved before it is announced: a staff card that is not saved does not open staff mode.
            return [
                .persist(state),
                .show(texts.message(.staffStaffCardEnrolledTitle, .staffStaffCardEnrolledBody, .success)),
                .indicate(.accepted),
            ]
        case .success:
            mode.step = .menu
            // The new holder is asked, on the screen, whether the kiosk may match their stays and for a PIN; they
            // answer as a person of their own (nothing of the staff member's speech or selection carries over).
            mode.questions = EnrolmentQuestions(card: secret)
            mode.person.wipe(using: crypto)
            mode.person = mode.person.successor(now: now.now, keepingChoice: true)
            staff = mode
            return [
                .show(texts.message(.staffCardEnrolledTitle, .staffCardEnrolledBody, .success)), .indicate(.accepted),
                printAction(.personalCard(secret)),
            ]
        case .failure(let failure):
            return enrolmentFailed(failure, mode)
        }
    }

    /// The new DESFire card was made a diary card of the region, or why not. Its holder's settings start unanswered
    /// (they allow matching in their own session, on the card): nothing of the card stays on this kiosk, and no
    /// personal QR card is printed (a diary card's stays open only with the card itself, at any kiosk of the region).
    mutating func diaryCardMade(_ result: Result<Void, StationFailure>) -> [StationAction] {
        guard var mode = staff, mode.step == .enrolling, mode.pendingCard == nil else { return [] }
        switch result {
        case .success:
            mode.step = .menu
            staff = mode
            return [
                .show(texts.message(.staffDiaryCardMadeTitle, .staffDiaryCardMadeBody, .success)),
                .indicate(.accepted),
            ]
        case .failure(let failure):
            return enrolmentFailed(failure, mode)
        }
    }

    /// A card (a kiosk card or a diary card) was not enrolled: staff may put one on the reader again.
    private mutating func enrolmentFailed(_ failure: StationFailure, _ mode: StaffMode) -> [StationAction] {
        var mode = mode
        mode.step = .awaitingBlankCard
        staff = mode
        return [
            .show(
                texts.message(
                    .staffCardNotEnrolledTitle, .staffCardNotEnrolledBody, .error, ["reason": texts.failure(failure)])),
            .indicate(.error),
        ]
    }

    mutating func wipeDone(_ result: Result<Void, StationFailure>) -> [StationAction] {
        guard case .wiping(let forgetVenue) = staff?.step else { return [] }
        staff?.step = .menu
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
            return [.show(texts.message(.staffNotWipedTitle, body: texts.failure(failure), .error)), .indicate(.error)]
        }
    }

    // MARK: - Enrolment questions

    /// The new holder answered `id`.
    mutating func answerEnrolment(_ id: String, now: ClockReading) -> [StationAction] {
        guard var questions = staff?.questions else { return [] }
        extendStaff(now: now)
        // The language the new holder chose on the idle screen (kept for them when staff enrolled their card) goes
        // into the card's profile with their answers; one carried over from an earlier holder does not.
        let effect = questions.choose(
            id, language: language, chosen: person?.languageIsTheirs == true ? person?.language : nil)
        staff?.questions = questions
        guard case .save(let request) = effect else { return [] }
        return [.cardRequest(.kiosk(questions.card), request)]
    }

    /// The questions end (answered, or staff moved on): the card is wiped, the person who answered them is gone.
    mutating func dropEnrolmentQuestions() {
        guard var mode = staff, var questions = mode.questions else { return }
        questions.card.wipe(using: crypto)
        mode.questions = nil
        mode.person.wipe(using: crypto)
        mode.person = mode.person.successor(now: mode.person.lastActivity, keepingChoice: false)
        staff = mode
    }

    // MARK: - Printing

    /// `.print(job)`, remembered until the printer answers (to offer it again if it fails).
    mutating func printAction(_ job: PrintJob) -> StationAction { printing.print(job, crypto: crypto) }

    mutating func printDone(_ kind: PrintJob.Kind, _ result: Result<Void, StationFailure>, now: ClockReading)
        -> [StationAction]
    {
        var job = printing.answered(kind)
        guard case .failure(let failure) = result else {
            job?.wipe(using: crypto)
            return []
        }
        if kind == .warningSlip {
            // Only its holder may have it, in their session: told there, never offered to anyone after them.
            job?.wipe(using: crypto)
            guard var session = person?.session else { return [.indicate(.error)] }
            _ = session.answered(.failed(texts.failure(failure)), now: now.now)
            person?.session = session
            return [.indicate(.error)]
        }
        dropReprintOffer()
        guard let offered = job, staff != nil else {
            job?.wipe(using: crypto)
            return [
                .show(
                    texts.message(
                        .staffNotPrintedTitle, .staffNotPrintedLater, .error, ["reason": texts.failure(failure)])),
                .indicate(.error),
            ]
        }
        let offer = ReprintOffer(job: offered, until: now.now.addingTimeInterval(answerTime))
        staff?.reprint = offer
        return [
            .show(
                texts.message(
                    .staffNotPrintedTitle, .staffNotPrintedOffer, .error,
                    ["job": texts.printJob(kind), "reason": texts.failure(failure)])),
            .indicate(.error),
        ]
    }

    /// Confirm prints the offered receipt again now; cancel drops it. Nil when no offer is open.
    private mutating func answerReprintOffer(_ button: StationButton, now: ClockReading) -> [StationAction]? {
        guard let offer = staff?.reprint else { return nil }
        guard now.now < offer.until else {
            dropReprintOffer()
            return nil
        }
        staff?.reprint = nil
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
            return [.show(texts.message(.staffNotPrintedTitle, .staffNotPrintedCancelled, .info))]
        }
    }

    mutating func dropReprintOffer() {
        staff?.reprint?.job.wipe(using: crypto)
        staff?.reprint = nil
    }
}
