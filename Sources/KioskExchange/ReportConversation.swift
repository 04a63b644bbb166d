public import KioskCore

/// One question of the report conversation, as a value: a terminal prints it, a screen draws it, a script answers it.
public struct ConversationPrompt: Equatable, Sendable {
    /// What kind of answer is expected.
    public enum Kind: String, Equatable, Sendable {
        case cardCode, staySelection, symptoms, output, verificationCode, disclosure, consent, afterFailure
    }

    /// One allowed answer: what to type, and what it means.
    public struct Choice: Equatable, Sendable {
        public let answer: String
        public let label: String
    }

    public let kind: Kind
    /// What to read before answering (the stay list, the disclosure, the exact preview), one line each.
    public let lines: [String]
    public let question: String
    /// The allowed answers. Cancelling (`q`, end of input) is always allowed and listed last.
    public let choices: [Choice]
    /// Why the previous answer was not taken, when the question is asked again.
    public let problem: String?
}

/// Drives `ConsentFlow` as questions and typed answers, so the staff console and a scripted run share one engine.
///
/// It keeps the flow's rules: the holder's stays are listed with none selected; the risk of revealing identity and
/// location is disclosed before the question; the exact preview (reports, each day and window after rounding and
/// decay, risk levels, decoys) is shown before yes or no; yes and no are offered alike and an empty answer asks
/// again; every submission is asked for again, also after a failed one. `q` or the end of input at any step
/// ends the conversation with nothing written, printed or sent. Bad answers are asked again with a reason; nothing
/// a holder types ends the conversation except cancelling.
public struct ReportConversation: Sendable {
    /// Opens the stays of a card (the store, through `CheckInDesk`); the error text is shown to the holder.
    public typealias StayLoader = @Sendable (CardSecret) throws(StayLoadError) -> [ReportableStay]

    /// How the conversation ended.
    public struct Ending: Equatable, Sendable {
        public let outcome: ConsentFlow.Outcome
        /// One line for the holder.
        public let message: String
    }

    public enum Step: Equatable, Sendable {
        case ask(ConversationPrompt)
        case finished(Ending)
    }

    private enum Stage: Sendable {
        case card
        case selection
        case symptoms
        case output
        case verificationCode
        case disclosure
        case consent
        case afterFailure(reason: String)
        case done(Ending)
    }

    public let now: Int64
    public let parameters: PresenceTracingParameters
    private let loadStays: StayLoader
    private let delivery: any ReportDelivering
    private let crypto: any CryptoProvider
    private var flow: ConsentFlow
    private var stage: Stage = .card
    private var stays: [ReportableStay] = []
    private var selectedIDs: [ReportableStay.ID] = []
    /// The stays that left the kiosk in a delivered report (so the kiosk can keep their own warnings from them).
    public private(set) var deliveredStayIDs: Set<ReportableStay.ID> = []
    private var symptoms: SymptomIndication?
    private var output: ReportOutput?
    private var exportDirectory: String?

    public init(
        now: Int64, parameters: PresenceTracingParameters = .cwaProduction, delivery: any ReportDelivering,
        crypto: any CryptoProvider, loadStays: @escaping StayLoader
    ) {
        self.now = now
        self.parameters = parameters
        self.delivery = delivery
        self.crypto = crypto
        self.loadStays = loadStays
        self.flow = ConsentFlow(now: now, parameters: parameters)
    }

    // MARK: Running

    /// Runs the whole conversation: `answer` shows each prompt and returns the typed answer, or nil at the end of
    /// input. `card` is the holder's card when it was read before (a tap, or `--card`); otherwise it is asked for.
    public mutating func run(card: CardSecret? = nil, answer: (ConversationPrompt) async -> String?) async -> Ending {
        var step: Step
        if let card { step = presentCard(card) } else { step = start() }
        while case .ask(let prompt) = step {
            step = await respond(await answer(prompt))
        }
        guard case .finished(let ending) = step else { return Ending(outcome: .aborted, message: Self.abortMessage) }
        return ending
    }

    /// Runs with a list of answers (the simulated kiosk's control socket); running out of answers cancels.
    public mutating func run(card: CardSecret? = nil, answers: [String]) async -> (
        ending: Ending, prompts: [ConversationPrompt]
    ) {
        var remaining = answers[...]
        var prompts = [ConversationPrompt]()
        let ending = await run(card: card) { prompt in
            prompts.append(prompt)
            return remaining.popFirst()
        }
        return (ending, prompts)
    }

    /// The first question: the card code.
    public func start() -> Step {
        .ask(cardPrompt(problem: nil))
    }

    /// The holder's card was read: opens its stays and lists them.
    public mutating func presentCard(_ card: CardSecret) -> Step {
        var card = card
        defer { card.wipe(using: crypto) }
        guard card.kind == .visitor else {
            return .ask(cardPrompt(problem: "This is a staff card: use the visitor's own card."))
        }
        let loaded: [ReportableStay]
        do {
            loaded = try loadStays(card)
        } catch {
            flow.handle(.abort)
            return finish(.aborted, error.description)
        }
        flow.handle(.cardPresented(stays: loaded))
        switch flow.state {
        case .selecting(let listed, _):
            stays = listed
            stage = .selection
            return .ask(selectionPrompt(problem: nil))
        default:
            return finish(.nothingToReport, "This card has no stays in the last 14 days: there is nothing to report.")
        }
    }

    /// Takes the answer to the current question (nil: end of input) and returns the next step.
    public mutating func respond(_ typed: String?) async -> Step {
        if case .done(let ending) = stage { return .finished(ending) }
        guard let typed else { return cancel() }
        let text = Self.trimmed(typed)
        let lower = text.lowercased()
        if ["q", "quit", "cancel", "exit"].contains(lower) { return cancel() }
        switch stage {
        case .card: return answerCard(text)
        case .selection: return answerSelection(lower)
        case .symptoms: return answerSymptoms(lower)
        case .output: return answerOutput(text, afterFailure: nil)
        case .verificationCode: return answerCode(text)
        case .disclosure: return answerDisclosure(lower)
        case .consent: return await answerConsent(lower)
        case .afterFailure(let reason): return answerAfterFailure(text, reason: reason)
        case .done(let ending): return .finished(ending)
        }
    }

    // MARK: Steps

    private mutating func answerCard(_ text: String) -> Step {
        guard !text.isEmpty else { return .ask(cardPrompt(problem: "Please type the card code, or q to stop.")) }
        let card: CardSecret
        do {
            card = try CardSecret(printedText: text)
        } catch {
            return .ask(cardPrompt(problem: "That card code was not accepted: \(error). Check it and type it again."))
        }
        return presentCard(card)
    }

    private mutating func answerSelection(_ text: String) -> Step {
        if ["done", "d", "next"].contains(text) {
            guard flow.handle(.confirmSelection), case .askingDetails(let selection) = flow.state else {
                return .ask(selectionPrompt(problem: "Nothing is selected yet: type the number of each stay to share."))
            }
            selectedIDs = selection.map(\.id)
            stage = .symptoms
            return .ask(symptomsPrompt(problem: nil))
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        guard !words.isEmpty else {
            return .ask(selectionPrompt(problem: "Type the numbers of the stays to share (e.g. 1 3), then done."))
        }
        var numbers = [Int]()
        for word in words {
            guard let number = Int(word), (1...stays.count).contains(number) else {
                return .ask(
                    selectionPrompt(
                        problem:
                            "“\(Self.shortened(word))” is not a stay number: type numbers from 1 to \(stays.count), or done."
                    ))
            }
            numbers.append(number)
        }
        for number in numbers { flow.handle(.toggle(stays[number - 1].id)) }
        return .ask(selectionPrompt(problem: nil))
    }

    private mutating func answerSymptoms(_ text: String) -> Step {
        let words = text.split(separator: " ").map(String.init)
        guard let first = words.first else {
            return .ask(symptomsPrompt(problem: "Please choose one of the answers below; there is no default."))
        }
        let indication: SymptomIndication
        switch first {
        case "onset", "test":
            guard words.count == 2 else {
                return .ask(symptomsPrompt(problem: "Add the date: \(first) YYYY-MM-DD."))
            }
            switch dayNumber(words[1]) {
            case .success(let day): indication = .symptomOnset(day: day)
            case .failure(let problem): return .ask(symptomsPrompt(problem: problem.text))
            }
        case "week": indication = .symptomsInLastSevenDays
        case "weeks": indication = .symptomsOneToTwoWeeksAgo
        case "older": indication = .symptomsMoreThanTwoWeeksAgo
        case "symptoms": indication = .symptomsWithoutDate
        case "none": indication = .noSymptoms
        case "skip": indication = .noInformation
        default:
            if words.count == 1, case .success(let day) = dayNumber(first) {
                indication = .symptomOnset(day: day)
            } else if words.count == 1, first.count == 10, case .failure(let problem) = dayNumber(first) {
                return .ask(symptomsPrompt(problem: problem.text))
            } else {
                return .ask(symptomsPrompt(problem: "“\(Self.shortened(first))” is not one of the answers below."))
            }
        }
        symptoms = indication
        stage = .output
        return .ask(outputPrompt(problem: nil, afterFailure: nil))
    }

    /// Parses an output choice; `afterFailure` is the reason shown again when this is the choice after a failure.
    private mutating func answerOutput(_ text: String, afterFailure reason: String?) -> Step {
        func again(_ problem: String) -> Step {
            if let reason { return .ask(failurePrompt(reason: reason, problem: problem)) }
            return .ask(outputPrompt(problem: problem, afterFailure: nil))
        }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first?.lowercased() else {
            return again("Please choose how the reports should leave; there is no default.")
        }
        let rest = parts.count > 1 ? Self.trimmed(parts[1]) : ""
        switch first {
        case "print":
            guard delivery.canPrint else {
                return again("No receipt printer is set up on this kiosk: \(availableText()).")
            }
            guard rest.isEmpty else { return again("print takes nothing after it.") }
            return chose(.print)
        case "export":
            let directory = rest.isEmpty ? delivery.defaultExportDirectory : rest
            guard let directory else { return again("Say where to write the files: export FOLDER.") }
            guard ReportDelivery.isDirectory(directory) else {
                return again(
                    "There is no folder at \(Self.shortened(directory)): is the USB stick plugged in and mounted?")
            }
            exportDirectory = directory
            return chose(.export)
        case "upload":
            guard delivery.canUpload else {
                return again("No health authority address is set up on this kiosk: \(availableText()).")
            }
            if rest.isEmpty {
                stage = .verificationCode
                return .ask(codePrompt(problem: nil))
            }
            guard ReportUploader.normalizedCode(rest) != nil else {
                return again(UploadError.malformedCode.description)
            }
            return chose(.upload(verificationCode: rest))
        case "retry" where reason != nil:
            guard let output else { return again("There is nothing to retry.") }
            return chose(output)
        default:
            return again("“\(Self.shortened(first))” is not one of the answers below.")
        }
    }

    private mutating func answerCode(_ text: String) -> Step {
        guard ReportUploader.normalizedCode(text) != nil else {
            let problem =
                text.isEmpty
                ? "Please type the verification code from the test centre." : UploadError.malformedCode.description
            return .ask(codePrompt(problem: problem))
        }
        return chose(.upload(verificationCode: text))
    }

    /// The output is chosen: a (new) flow with the same selection reaches the disclosure.
    private mutating func chose(_ chosen: ReportOutput) -> Step {
        guard let symptoms else { return cancel() }
        output = chosen
        if case .finished = flow.state {
            // After a failed output every submission starts a new flow and is asked for again.
            flow = ConsentFlow(now: now, parameters: parameters)
            flow.handle(.cardPresented(stays: stays))
            for id in selectedIDs { flow.handle(.toggle(id)) }
            flow.handle(.confirmSelection)
        }
        flow.handle(.details(symptoms: symptoms, output: chosen))
        switch flow.state {
        case .disclosing:
            stage = .disclosure
            return .ask(disclosurePrompt(problem: nil))
        default:
            return finish(
                .nothingToReport,
                "The selected stays are too short or too long ago to matter: there is nothing to report. Nothing was shared."
            )
        }
    }

    private mutating func answerDisclosure(_ text: String) -> Step {
        guard ["ok", "okay", "read"].contains(text) else {
            return .ask(disclosurePrompt(problem: "Type ok once you have read this (or q to stop)."))
        }
        flow.handle(.acknowledgeDisclosure)
        stage = .consent
        return .ask(consentPrompt(problem: nil))
    }

    private mutating func answerConsent(_ text: String) async -> Step {
        let yes: Bool
        switch text {
        case "yes", "y": yes = true
        case "no", "n": yes = false
        default:
            let problem = text.isEmpty ? "Please answer yes or no: there is no default." : "Please answer yes or no."
            return .ask(consentPrompt(problem: problem))
        }
        flow.handle(.answer(yes))
        guard yes else {
            return finish(.declined, "Nothing was shared. Nothing of this conversation is kept.")
        }
        guard case .consented(let preview) = flow.state else { return cancel() }
        let outcome: ConsentFlow.Outcome
        let message: String
        do throws(DeliveryError) {
            message = try await delivery.sendConsented(preview, crypto: crypto, exportDirectory: exportDirectory)
            outcome = .delivered(preview.output, reportCount: preview.reportCount)
            deliveredStayIDs.formUnion(selectedIDs)
        } catch {
            flow.handle(.outputFinished(.failed(preview.output, reason: error.description)))
            stage = .afterFailure(reason: error.description)
            return .ask(failurePrompt(reason: error.description, problem: nil))
        }
        flow.handle(.outputFinished(outcome))
        return finish(outcome, message)
    }

    private mutating func answerAfterFailure(_ text: String, reason: String) -> Step {
        answerOutput(text, afterFailure: reason)
    }

    private mutating func cancel() -> Step {
        flow.handle(.abort)
        return finish(.aborted, Self.abortMessage)
    }

    private mutating func finish(_ outcome: ConsentFlow.Outcome, _ message: String) -> Step {
        let ending = Ending(outcome: outcome, message: message)
        stage = .done(ending)
        stays = []
        selectedIDs = []
        return .finished(ending)
    }

    static let abortMessage =
        "Stopped. Nothing was shared, written or printed, and nothing of this conversation is kept."

    // MARK: Prompts

    private static let quit = ConversationPrompt.Choice(answer: "q", label: "stop here; nothing is shared")

    private func cardPrompt(problem: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .cardCode, lines: ["Report stays after a positive test."],
            question: "Type the code printed on the card (KC1-…):",
            choices: [.init(answer: "KC1-…", label: "the card's printed code"), Self.quit], problem: problem)
    }

    private func selectionPrompt(problem: String?) -> ConversationPrompt {
        let selected: Set<ReportableStay.ID>
        if case .selecting(_, let current) = flow.state { selected = current } else { selected = [] }
        var lines = ["Your stays of the last 14 days (times in UTC). None is selected: choose the ones to share."]
        for (index, stay) in stays.enumerated() {
            let mark = selected.contains(stay.id) ? "[x]" : "[ ]"
            lines.append("\(mark) \(index + 1). \(stay.venueName) — \(Self.window(stay))")
        }
        lines.append("\(selected.count) of \(stays.count) selected.")
        return ConversationPrompt(
            kind: .staySelection, lines: lines,
            question: "Type the numbers of stays to select or unselect (e.g. 1 3), then done:",
            choices: [
                .init(answer: stays.count == 1 ? "1" : "1…\(stays.count)", label: "select or unselect these stays"),
                .init(answer: "done", label: "go on with the selected stays"), Self.quit,
            ],
            problem: problem)
    }

    private func symptomsPrompt(problem: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .symptoms,
            lines: [
                "When did symptoms begin? This sets how much each stay counts (the risk level); nothing else about "
                    + "your health leaves the kiosk."
            ],
            question: "Your answer:",
            choices: [
                .init(answer: "onset YYYY-MM-DD", label: "symptoms began on that day"),
                .init(
                    answer: "test YYYY-MM-DD",
                    label: "the day of the positive test, when the day symptoms began is not known"),
                .init(answer: "week", label: "symptoms began in the last 7 days, day not known"),
                .init(answer: "weeks", label: "symptoms began 1 to 2 weeks ago"),
                .init(answer: "older", label: "symptoms began more than 2 weeks ago"),
                .init(answer: "symptoms", label: "symptoms, but not known since when"),
                .init(answer: "none", label: "no symptoms"),
                .init(answer: "skip", label: "prefer not to say"),
                Self.quit,
            ],
            problem: problem)
    }

    private func outputChoices(retry: Bool) -> [ConversationPrompt.Choice] {
        var choices = [ConversationPrompt.Choice]()
        if retry, let output {
            choices.append(.init(answer: "retry", label: "try the same again (\(output.kind))"))
        }
        if delivery.canPrint {
            choices.append(.init(answer: "print", label: "a receipt with QR codes to take to the test centre"))
        }
        if let directory = delivery.defaultExportDirectory {
            choices.append(
                .init(
                    answer: "export [FOLDER]",
                    label: "files on the USB stick (at \(directory) unless a folder is named)"))
        } else {
            choices.append(.init(answer: "export FOLDER", label: "files on a USB stick mounted at FOLDER"))
        }
        if delivery.canUpload {
            choices.append(
                .init(
                    answer: "upload [CODE]",
                    label: "send to the health authority with the verification code from the test centre"))
        }
        choices.append(Self.quit)
        return choices
    }

    private func availableText() -> String {
        "choose "
            + outputChoices(retry: false).dropLast().map { $0.answer.split(separator: " ")[0] }.joined(
                separator: " or ")
    }

    private func outputPrompt(problem: String?, afterFailure: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .output, lines: ["How should the reports leave the kiosk?"], question: "Your answer:",
            choices: outputChoices(retry: false), problem: problem)
    }

    private func codePrompt(problem: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .verificationCode, lines: [],
            question: "Type the verification code from the test centre:",
            choices: [.init(answer: "CODE", label: "e.g. ABCDE-FGHJK"), Self.quit], problem: problem)
    }

    private func disclosurePrompt(problem: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .disclosure, lines: [ConsentFlow.disclosure()], question: "Type ok when you have read this:",
            choices: [.init(answer: "ok", label: "I have read this"), Self.quit], problem: problem)
    }

    private func consentPrompt(problem: String?) -> ConversationPrompt {
        let lines: [String]
        if case .asking(let preview) = flow.state { lines = preview.lines } else { lines = [] }
        // Both answers alike, in the flow's fixed order; neither is a default.
        let choices = ConsentFlow.answers().map { option in
            ConversationPrompt.Choice(answer: option.answer ? "yes" : "no", label: option.label)
        }
        return ConversationPrompt(
            kind: .consent, lines: lines, question: "Share these reports? Type yes or no:",
            choices: choices + [Self.quit], problem: problem)
    }

    private func failurePrompt(reason: String, problem: String?) -> ConversationPrompt {
        ConversationPrompt(
            kind: .afterFailure,
            lines: [
                reason,
                "Nothing is lost: the reports can be tried again or go another way; you will be asked again first.",
            ],
            question: "Your answer:", choices: outputChoices(retry: true), problem: problem)
    }

    // MARK: Text

    /// `2026-11-20 13:00–14:30` (UTC), with the end's date when it differs.
    static func window(_ stay: ReportableStay) -> String {
        let start = TimeText.dateTime(unixSeconds: stay.start)
        let end = TimeText.dateTime(unixSeconds: stay.end)
        return start + "–" + (end.prefix(10) == start.prefix(10) ? String(end.dropFirst(11)) : end)
    }

    /// `text` without leading and trailing white space (a line read from a terminal may end in `\r`).
    static func trimmed(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// At most 40 characters of something the holder typed, for a message.
    static func shortened(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    private struct DateProblem: Error { let text: String }

    /// The UTC day number of `YYYY-MM-DD`, which must not lie after today nor more than a year back.
    private func dayNumber(_ text: String) -> Result<Int64, DateProblem> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else {
            return .failure(
                DateProblem(
                    text:
                        "“\(Self.shortened(text))” is not a date: write it as YYYY-MM-DD, e.g. \(TimeText.date(unixSeconds: now))."
                ))
        }
        let number = Self.days(year: year, month: month, day: day)
        guard TimeText.date(unixSeconds: number * 86_400) == text else {
            return .failure(DateProblem(text: "\(text) is not a day of the calendar."))
        }
        let today = StayPreparation.floorTo(now, 86_400) / 86_400
        guard number <= today else { return .failure(DateProblem(text: "\(text) is in the future: check the date.")) }
        guard number >= today - 365 else {
            return .failure(DateProblem(text: "\(text) is more than a year ago: check the date."))
        }
        return .success(number)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days-from-civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// Why a card's stays could not be opened (the store is unavailable, the crypto failed). Shown to the holder.
public struct StayLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension CheckInDesk {
    /// The card's stays for a text conversation (a simulated kiosk's console or control request). Such a
    /// conversation has no PIN entry, so a card with a PIN — or whose settings cannot be read, so that whether it has
    /// one is unknown — is refused (fail closed): its holder shares in their session on the kiosk's screen.
    public func reportableStaysWithoutPIN(of card: CardSecret, clock: ClockReading) throws(StayLoadError)
        -> [ReportableStay]
    {
        let guarded: Bool
        do { guarded = try profile(of: card).hasPIN } catch { guarded = true }
        guard !guarded else {
            throw StayLoadError(
                "This card is protected by a PIN (or its settings cannot be read): its holder shares their stays "
                    + "in their session on the kiosk's screen.")
        }
        do { return try reportableStays(of: card, clock: clock) } catch { throw StayLoadError("\(error)") }
    }
}
