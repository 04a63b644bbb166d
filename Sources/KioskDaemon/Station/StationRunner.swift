internal import Dispatch
internal import Foundation
public import KioskCore
public import KioskExchange
public import KioskPrinter
public import Logging

/// Runs the kiosk: hands each event to `CheckInMachine` and carries out its actions in order, feeding each result
/// back as an event, until nothing is left to do.
///
/// - A tap is stored durably by `CheckInDesk` before its light (the desk returns after the commit).
/// - `.indicate` starts the pattern and goes on: the lights play beside the station, on the indicator's own task,
///   never inside the event in hand (a pattern lasts about 1.5 s; the next tap must not wait for it). The patterns of
///   one answer of the machine start together and play one after the other (a check-in's light, then a warning's).
/// - `.persist` is saved before the actions after it; if saving fails, the rest of that batch is dropped and the
///   machine hears of the failure (it then does not use what was not saved).
/// - Store calls run on the runner's own dispatch queue, not on the cooperative pool.
/// - Card secrets are wiped after use. Logs carry constant messages and outcome names only.
public actor StationRunner {
    private var machine: CheckInMachine
    private let desk: CheckInDesk
    private let indicator: any Indicator
    private let printer: any ReceiptPrinter
    private let enroller: any CardEnroller
    /// The diary card on the reader (a kiosk of a region, `region` configured); nil refuses diary cards.
    private let diaryCards: (any DiaryCardAccess)?
    private let warnings: any WarningSource
    private let clock: any ClockSource
    private let settings: any StationStateStore
    private let devices: (any DeviceStatusSource)?
    private let paper: PaperWidth
    private let codePage: PrinterCodePage
    private let reports: (any ReportDelivering)?
    /// Where speech goes (the board's or the simulation's speaker); nil on a kiosk without sound.
    private let speech: (@Sendable (SpeechCue) -> Void)?
    private let logger: Logger
    private let queue = DispatchQueue(label: "kiosk-station-store")
    /// The diary card whose tap was just answered and whose holder allows matching: its news is looked for once the
    /// tap's light and message are out (`news(for:)`), since that reads the card's ring.
    private var newsToLookFor: DiaryCardOnReader?

    public private(set) var counters = StationCounters()

    /// Loads the saved station state (or starts unbound). Throws if the saved state cannot be read.
    public init(
        configuration: StationConfiguration, desk: CheckInDesk, indicator: any Indicator, printer: any ReceiptPrinter,
        enroller: any CardEnroller, warnings: any WarningSource, clock: any ClockSource,
        settings: any StationStateStore, devices: (any DeviceStatusSource)? = nil, paper: PaperWidth = .mm58,
        codePage: PrinterCodePage = .cp1252,
        reports: (any ReportDelivering)? = nil, speech: (@Sendable (SpeechCue) -> Void)? = nil,
        diaryCards: (any DiaryCardAccess)? = nil, logger: Logger
    ) throws(StoreError) {
        let saved = try settings.loadStationState() ?? .initial
        machine = CheckInMachine(configuration: configuration, state: saved, crypto: desk.crypto)
        self.desk = desk
        self.indicator = indicator
        self.printer = printer
        self.enroller = enroller
        self.diaryCards = diaryCards
        self.warnings = warnings
        self.clock = clock
        self.settings = settings
        self.devices = devices
        self.paper = paper
        self.codePage = codePage
        self.reports = reports
        self.speech = speech
        self.logger = logger
    }

    /// The station state now.
    public var state: StationState { machine.state }
    /// Visitor or staff mode.
    public var mode: CheckInMachine.Mode { machine.mode }
    /// What the screen shows now (`CheckInMachine.screen(now:)`).
    public func screen() -> ScreenModel { machine.screen(now: clock.read()) }

    /// Handles `event` and everything it leads to; returns what was done, in order.
    public func handle(_ event: StationEvent) async -> StationReport {
        var report = StationReport()
        var pending = [event]
        var handled = 0
        // Every follow-up answers an action; a bound keeps a faulty port from looping.
        while !pending.isEmpty, handled < 100 {
            let next = pending.removeFirst()
            handled += 1
            logger.debug("Station event", metadata: ["station.event": "\(Self.name(of: next))"])
            let actions = machine.handle(next, now: clock.read())
            var unlit = 0  // the actions before this one have had their lights started
            for (index, action) in actions.enumerated() {
                var lights: [IndicatorPattern] = []
                if case .indicate = action, index >= unlit {
                    // The patterns of one answer play one after the other (a check-in's light, then a warning's):
                    // they start together, at the first of them, up to a `.persist` (what follows a failed save is
                    // dropped); a later answer's patterns replace them.
                    let together = actions[index...].prefix { if case .persist = $0 { false } else { true } }
                    lights = together.compactMap { if case .indicate(let pattern) = $0 { pattern } else { nil } }
                    unlit = index + together.count
                }
                guard let followUp = await perform(action, report: &report, lights: lights) else {
                    continue
                }
                pending.append(followUp)
                if case .persistDone(.failure) = followUp { break }
            }
            if case .tapDone = next, let card = newsToLookFor {
                newsToLookFor = nil
                if let news = await news(for: card) { pending.append(news) }
            }
        }
        // Nothing of this event's visitor waits for the next one.
        newsToLookFor = nil
        // Speech follows the screen as it stands after the event (a tick speaks a screen that changed with time).
        if let cue = machine.speech(now: clock.read()) {
            report.steps.append(.spoke(cue))
            speech?(cue)
        }
        return report
    }

    // MARK: - Actions

    private func perform(_ action: StationAction, report: inout StationReport, lights: [IndicatorPattern]) async
        -> StationEvent?
    {
        switch action {
        case .recordTap(let card, let venue):
            return await recordTap(card, at: venue, report: &report)
        case .show(let message):
            // The screen is drawn from the machine's screen model; the message is kept for the report.
            report.steps.append(.shown(message))
            return nil
        case .countRefusal(let reason):
            counters.refusals[reason.rawValue, default: 0] += 1
            return nil
        case .indicate(let pattern):
            report.steps.append(.indicated(pattern))
            // Starts the lights and goes on: they play on the indicator's own task, not inside this event.
            // Nothing sounds over speech: while the kiosk speaks for the person here, the buzzer is silent (the
            // screen's words are said instead).
            if !lights.isEmpty { await indicator.show(lights, sound: !machine.isSpeaking(now: clock.read().now)) }
            return nil
        case .print(let job):
            return await print(job, report: &report)
        case .persist(let state):
            let settings = self.settings
            let result: Result<Void, StoreError> = await offload {
                do throws(StoreError) {
                    try settings.saveStationState(state)
                    return .success(())
                } catch { return .failure(error) }
            }
            switch result {
            case .success:
                report.steps.append(.persisted)
                return .persistDone(.success(()))
            case .failure(let error):
                logger.error("Station state not saved", metadata: ["store.error": "\(error)"])
                report.steps.append(.persistFailed(.store(error)))
                return .persistDone(.failure(.store(error)))
            }
        case .enrolCard(let secret):
            var secret = secret
            defer { secret.wipe(using: desk.crypto) }
            do throws(StationFailure) {
                try await enroller.enrol(secret)
                counters.enrolments += 1
                logger.notice("Card enrolled")
                report.steps.append(.cardEnrolled)
                return .enrolDone(.success(()))
            } catch {
                logger.warning("Card not enrolled", metadata: ["enrol.error": "\(error)"])
                report.steps.append(.enrolmentFailed(error))
                return .enrolDone(.failure(error))
            }
        case .makeDiaryCard:
            do throws(StationFailure) {
                guard let diaryCards else { throw .enrolment(reason: "this kiosk reads no diary cards") }
                try await diaryCards.make(profile: .unanswered)
                counters.enrolments += 1
                logger.notice("Diary card made")
                report.steps.append(.cardEnrolled)
                return .diaryCardMade(.success(()))
            } catch {
                logger.warning("Diary card not made", metadata: ["enrol.error": "\(error)"])
                report.steps.append(.enrolmentFailed(error))
                return .diaryCardMade(.failure(error))
            }
        case .wipeStore:
            let desk = self.desk
            let result: Result<Void, TapRefusal> = await offload {
                do throws(TapRefusal) {
                    try desk.wipeKiosk()
                    return .success(())
                } catch { return .failure(error) }
            }
            switch result {
            case .success:
                logger.notice("Kiosk wiped")
                report.steps.append(.storeWiped)
                return .wipeDone(.success(()))
            case .failure(let refusal):
                let failure = Self.failure(refusal)
                logger.error("Kiosk not wiped", metadata: ["store.error": "\(failure)"])
                report.steps.append(.wipeFailed(failure))
                return .wipeDone(.failure(failure))
            }
        case .expireNow:
            let desk = self.desk
            let reading = clock.read()
            let result: Result<Int, TapRefusal> = await offload {
                do throws(TapRefusal) { return .success(try desk.expire(clock: reading)) } catch {
                    return .failure(error)
                }
            }
            counters.expiryRuns += 1
            // The region's day keys older than retention go with the kiosk's stays: no diary card's stay of those
            // days opens here any more.
            if let diaryCards {
                do throws(TapRefusal) { try await diaryCards.forgetOldDays(clock: reading) } catch {
                    logger.error("Region day keys not moved on", metadata: ["region.error": "\(error)"])
                }
            }
            switch result {
            case .success(let count):
                counters.expiredStays += count
                // Debug only: a count kept in the journal would outlive the stays it counts by the journal's 14 days.
                logger.debug("Expiry ran", metadata: ["expiry.deleted": "\(count)"])
                if reading.latest == nil {
                    logger.notice("Retention: the time off is unknown; every stay was deleted")
                }
                report.steps.append(.expired(count))
                return .expiryDone(.success(count))
            case .failure(let refusal):
                let failure = Self.failure(refusal)
                logger.error("Expiry failed", metadata: ["store.error": "\(failure)"])
                report.steps.append(.expiryFailed(failure))
                return .expiryDone(.failure(failure))
            }
        case .acknowledgeWarning:
            report.steps.append(.warningAcknowledged)
            return nil
        case .openCard(let card):
            report.steps.append(.sessionStep("open"))
            return .cardOpened(await openCard(card))
        case .cardRequest(let card, let request):
            report.steps.append(.sessionStep(Self.name(of: request)))
            return .cardAnswered(await serve(request, card: card))
        case .requestRandom(let purpose):
            do {
                return .randomGenerated(purpose, .success(try desk.crypto.randomBytes(count: purpose.byteCount)))
            } catch {
                logger.error("Random bytes unavailable")
                return .randomGenerated(purpose, .failure(.crypto))
            }
        }
    }

    private func recordTap(_ card: VisitorCard, at venue: StayVenue, report: inout StationReport) async -> StationEvent
    {
        var card = card
        defer { card.wipe(using: desk.crypto) }
        counters.taps += 1
        let reading = clock.read()
        let desk = self.desk
        // A kiosk card's stays are opened once, off the actor: the tap, and the stays to match when warnings are
        // held. A diary card's are read from the card after the tap was answered (`news(for:)`).
        let matching = await warnings.holdsWarnings
        let outcome: TapOutcome
        let matchable: [MatchableStay]
        let language: Language?
        var cardWasFull = false
        switch card {
        case .kiosk(let secret):
            (outcome, matchable, language) = await offload {
                desk.tap(secret, at: venue, clock: reading, collectingMatchable: matching)
            }
        case .diary(let onReader):
            matchable = []
            guard let diaryCards else {
                (outcome, language) = (.refused(.diaryUnreadable), nil)
                break
            }
            let tap = await diaryCards.tap(onReader, at: venue, clock: reading)
            (outcome, language, cardWasFull) = (tap.outcome, tap.language, tap.cardWasFull)
            if matching, tap.matchingAllowed { newsToLookFor = onReader }
        }
        report.steps.append(.tapRecorded(outcome))
        let outcomeName: String
        switch outcome {
        case .checkedIn:
            counters.checkIns += 1
            outcomeName = "checkedIn"
        case .checkedOut:
            counters.checkOuts += 1
            outcomeName = "checkedOut"
        case .alreadyRegistered:
            counters.alreadyRegistered += 1
            outcomeName = "alreadyRegistered"
        case .refused(let refusal):
            outcomeName = "refused." + RefusalReason(refusal).rawValue
        }
        // Debug only: at the default level a line per tap, with the journal's timestamp, would be a visit log.
        logger.debug("Tap served", metadata: ["checkin.outcome": "\(outcomeName)"])

        let notice = await warningNotice(for: card, matchable: matchable)
        return .tapDone(outcome, warning: notice, language: language, cardWasFull: cardWasFull)
    }

    /// What a diary card's tap matches, after the tap was answered: its stays read from the card while it lies there,
    /// matched; a warning found that its holder has not acknowledged (the card says which they did) is `.tapNews`
    /// for the machine to tell if its holder is still here.
    private func news(for onReader: DiaryCardOnReader) async -> StationEvent? {
        guard let diaryCards, let found = await diaryCards.matchable(of: onReader, clock: clock.read()) else {
            return nil
        }
        var card = VisitorCard.diary(onReader)
        defer { card.wipe(using: desk.crypto) }
        guard let notice = await warningNotice(for: card, matchable: found.stays),
            !found.profile.acknowledges(notice, using: desk.crypto)
        else { return nil }
        return .tapNews(notice, placement: onReader.placement)
    }

    /// The notice of a warning about `matchable`, the stays of `card` (none matched: nil).
    private func warningNotice(for card: VisitorCard, matchable: [MatchableStay]) async -> WarningNotice? {
        guard !matchable.isEmpty, let result = await match(matchable, of: card).result, !result.matches.isEmpty else {
            return nil
        }
        let desk = self.desk
        let zone = machine.configuration.timeZone
        let tapped = card.secret
        let found: Result<WarningNotice?, TapRefusal> = await offload {
            do throws(TapRefusal) {
                return .success(try desk.warningNotice(for: tapped, result: result, stays: matchable, zone: zone))
            } catch {
                return .failure(error)
            }
        }
        switch found {
        case .success(let value): return value
        case .failure(let error):
            logger.warning("Warnings not checked", metadata: ["checkin.error": "\(RefusalReason(error).rawValue)"])
            return nil
        }
    }

    /// The warnings that concern `stays`: a diary card's, at any venue of the region, against the region's records
    /// when the kiosk keeps them, else (and a kiosk card's) against the venue's. `checked` is false when the region's
    /// records could not be read: the result is then the venue's records' alone, and nothing may say that the stays
    /// were checked against every warning.
    private func match(_ stays: [MatchableStay], of card: VisitorCard) async -> (
        result: ExposureResult?, checked: Bool
    ) {
        guard case .diary = card else { return (await warnings.match(stays), true) }
        do throws(RegionWarningReadError) {
            if let result = try await warnings.matchRegion(stays) { return (result, true) }
            return (await warnings.match(stays), true)
        } catch {
            logger.warning(
                "Warnings not checked against the region's records", metadata: ["warnings.error": "\(error)"])
            return (await warnings.match(stays), false)
        }
    }

    // MARK: - The card holder's session

    /// Opens what the kiosk holds for a card (off the actor): its stays and profile, a warning for it when its holder
    /// allows matching, and the report outputs available now.
    private func openCard(_ card: VisitorCard) async -> Result<VisitorSession.CardView, StationFailure> {
        var card = card
        defer { card.wipe(using: desk.crypto) }
        let desk = self.desk
        let zone = machine.configuration.timeZone
        let reading = clock.read()
        let opened = card.secret
        let result: Result<CheckInDesk.CardContents, TapRefusal>
        switch card {
        case .kiosk(let secret):
            result = await offload {
                do throws(TapRefusal) { return .success(try desk.contents(of: secret, clock: reading)) } catch {
                    return .failure(error)
                }
            }
        case .diary(let onReader):
            do throws(TapRefusal) {
                guard let diaryCards else { throw .diaryUnreadable }
                result = .success(try await diaryCards.contents(of: onReader, clock: reading))
            } catch {
                result = .failure(error)
            }
        }
        let contents: CheckInDesk.CardContents
        switch result {
        case .success(let value): contents = value
        case .failure(let refusal): return .failure(.refused(refusal))
        }
        var notice: WarningNotice?
        var warningsUnchecked = false
        if !contents.matchable.isEmpty, await warnings.holdsWarnings {
            let matched = await match(contents.matchable, of: card)
            warningsUnchecked = !matched.checked
            if let result = matched.result, !result.matches.isEmpty {
                let matchable = contents.matchable
                notice =
                    await offload {
                        try? desk.warningNotice(for: opened, result: result, stays: matchable, zone: zone)
                    } ?? nil
            }
        }
        // Which of the station's warning records are this card's (its keys, so off the actor like every store call).
        let records = machine.state.warnings
        let owned =
            records.isEmpty ? [] : await offload { (try? desk.warningRecords(ownedBy: opened, among: records)) ?? [] }
        return .success(
            VisitorSession.CardView(
                contents: contents, warning: notice, warningAcknowledged: false,
                outputs: reports?.availableOutputs ?? [], ownedWarnings: owned, warningsUnchecked: warningsUnchecked))
    }

    /// Carries out a request of the holder's session with the card's keys (`CheckInDesk.serve`, off the actor); a
    /// change answers with the card's contents as they stand after it, a consented report is delivered.
    private func serve(_ request: VisitorSession.Request, card: VisitorCard) async -> Result<
        VisitorSession.Answer, StationFailure
    > {
        var card = card
        defer { card.wipe(using: desk.crypto) }
        let desk = self.desk
        let held = card
        let reading = clock.read()
        let now = Int64(reading.now.timeIntervalSince1970.rounded(.down))
        let served: Result<ServedRequest, TapRefusal>
        switch card {
        case .kiosk(let secret):
            served = await offload {
                do throws(TapRefusal) { return .success(try desk.serve(request, of: secret, now: now)) } catch {
                    return .failure(error)
                }
            }
        case .diary(let onReader):
            do throws(TapRefusal) {
                guard let diaryCards else { throw .diaryUnreadable }
                served = .success(try await diaryCards.serve(request, of: onReader, clock: reading))
            } catch {
                served = .failure(error)
            }
        }
        switch served {
        case .failure(let refusal): return .failure(.refused(refusal))
        case .success(.pin(let check)): return .success(.pin(check))
        case .success(.done): return .success(.done)
        case .success(.changed): return await openCard(held).map { .contents($0) }
        case .success(.deliver(let preview)):
            guard let reports else {
                return .success(.failed(DeliveryError.notAvailable("printer, USB stick or upload").description))
            }
            do throws(DeliveryError) {
                let line = try await reports.sendConsented(
                    preview, crypto: desk.crypto, language: machine.language, zone: machine.configuration.timeZone)
                logger.debug("Report delivered")
                return .success(.delivered(line))
            } catch {
                logger.debug("Report not delivered")
                return .success(.failed(error.description))
            }
        }
    }

    static func name(of request: VisitorSession.Request) -> String {
        switch request {
        case .checkPIN: "checkPIN"
        case .setPIN: "setPIN"
        case .saveProfile: "saveProfile"
        case .deleteStay: "deleteStay"
        case .deleteAll: "deleteAll"
        case .block: "block"
        case .acknowledgeWarning: "acknowledgeWarning"
        case .printWarningSlip: "printWarningSlip"
        case .deliver: "deliver"
        case .markReported: "markReported"
        case .saveEnrolment: "saveEnrolment"
        }
    }

    private func print(_ job: PrintJob, report: inout StationReport) async -> StationEvent {
        var job = job
        if case .statusSlip(var slip) = job {
            let store = desk.store
            if let counts = try? await offloadThrowing({ () throws(StoreError) -> StoreCounts in try store.counts() }) {
                slip.storedStays = counts.stays
                slip.storedCards = counts.cards
            }
            slip.devices = await devices?.deviceStates() ?? [:]
            job = .statusSlip(slip)
        }
        var failure: StationFailure?
        do {
            let bytes = try StationReceipts.bytes(
                for: job, paper: paper, codePage: codePage, language: machine.language)
            do throws(PrinterError) { try await printer.print(bytes) } catch {
                failure = .printer(reason: error.description)
            }
        } catch {
            failure = .printer(reason: "the receipt could not be laid out")
        }
        if case .personalCard(var secret) = job { secret.wipe(using: desk.crypto) }
        // A warning slip is counted nowhere and logged at debug level only: a count or a line at a visitor's tap
        // would say that a warning was printed for them.
        let isWarningSlip = job.kind == .warningSlip
        if let failure {
            if isWarningSlip {
                logger.debug("Receipt not printed", metadata: ["print.error": "\(failure)"])
            } else {
                counters.printFailures += 1
                logger.warning("Receipt not printed", metadata: ["print.error": "\(failure)"])
            }
            report.steps.append(.printFailed(job.kind, failure))
            return .printDone(job.kind, .failure(failure))
        }
        if !isWarningSlip { counters.prints += 1 }
        logger.debug("Receipt printed")
        report.steps.append(.printed(job.kind))
        return .printDone(job.kind, .success(()))
    }

    /// Runs a blocking store call on the runner's queue.
    private func offload<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    private func offloadThrowing<T: Sendable>(
        _ body: @escaping @Sendable () throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await offload {
            do throws(StoreError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    // MARK: - Names for logs and counters

    static func failure(_ refusal: TapRefusal) -> StationFailure {
        switch refusal {
        case .storeUnavailable(let error): .store(error)
        default: .crypto
        }
    }

    static func name(of event: StationEvent) -> String {
        switch event {
        case .cardRead: "cardRead"
        case .cardRemoved: "cardRemoved"
        case .codeScanned: "codeScanned"
        case .buttonPressed: "buttonPressed"
        case .clockChanged: "clockChanged"
        case .tick: "tick"
        case .tapDone: "tapDone"
        case .tapNews: "tapNews"
        case .enrolDone: "enrolDone"
        case .diaryCardMade: "diaryCardMade"
        case .printDone: "printDone"
        case .persistDone: "persistDone"
        case .wipeDone: "wipeDone"
        case .expiryDone: "expiryDone"
        case .randomGenerated: "randomGenerated"
        case .staffCommand: "staffCommand"
        case .chosen: "chosen"
        case .navigated: "navigated"
        case .speakRequested: "speakRequested"
        case .cardOpened: "cardOpened"
        case .cardAnswered: "cardAnswered"
        }
    }
}
