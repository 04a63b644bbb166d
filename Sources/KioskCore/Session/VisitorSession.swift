public import Foundation

/// A card holder's own session at the kiosk, as a pure value: what they see, and what their choices ask the station
/// to do. It opens without checking in or out, shows only this card's data, and closes when the card leaves the reader
/// (a tapped card), on "Done", after a time without activity (whatever opened it: a card left lying on the reader
/// too), or when another card or code is presented.
///
/// In it the holder can see every stay the kiosk holds for the card and how many (UI-2, UI-3), delete one or all
/// (UI-4), block a lost card, decide whether the kiosk may match their stays against warnings (UI-5), read a warning
/// meant for this card, acknowledge it and print its advice slip, set or remove a PIN, and share stays after a
/// positive test through the consent flow (`ConsentFlow`: nothing preselected, the disclosure before the question,
/// the exact preview, yes and no alike with no default, asked again every time).
///
/// The session never reads the store itself: each choice that needs the card's data returns a `Request`, which the
/// station carries out with the card's keys, and the answer comes back through `answered(_:now:)`.
public struct VisitorSession: Sendable {
    /// How the session was opened.
    public enum Source: Sendable, Equatable {
        /// The card lies on the reader: the session ends when it leaves, on "Done" or after `inactivityLimit`.
        case reader
        /// A printed card code was shown to the camera: the session ends on "Done" or after `inactivityLimit`.
        case printedCode
    }

    /// What the station must do for the session, with the card's keys.
    public enum Request: Sendable, Equatable {
        case checkPIN(String)
        case setPIN(String?)
        case saveProfile(CardProfile)
        case deleteStay(StayID)
        case deleteAll
        case block
        case acknowledgeWarning(tag: [UInt8])
        case printWarningSlip(WarningSlip)
        /// Seal and send exactly this consented preview; answered with `.delivered`.
        case deliver(Preview)
        /// Note these stays as reported by their holder (their own report must not warn them).
        case markReported(Set<String>)
        /// The answers of a new card's holder at enrolment: permission to match, a PIN if they chose one, and the
        /// language they chose on the idle screen (nil when they chose none): their card's sessions open in it.
        case saveEnrolment(matching: Bool, pin: String?, language: Language?)
    }

    /// The station's answer to a request.
    public enum Answer: Sendable, Equatable {
        /// The card's data as it stands now (after a change, or when the session opens).
        case contents(CardView)
        case pin(CheckInDesk.PINCheck)
        /// The report left the kiosk; the line says how.
        case delivered(String)
        case failed(String)
        /// Done, nothing to show (a slip printed, an acknowledgement kept).
        case done
    }

    /// What the station hands the session about the card: its contents, a warning for it (only when the holder
    /// allowed matching), and where reports can go from this kiosk now.
    public struct CardView: Sendable, Equatable {
        public var contents: CheckInDesk.CardContents
        public var warning: WarningNotice?
        public var warningAcknowledged: Bool
        public var outputs: Set<OutputKind>
        /// The acknowledgement tags of the station's warning records that belong to this card
        /// (`CheckInDesk.warningRecords(ownedBy:among:)`): what a deletion by its holder takes with it.
        public var ownedWarnings: [[UInt8]]
        /// Whether some of the warnings the stays were to be checked against could not be read (the region's, for a
        /// diary card): the session then says so, rather than let the holder take no news for no warning.
        public var warningsUnchecked: Bool

        public init(
            contents: CheckInDesk.CardContents, warning: WarningNotice?, warningAcknowledged: Bool,
            outputs: Set<OutputKind>, ownedWarnings: [[UInt8]] = [], warningsUnchecked: Bool = false
        ) {
            self.contents = contents
            self.warning = warning
            self.warningAcknowledged = warningAcknowledged
            self.outputs = outputs
            self.ownedWarnings = ownedWarnings
            self.warningsUnchecked = warningsUnchecked
        }
    }

    /// The outputs of a report.
    public enum OutputKind: String, Sendable, Equatable, Hashable, CaseIterable {
        case print, export, upload
    }

    /// What the session did with a choice.
    public enum Effect: Sendable, Equatable {
        case none
        case request(Request)
        /// The holder ended the session (or it ended itself): the station closes it and wipes the card.
        case close(reason: String, title: String? = nil)
    }

    enum View: Sendable, Equatable {
        case pin(typed: String, problem: String?)
        case home(note: String?)
        case deleteMenu
        case pickStay
        case confirmDelete(StayID)
        case confirmDeleteAll
        case confirmBlock
        case warning(note: String?)
        case settings(note: String?)
        case matchingQuestion
        case language
        case newPIN(first: String?, typed: String, problem: String?)
        case selectStays
        case symptoms
        case output(problem: String?)
        case code(typed: String, problem: String?)
        case disclosure
        case consent
        case sending
        case sent(String)
        case failed(String)
        case waiting
    }

    public let source: Source
    public private(set) var card: VisitorCard
    public private(set) var view: CardView?
    private(set) var screenView: View
    private var flow: ConsentFlow?
    private var symptoms: SymptomIndication?
    private var output: ReportOutput?
    private var shareIDs: Set<String> = []
    /// The page of the list of stays shown (home, deleting, sharing), from 0; back to 0 on any other choice.
    private var stayPage = 0
    /// How many stays one page lists (`ScreenGeometry.staysPerPage`).
    public let staysPerPage: Int
    /// Whether the card's stays may be shown: its PIN was accepted, or it has none.
    private var unlocked = false
    /// When the holder last did something (for the session's inactivity limit).
    public private(set) var lastActivity: Date
    /// The holder's language: the one their card remembers once its profile is read, else the one the session
    /// opened in.
    public private(set) var language: Language?
    private let openingLanguage: Language
    private let warningAdvice: String?
    /// The venue's time zone (`venue.timeZone`): the holder's times are shown in it.
    public let zone: VenueZone
    var texts: SessionTexts { SessionTexts(language ?? openingLanguage, warningAdvice: warningAdvice, zone: zone) }

    /// A session closes after this long without a choice; the screen warns `inactivityWarning` before.
    public static let defaultInactivityLimit: TimeInterval = 90
    /// The id of a stay's choice on the share screen is this prefix and the stay's id.
    public static let toggleChoicePrefix = "toggle:"
    /// This session's limit (the station's `sessionInactivity`).
    public let inactivityLimit: TimeInterval
    public static let inactivityWarning: TimeInterval = 20
    /// The characters of a verification code, as the health authority issues them.
    public static let codeAlphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ23456789").map(String.init)

    public init(
        card: VisitorCard, source: Source, now: Date, language: Language = .fallback, warningAdvice: String? = nil,
        inactivityLimit: TimeInterval = VisitorSession.defaultInactivityLimit, zone: VenueZone = .board,
        staysPerPage: Int = ScreenGeometry().staysPerPage
    ) {
        self.zone = zone
        self.staysPerPage = max(1, staysPerPage)
        self.inactivityLimit = inactivityLimit
        self.card = card
        self.source = source
        self.lastActivity = now
        self.openingLanguage = language
        self.warningAdvice = warningAdvice
        self.screenView = .waiting
    }

    /// Whether the card is a diary card: its stays are on the card itself, and there is no kiosk copy to block.
    var isDiary: Bool {
        if case .diary = card { return true }
        return false
    }

    /// Wipes the card's secret (the session is over).
    public mutating func wipe(using crypto: some CryptoProvider) {
        card.wipe(using: crypto)
        flow = nil
        view = nil
    }

    // MARK: - Answers from the station

    /// Takes the station's answer to the last request.
    public mutating func answered(_ answer: Answer, now: Date) -> Effect {
        switch (answer, screenView) {
        case (.contents(let fresh), let current):
            let first = view == nil
            view = fresh
            if let remembered = fresh.contents.profile.language.flatMap(Language.init(tag:)) { language = remembered }
            if first {
                if fresh.contents.profile.isLocked(at: Self.seconds(now)) {
                    return .close(
                        reason: texts.locked(until: fresh.contents.profile.lockedUntil ?? 0, now: now),
                        title: texts.lockedTitle)
                }
                unlocked = !fresh.contents.profile.hasPIN
                screenView = unlocked ? .home(note: nil) : .pin(typed: "", problem: nil)
                return .none
            }
            switch current {
            case .confirmDelete: screenView = .home(note: texts.stayDeleted)
            case .confirmDeleteAll: screenView = .home(note: texts.allDeleted)
            case .matchingQuestion, .language: screenView = .settings(note: texts.saved)
            case .newPIN: screenView = .settings(note: texts.pinSaved)
            case .settings: screenView = .settings(note: texts.saved)
            case .sent: break
            default: screenView = .home(note: nil)
            }
            return .none
        case (.pin(let check), _):
            switch check {
            case .accepted:
                unlocked = true
                screenView = .home(note: nil)
            case .wrong(let remaining): screenView = .pin(typed: "", problem: texts.wrongPIN(remaining: remaining))
            case .locked(let until):
                return .close(reason: texts.locked(until: until, now: now), title: texts.lockedTitle)
            }
            return .none
        case (.delivered, _):
            flow?.handle(.outputFinished(.delivered(output ?? .print, reportCount: 0)))
            let ids = shareIDs
            let line = texts.delivered(output ?? .print)
            resetShare()
            screenView = .sent(line)
            return ids.isEmpty ? .none : .request(.markReported(ids))
        case (.failed(let reason), .sending):
            flow = nil
            screenView = .failed(reason)
            return .none
        case (.failed(let reason), _):
            // Before the PIN was accepted nothing of the card is shown: a PIN that could not be checked (and counted)
            // closes the session.
            guard unlocked else { return .close(reason: reason) }
            screenView = .home(note: reason)
            return .none
        case (.done, .warning):
            screenView = .warning(note: texts.slipOrAcknowledged)
            return .none
        default:
            return .none
        }
    }

    // MARK: - Choices

    /// The holder chose `id` on the screen (touch, a button, or the simulated kiosk).
    public mutating func choose(_ id: String, now: Date) -> Effect {
        lastActivity = now
        guard let view else { return .none }
        let contents = view.contents
        if id == "done" { return .close(reason: texts.closed) }
        if let count = listedStays(view), let page = pages(of: count).turned(id) {
            stayPage = page
            return .none
        }
        // A stay picked or toggled keeps its page; anything else starts the next list at its first.
        if !id.hasPrefix(Self.toggleChoicePrefix) { stayPage = 0 }
        switch screenView {
        case .waiting, .sending:
            return .none
        case .pin(let typed, _):
            switch Self.keypad(id, typed: typed, maxLength: CardProfile.pinLengths.upperBound) {
            case .typed(let now): screenView = .pin(typed: now, problem: nil)
            case .submit(let pin):
                guard CardProfile.isWellFormed(pin) else {
                    screenView = .pin(typed: "", problem: texts.pinFormat)
                    return .none
                }
                screenView = .waiting
                return .request(.checkPIN(pin))
            case .other: break
            }
            return .none
        case .home, .sent:
            switch id {
            case "delete": screenView = .deleteMenu
            case "warning": screenView = .warning(note: nil)
            case "settings": screenView = .settings(note: nil)
            case "share": startShare(now: now)
            default: break
            }
            return .none
        case .deleteMenu:
            switch id {
            case "delete-one": screenView = contents.stays.isEmpty ? .home(note: texts.noStays) : .pickStay
            case "delete-all": screenView = .confirmDeleteAll
            case "block" where !isDiary: screenView = .confirmBlock
            case "back": screenView = .home(note: nil)
            default: break
            }
            return .none
        case .pickStay:
            if id == "back" {
                screenView = .home(note: nil)
            } else if let stay = contents.stays.first(where: { "stay:" + $0.id.hex == id }) {
                screenView = .confirmDelete(stay.id)
            }
            return .none
        case .confirmDelete(let stayID):
            guard id == "delete" else {
                screenView = .home(note: texts.nothingDeleted)
                return .none
            }
            return .request(.deleteStay(stayID))
        case .confirmDeleteAll:
            guard id == "delete" else {
                screenView = .home(note: texts.nothingDeleted)
                return .none
            }
            return .request(.deleteAll)
        case .confirmBlock:
            guard id == "block" else {
                screenView = .home(note: texts.notBlocked)
                return .none
            }
            return .request(.block)
        case .warning:
            guard let warning = view.warning else {
                screenView = .home(note: nil)
                return .none
            }
            switch id {
            case "print-slip":
                return .request(
                    .printWarningSlip(
                        WarningSlip(exposureDays: warning.exposureDays, isHighRisk: warning.isHighRisk)))
            case "acknowledge":
                self.view?.warningAcknowledged = true
                return .request(.acknowledgeWarning(tag: warning.acknowledgementTag))
            default:
                screenView = .home(note: nil)
                return .none
            }
        case .settings:
            switch id {
            case "matching": screenView = .matchingQuestion
            case "set-pin": screenView = .newPIN(first: nil, typed: "", problem: nil)
            case "remove-pin": return .request(.setPIN(nil))
            case "always-speak":
                var profile = contents.profile
                profile.alwaysSpeak.toggle()
                return .request(.saveProfile(profile))
            case "language": screenView = .language
            default: screenView = .home(note: nil)
            }
            return .none
        case .language:
            guard let chosen = LanguageChoice.language(of: id) else {
                screenView = .settings(note: nil)
                return .none
            }
            language = chosen
            var profile = contents.profile
            profile.language = chosen.rawValue
            return .request(.saveProfile(profile))
        case .matchingQuestion:
            guard id == "yes" || id == "no" else {
                screenView = .settings(note: nil)
                return .none
            }
            var profile = contents.profile
            profile.matchingAllowed = id == "yes"
            return .request(.saveProfile(profile))
        case .newPIN(let first, let typed, _):
            if id == "cancel" {
                screenView = .settings(note: nil)
                return .none
            }
            switch Self.keypad(id, typed: typed, maxLength: CardProfile.pinLengths.upperBound) {
            case .typed(let now): screenView = .newPIN(first: first, typed: now, problem: nil)
            case .submit(let pin):
                guard CardProfile.isWellFormed(pin) else {
                    screenView = .newPIN(first: first, typed: "", problem: texts.pinFormat)
                    return .none
                }
                guard let first else {
                    screenView = .newPIN(first: pin, typed: "", problem: nil)
                    return .none
                }
                guard first == pin else {
                    screenView = .newPIN(first: nil, typed: "", problem: texts.pinMismatch)
                    return .none
                }
                return .request(.setPIN(pin))
            case .other: break
            }
            return .none
        case .selectStays:
            guard var flow else { return .none }
            switch id {
            case "continue":
                guard flow.handle(.confirmSelection), case .askingDetails(let selection) = flow.state else {
                    return .none
                }
                shareIDs = Set(selection.map(\.id))
                self.flow = flow
                screenView = .symptoms
            case "cancel":
                cancelShare(note: texts.nothingShared)
            default:
                if id.hasPrefix(Self.toggleChoicePrefix) {
                    flow.handle(.toggle(String(id.dropFirst(Self.toggleChoicePrefix.count))))
                    self.flow = flow
                }
            }
            return .none
        case .symptoms:
            if id == "cancel" {
                cancelShare(note: texts.nothingShared)
                return .none
            }
            guard let indication = Self.symptomChoices.first(where: { $0.id == id })?.indication else { return .none }
            symptoms = indication
            screenView = .output(problem: nil)
            return .none
        case .output:
            switch id {
            case "print" where view.outputs.contains(.print): chooseOutput(.print)
            case "export" where view.outputs.contains(.export): chooseOutput(.export)
            case "upload" where view.outputs.contains(.upload): screenView = .code(typed: "", problem: nil)
            case "cancel": cancelShare(note: texts.nothingShared)
            default: break
            }
            return .none
        case .code(let typed, _):
            if id == "cancel" {
                cancelShare(note: texts.nothingShared)
                return .none
            }
            switch Self.keypad(id, typed: typed, maxLength: 10) {
            case .typed(let now): screenView = .code(typed: now, problem: nil)
            case .submit(let code): verificationCode(code)
            case .other: break
            }
            return .none
        case .disclosure:
            guard id == "continue", var flow else {
                cancelShare(note: texts.nothingShared)
                return .none
            }
            flow.handle(.acknowledgeDisclosure)
            self.flow = flow
            screenView = .consent
            return .none
        case .consent:
            guard var flow, id == "yes" || id == "no" else { return .none }
            flow.handle(.answer(id == "yes"))
            guard case .consented(let preview) = flow.state else {
                cancelShare(note: texts.declined)
                return .none
            }
            self.flow = flow
            screenView = .sending
            return .request(.deliver(preview))
        case .failed:
            if id == "retry" {
                // Another way, and consent asked again before it.
                startShare(now: now, keeping: shareIDs)
            } else {
                resetShare()
                screenView = .home(note: texts.nothingShared)
            }
            return .none
        }
    }

    /// The physical "next" button: nothing to do here (the station moves the selection); counts as activity.
    public mutating func touched(now: Date) { lastActivity = now }

    /// A code shown to the camera while the holder types a verification code: taken as the code.
    public mutating func scannedVerificationCode(_ text: String, now: Date) -> Bool {
        guard case .code = screenView else { return false }
        lastActivity = now
        verificationCode(text)
        return true
    }

    /// Whether the session is in the middle of consent (it never times out silently there).
    public var isInConsent: Bool {
        switch screenView {
        case .selectStays, .symptoms, .output, .code, .disclosure, .consent, .sending: true
        default: false
        }
    }

    // MARK: - Sharing

    static let symptomChoices: [(id: String, indication: SymptomIndication)] = [
        ("week", .symptomsInLastSevenDays), ("weeks", .symptomsOneToTwoWeeksAgo),
        ("older", .symptomsMoreThanTwoWeeksAgo), ("symptoms", .symptomsWithoutDate), ("none", .noSymptoms),
        ("skip", .noInformation),
    ]

    private mutating func startShare(now: Date, keeping selected: Set<String> = []) {
        guard let view else { return }
        var flow = ConsentFlow(now: Self.seconds(now))
        flow.handle(.cardPresented(stays: view.contents.reportable))
        guard case .selecting = flow.state else {
            screenView = .home(note: texts.nothingToShare)
            return
        }
        // After a failed output the same stays stay chosen (the holder chose them); the question comes again.
        for id in selected { flow.handle(.toggle(id)) }
        self.flow = flow
        output = nil
        screenView = selected.isEmpty ? .selectStays : .output(problem: nil)
        if !selected.isEmpty {
            if self.flow?.handle(.confirmSelection) != true { screenView = .selectStays }
        }
    }

    private mutating func chooseOutput(_ chosen: ReportOutput) {
        guard var flow, let symptoms else { return }
        output = chosen
        flow.handle(.details(symptoms: symptoms, output: chosen))
        self.flow = flow
        switch flow.state {
        case .disclosing: screenView = .disclosure
        default: cancelShare(note: texts.nothingToShare)
        }
    }

    private mutating func verificationCode(_ text: String) {
        let code = text.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        guard code.count == 10, code.allSatisfy({ Self.codeAlphabet.contains(String($0)) }) else {
            screenView = .code(typed: "", problem: texts.codeFormat)
            return
        }
        chooseOutput(.upload(verificationCode: String(code.prefix(5)) + "-" + String(code.suffix(5))))
    }

    private mutating func cancelShare(note: String) {
        flow?.handle(.abort)
        resetShare()
        screenView = .home(note: note)
    }

    private mutating func resetShare() {
        flow = nil
        symptoms = nil
        output = nil
        shareIDs = []
    }

    // MARK: - Keypad

    enum KeyPress {
        case typed(String)
        case submit(String)
        case other
    }

    /// What a choice does on a keypad screen: a key typed (or the last one deleted), OK, or something else.
    static func keypad(_ id: String, typed: String, maxLength: Int) -> KeyPress {
        switch id {
        case "key:ok": return .submit(typed)
        case "key:delete": return .typed(String(typed.dropLast()))
        default:
            guard id.hasPrefix("key:") else { return .other }
            let key = String(id.dropFirst(4))
            guard key.count == 1, typed.count < maxLength else { return .typed(typed) }
            return .typed(typed + key)
        }
    }

    // MARK: - The screen

    /// What the screen shows for this session now.
    public func screen(now: Date) -> ScreenModel {
        var screen = content(now: now)
        screen.isPrivate = true
        screen.language = texts.language.rawValue
        if screen.buttonHint.isEmpty { screen.buttonHint = texts.buttonHint }
        // Never silently, consent included, whatever opened it (a card left on the reader too): the holder is told
        // before the end and offered more time.
        let left = inactivityLimit - now.timeIntervalSince(lastActivity)
        if left <= Self.inactivityWarning {
            screen.lines.append(texts.closingSoon(seconds: max(0, Int(left.rounded(.up)))))
            screen.choices.append(.init(id: "more-time", label: texts.moreTime))
        }
        return screen
    }

    private func content(now: Date) -> ScreenModel {
        guard let view else { return ScreenModel(kind: "prompt", title: texts.opening, lines: [texts.keepCard]) }
        let contents = view.contents
        switch screenView {
        case .waiting:
            return ScreenModel(kind: "prompt", title: texts.opening, lines: [texts.keepCard])
        case .pin(let typed, let problem):
            return keypadScreen(
                title: texts.pinTitle, lines: [problem, texts.pinAsk].compactMap { $0 }, purpose: .pin, typed: typed,
                keys: (0...9).map(String.init), extra: [.init(id: "done", label: texts.done)])
        case .home(let note):
            return home(note: note, view: view, now: now)
        case .sent(let line):
            return home(note: line, view: view, now: now)
        case .deleteMenu:
            return ScreenModel(
                kind: "prompt", title: isDiary ? texts.deleteOnCard : texts.deleteMenuTitle,
                lines: [isDiary ? texts.deleteOnCardExplained : texts.deleteMenuExplained],
                choices: [
                    .init(id: "delete-one", label: texts.deleteOne), .init(id: "delete-all", label: texts.deleteAll),
                ] + (isDiary ? [] : [.init(id: "block", label: texts.block)]) + [.init(id: "back", label: texts.back)])
        case .pickStay:
            let page = page(of: contents.stays)
            return ScreenModel(
                kind: "prompt", title: texts.pickStayTitle, lines: [texts.pickStay] + page.line,
                choices: page.shown.map { .init(id: "stay:" + $0.id.hex, label: texts.stayLine($0, now: now)) }
                    + page.choices + [.init(id: "back", label: texts.back)])
        case .confirmDelete(let id):
            let line = contents.stays.first { $0.id == id }.map { texts.stayLine($0, now: now) } ?? ""
            return ScreenModel(
                kind: "prompt", title: texts.deleteOneTitle,
                lines: [line, isDiary ? texts.deleteForGoodOnCard : texts.deleteForGood],
                choices: [.init(id: "keep", label: texts.keep), .init(id: "delete", label: texts.deleteIt)])
        case .confirmDeleteAll:
            return ScreenModel(
                kind: "prompt", title: texts.deleteAllTitle,
                lines: isDiary
                    ? [texts.deleteAllOnCardExplained(contents.stays.count), texts.deleteForGoodOnCard]
                    : [texts.deleteAllExplained(contents.stays.count), texts.deleteForGood],
                choices: [.init(id: "keep", label: texts.keep), .init(id: "delete", label: texts.deleteAllConfirm)])
        case .confirmBlock:
            return ScreenModel(
                kind: "prompt", title: texts.blockTitle, lines: texts.blockExplained,
                choices: [.init(id: "keep", label: texts.keep), .init(id: "block", label: texts.blockConfirm)])
        case .warning(let note):
            guard let warning = view.warning else {
                return ScreenModel(
                    kind: "info", title: texts.homeTitle, choices: [.init(id: "back", label: texts.back)])
            }
            var lines = [String]()
            if let note { lines.append(note) }
            lines += texts.warningLines(warning)
            var choices: [ScreenModel.Choice] = [.init(id: "print-slip", label: texts.printSlip)]
            if !view.warningAcknowledged { choices.append(.init(id: "acknowledge", label: texts.acknowledge)) }
            choices.append(.init(id: "back", label: texts.back))
            return ScreenModel(kind: "warning", title: texts.warningTitle, lines: lines, choices: choices)
        case .settings(let note):
            var lines = [String]()
            if let note { lines.append(note) }
            lines.append(texts.matchingState(contents.profile.matchingAllowed))
            lines.append(contents.profile.hasPIN ? texts.pinOn : texts.pinOff)
            var choices: [ScreenModel.Choice] = [
                .init(id: "matching", label: texts.matchingChoice),
                .init(id: "set-pin", label: contents.profile.hasPIN ? texts.changePIN : texts.setPIN),
            ]
            if contents.profile.hasPIN { choices.append(.init(id: "remove-pin", label: texts.removePIN)) }
            lines.append(texts.speechState(contents.profile.alwaysSpeak))
            choices.append(.init(id: "always-speak", label: texts.speechToggle(contents.profile.alwaysSpeak)))
            choices.append(.init(id: "language", label: texts.languageChoice))
            choices.append(.init(id: "back", label: texts.back))
            return ScreenModel(kind: "info", title: texts.settings, lines: lines, choices: choices)
        case .matchingQuestion:
            return texts.matchingQuestion()
        case .language:
            return LanguageChoice.screen(in: texts.catalog, back: .init(id: "back", label: texts.back))
        case .newPIN(let first, let typed, let problem):
            return keypadScreen(
                title: first == nil ? texts.newPINTitle : texts.repeatPINTitle,
                lines: [problem, texts.pinRule].compactMap { $0 }, purpose: .pin, typed: typed,
                keys: (0...9).map(String.init), extra: [.init(id: "cancel", label: texts.cancel)])
        case .selectStays:
            var selected = Set<String>()
            var stays = [ReportableStay]()
            if case .selecting(let listed, let current) = flow?.state {
                stays = listed
                selected = current
            }
            let page = page(of: stays)
            let choices =
                page.shown.map { stay in
                    ScreenModel.Choice(
                        id: Self.toggleChoicePrefix + stay.id,
                        label: texts.toggleLine(stay, selected: selected.contains(stay.id), now: now))
                } + page.choices
                + [.init(id: "continue", label: texts.continueLabel), .init(id: "cancel", label: texts.cancel)]
            return ScreenModel(
                kind: "prompt", title: texts.shareTitle,
                lines: [texts.selectExplained, texts.selectedCount(selected.count, of: stays.count)] + page.line,
                choices: choices, selected: nil)
        case .symptoms:
            return ScreenModel(
                kind: "prompt", title: texts.symptomsTitle, lines: [texts.symptomsExplained],
                choices: Self.symptomChoices.map { .init(id: $0.id, label: texts.symptomLabel($0.id)) }
                    + [.init(id: "cancel", label: texts.cancel)])
        case .output(let problem):
            var choices = [ScreenModel.Choice]()
            for kind in OutputKind.allCases where view.outputs.contains(kind) {
                choices.append(.init(id: kind.rawValue, label: texts.outputLabel(kind)))
            }
            choices.append(.init(id: "cancel", label: texts.cancel))
            return ScreenModel(
                kind: "prompt", title: texts.outputTitle,
                lines: [problem, view.outputs.isEmpty ? texts.noOutputs : texts.outputExplained].compactMap { $0 },
                choices: choices)
        case .code(let typed, let problem):
            return keypadScreen(
                title: texts.codeTitle, lines: [problem, texts.codeExplained].compactMap { $0 },
                purpose: .verificationCode, typed: typed, keys: Self.codeAlphabet,
                extra: [.init(id: "cancel", label: texts.cancel)])
        case .disclosure:
            return ScreenModel(
                kind: "prompt", title: texts.disclosureTitle, lines: [ConsentFlow.disclosure(in: texts.catalog)],
                choices: [.init(id: "continue", label: texts.continueLabel), .init(id: "cancel", label: texts.cancel)])
        case .consent:
            guard case .asking(let preview) = flow?.state else {
                return ScreenModel(kind: "prompt", title: texts.opening)
            }
            // Yes and no: the same kind of choice, no default (nothing selected), asked every time.
            return ScreenModel(
                kind: "prompt", title: texts.consentTitle, lines: [texts.consentQuestion],
                items: preview.lines(in: texts.catalog, zone: zone),
                choices: ConsentFlow.answers(in: texts.catalog).map {
                    .init(id: $0.answer ? "yes" : "no", label: $0.label)
                },
                selected: nil)
        case .sending:
            return ScreenModel(kind: "prompt", title: texts.sendingTitle, lines: [texts.keepCard])
        case .failed(let reason):
            return ScreenModel(
                kind: "error", title: texts.notSentTitle, lines: [reason, texts.askedAgain],
                choices: [.init(id: "retry", label: texts.tryAnotherWay), .init(id: "cancel", label: texts.cancel)])
        }
    }

    private func home(note: String?, view: CardView, now: Date) -> ScreenModel {
        let contents = view.contents
        let page = page(of: contents.stays)
        var lines = [String]()
        if let note { lines.append(note) }
        lines.append(isDiary ? texts.cardCount(contents.stays.count) : texts.count(contents.stays.count))
        if contents.cardWasFull { lines.append(texts.cardWasFull) }
        lines += page.line
        if let warning = view.warning, !warning.exposureDays.isEmpty, !view.warningAcknowledged {
            lines.append(texts.newsForYou)
        }
        if contents.profile.matchingAllowed != true { lines.append(texts.matchingOff) }
        if view.warningsUnchecked { lines.append(texts.warningsUnchecked) }
        var choices = [ScreenModel.Choice]()
        if view.warning != nil { choices.append(.init(id: "warning", label: texts.readWarning)) }
        choices += page.choices
        choices += [
            .init(id: "share", label: texts.share),
            .init(id: "delete", label: isDiary ? texts.deleteOnCard : texts.deleteMenu),
            .init(id: "settings", label: texts.settings), .init(id: "done", label: texts.done),
        ]
        return ScreenModel(
            kind: "info", title: texts.homeTitle, lines: lines,
            items: page.shown.map { texts.stayLine($0, now: now) }, choices: choices)
    }

    // MARK: - Pages of stays

    /// The ids of the choices that turn the page of a list of stays.
    public static let nextPageChoice = "next-page"
    public static let previousPageChoice = "previous-page"
    public static let pageChoices: Set<String> = [nextPageChoice, previousPageChoice]

    /// How many stays the screen shown now lists, when it lists them.
    private func listedStays(_ view: CardView) -> Int? {
        switch screenView {
        case .home, .sent, .pickStay: return view.contents.stays.count
        case .selectStays:
            guard case .selecting(let listed, _) = flow?.state else { return nil }
            return listed.count
        default: return nil
        }
    }

    /// A list of `count` stays in pages of `perPage`, on page `current` (kept within the pages: a list that
    /// shrank, a stay deleted, shows its last page).
    private struct StayPages {
        let count: Int
        let perPage: Int
        let current: Int

        init(count: Int, perPage: Int, page: Int) {
            self.count = count
            self.perPage = perPage
            current = min(page, max(1, (count + perPage - 1) / perPage) - 1)
        }

        var hasPrevious: Bool { current > 0 }
        var hasNext: Bool { (current + 1) * perPage < count }
        /// The indices of the stays on the page.
        var range: Range<Int> { current * perPage..<min(count, (current + 1) * perPage) }

        /// The page `id` (next or previous) turns to; nil when it turns none here.
        func turned(_ id: String) -> Int? {
            switch id {
            case VisitorSession.nextPageChoice where hasNext: current + 1
            case VisitorSession.previousPageChoice where hasPrevious: current - 1
            default: nil
            }
        }
    }

    private func pages(of count: Int) -> StayPages { StayPages(count: count, perPage: staysPerPage, page: stayPage) }

    /// The stays of the page shown now, the line saying which they are ("Stays 4–6 of 7", none when one page holds
    /// them all) and the choices that turn the page (previous first; each only where there is a page to go to).
    private func page<Stay>(of stays: [Stay]) -> (
        shown: ArraySlice<Stay>, line: [String], choices: [ScreenModel.Choice]
    ) {
        guard stays.count > staysPerPage else { return (stays[...], [], []) }
        let pages = pages(of: stays.count)
        var choices = [ScreenModel.Choice]()
        if pages.hasPrevious { choices.append(.init(id: Self.previousPageChoice, label: texts.previousPage)) }
        if pages.hasNext { choices.append(.init(id: Self.nextPageChoice, label: texts.nextPage)) }
        let line = texts.staysPage(first: pages.range.lowerBound + 1, last: pages.range.upperBound, count: stays.count)
        return (stays[pages.range], [line], choices)
    }

    private func keypadScreen(
        title: String, lines: [String], purpose: ScreenModel.Keypad.Purpose, typed: String, keys: [String],
        extra: [ScreenModel.Choice]
    ) -> ScreenModel {
        let shown = purpose == .pin ? String(repeating: "•", count: typed.count) : typed
        let keyChoices = keys.map { ScreenModel.Choice(id: "key:" + $0, label: $0) }
        return ScreenModel(
            kind: "prompt", title: title, lines: lines + [purpose == .pin ? texts.digitsTyped(typed.count) : typed],
            choices: keyChoices + [
                .init(id: "key:delete", label: texts.deleteKey), .init(id: "key:ok", label: texts.okKey),
            ] + extra,
            keypad: ScreenModel.Keypad(purpose: purpose, shown: shown, keys: keys))
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
