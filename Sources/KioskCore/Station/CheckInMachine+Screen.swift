public import Foundation

/// The screen: what the foreground shows, its deadline and the warning before it, the choices and the two buttons.
extension CheckInMachine {
    /// How long a visitor's message (checked in, checked out, refused) stays before the idle screen returns.
    public static let messageHoldTime: TimeInterval = 15
    /// How long the kiosk waits for a card after "My check-ins" was chosen: short, for meanwhile a card tapped opens
    /// its session instead of checking in (the warning and "More time" come 20 seconds before the end).
    public static let sessionRequestTime: TimeInterval = 45

    /// How long a screen that waits for a visitor's answer waits (the languages, the speech settings, a receipt
    /// offered again, a session without a choice): the venue's `checkIns.sessionInactivitySeconds`.
    public var answerTime: TimeInterval { configuration.sessionInactivity }
    /// How long before a waiting screen ends by itself it says so and offers more time: the 20 seconds WCAG 2.2.1
    /// gives to ask for more.
    public static let timeWarning: TimeInterval = VisitorSession.inactivityWarning

    /// What the screen shows at `now`: the foreground's screen (the speech settings over it while open), with the
    /// warning before its deadline. The selected choice is the one the buttons moved to on this same screen.
    public func screen(now: ClockReading) -> ScreenModel {
        var screen = offeringSpeechSettings(baseScreen(now: now), now: now.now)
        if let selection = person?.selection, selection.screen == Self.identity(of: screen),
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
        let screen = foregroundScreen(now: now)
        // A session warns by itself (its own words, its own “More time”).
        guard person?.session == nil, let until = waitingDeadline(now: now.now) else { return screen }
        return warningBeforeEnd(screen, until: until, now: now.now)
    }

    /// The screen the foreground shows, without the warning before its deadline.
    private func foregroundScreen(now: ClockReading) -> ScreenModel {
        switch foreground {
        case .staff(let staff):
            if let questions = staff.questions { return questions.screen(language: language) }
            let choices: [ScreenModel.Choice]
            if staff.step == .menu, staff.openOffer(now: now.now) == nil {
                // The menu's entries, chosen on the screen or with the two buttons, a page at a time: the everyday
                // ones with “More” before leaving (the menu's last entry); the others, then “Back”.
                let entries = StaffCommand.menu.filter { StaffCommand.firstPage.contains($0.name) != staff.showsMore }
                    .map { StationChoice.staff($0.name).choice(texts.catalog[$0.label]) }
                choices =
                    staff.showsMore
                    ? entries + [StationChoice.staff("back").choice(texts.catalog[.staffMenuBack])]
                    : entries.dropLast() + [StationChoice.staff("more").choice(texts.catalog[.staffMenuMore])]
                        + entries.suffix(1)
            } else {
                choices = [StationChoice.confirm.choice(texts.confirm), StationChoice.cancel.choice(texts.cancel)]
            }
            // In staff mode a message stays until the next one.
            if let shown = lastShown { return messageScreen(shown.message, choices: choices) }
            return idleScreen(now: now, choices: choices)
        case .visitor(let person):
            switch person.activity {
            case .session(let session): return session.screen(now: now.now)
            case .awaitingCard(let until) where now.now < until:
                return messageScreen(texts.sessionPrompt, choices: [StationChoice.cancelCardWait.choice(texts.cancel)])
            case .choosingLanguage(let until) where now.now < until:
                return LanguageChoice.screen(
                    in: texts.catalog, back: StationChoice.cancelLanguages.choice(texts.cancel))
            default:
                break
            }
        case .idle:
            break
        }
        let choices = [
            StationChoice.myCheckIns.choice(texts.myCheckIns), StationChoice.languages.choice(texts.languageChoice),
        ]
        // A clock set back (or not yet set) keeps the message rather than dropping it early.
        if let shown = lastShown, now.now.timeIntervalSince(shown.at) < Self.messageHoldTime {
            return messageScreen(shown.message, choices: choices)
        }
        return idleScreen(now: now, choices: choices)
    }

    private func idleScreen(now: ClockReading, choices: [ScreenModel.Choice]) -> ScreenModel {
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
        if now.isSynchronized, state.venue != nil {
            let screenGeometry = configuration.screen
            // Where to tap and where to show the code, drawn and in words (they say what the general sentence says).
            screen.lines = texts.guide(reader: screenGeometry.readerSide, camera: screenGeometry.cameraSide)
            screen.guide = ScreenModel.Guide(reader: screenGeometry.readerSide, camera: screenGeometry.cameraSide)
        }
        return screen
    }

    /// When the screen shown now stops waiting by itself, if it waits at all: the speech settings over everything;
    /// otherwise the foreground's: staff mode (or a receipt offered again, if sooner), the wait for a card after “My
    /// check-ins”, the languages, a session's inactivity.
    func waitingDeadline(now: Date) -> Date? {
        if let until = speechSettingsDeadline(now: now) { return until }
        switch foreground {
        case .idle:
            return nil
        case .staff(let staff):
            var deadlines = [Date]()
            if !staff.step.isBusy { deadlines.append(staff.until) }
            if staff.questions == nil, let offer = staff.openOffer(now: now) { deadlines.append(offer.until) }
            return deadlines.min()
        case .visitor(let person):
            switch person.activity {
            case .browsing: return nil
            case .awaitingCard(let until), .choosingLanguage(let until): return now < until ? until : nil
            case .session(let session): return session.lastActivity.addingTimeInterval(session.inactivityLimit)
            }
        }
    }

    /// "More time" on a waiting screen: what waits starts its time again. False when nothing waits here (a session
    /// takes its own “More time” as any choice).
    mutating func moreTime(now: ClockReading) -> Bool {
        guard waitingDeadline(now: now.now) != nil else { return false }
        switch foreground {
        case .idle:
            return false
        case .staff(var staff):
            staff.until = staffUntil(now)
            if staff.reprint != nil { staff.reprint?.until = now.now.addingTimeInterval(answerTime) }
            foreground = .staff(staff)
        case .visitor(var person):
            switch person.activity {
            case .browsing, .session: return false
            case .awaitingCard:
                person.activity = .awaitingCard(until: now.now.addingTimeInterval(Self.sessionRequestTime))
            case .choosingLanguage: person.activity = .choosingLanguage(until: now.now.addingTimeInterval(answerTime))
            }
            foreground = .visitor(person)
        }
        return true
    }

    /// `screen` with, in its last `timeWarning` seconds, the time left and a “More time” choice (a tone comes with
    /// it at the tick, and speech when it is on).
    func warningBeforeEnd(_ screen: ScreenModel, until: Date, now: Date) -> ScreenModel {
        let left = until.timeIntervalSince(now)
        guard left <= Self.timeWarning else { return screen }
        var warned = screen
        warned.lines.append(texts.catalog.text(.timeRunningOut, ["seconds": String(max(0, Int(left.rounded(.up))))]))
        warned.choices.append(StationChoice.moreTime.choice(texts.catalog[.timeMoreTime]))
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
        let settings = StationChoice.speechSettings.id
        return ([screen.title] + screen.choices.map(\.id).filter { $0 != settings }).joined(separator: "\u{1F}")
    }

    // MARK: - Buttons and choices

    mutating func navigated(_ button: NavigationButton, now: ClockReading) -> [StationAction] {
        let current = screen(now: now)
        person?.session?.touched(now: now.now)
        extendStaff(now: now)
        switch button {
        case .next:
            person?.selection = Selection(screen: Self.identity(of: current), index: current.selectingNext().selected)
            return []
        case .choose:
            guard let id = current.selectedID else { return [] }
            return chosen(id, now: now)
        }
    }

    mutating func chosen(_ id: String, now: ClockReading) -> [StationAction] {
        let current = screen(now: now)
        guard current.offers(id) else { return [] }
        // After a choice the buttons start from the new screen's first choice (on a PIN keypad: back on 0).
        person?.selection = nil
        let choice = StationChoice(id: id)
        if let choice, chosenForSpeech(choice, now: now) { return [] }
        // More time answers none of the questions under it (an enrolled card's stay where they were).
        if choice == .moreTime, moreTime(now: now) { return [] }
        if staff?.questions != nil { return answerEnrolment(id, now: now) }
        if var session = person?.session {
            let effect = session.choose(id, now: now.now)
            person?.session = session
            let actions = perform(effect, now: now)
            // A stay picked or unpicked for sharing stays where it was touched: the outline marks that stay, not the
            // first one, and "next" goes on from there. A page turned keeps the outline on its choice, so that
            // "choose" again turns the next page (with the buttons alone, page after page).
            if id.hasPrefix(VisitorSession.toggleChoicePrefix) || VisitorSession.pageChoices.contains(id) {
                let next = screen(now: now)
                if let index = next.choices.firstIndex(where: { $0.id == id }) {
                    person?.selection = Selection(screen: Self.identity(of: next), index: index)
                }
            }
            return actions
        }
        switch choice {
        case .myCheckIns:
            if var card = person?.cardOnReader {
                person?.cardOnReader = nil
                defer { card.wipe(using: crypto) }
                return openSession(card, source: .reader, now: now)
            }
            person?.activity = .awaitingCard(until: now.now.addingTimeInterval(Self.sessionRequestTime))
        case .cancelCardWait, .cancelLanguages:
            person?.activity = .browsing
        case .languages:
            let until = now.now.addingTimeInterval(answerTime)
            person?.activity = .choosingLanguage(until: until)
        case .language(let chosen):
            person?.activity = .browsing
            person?.language = chosen
            person?.languageIsTheirs = true
            // A message still held (a tap's result) was written in the old language: the idle screen, in the new one.
            lastShown = nil
        case .staff(let name):
            // Turning the menu's page (in staff mode only: `staff` is nil elsewhere).
            if name == "more" || name == "back" {
                staff?.showsMore = name == "more"
                return []
            }
            guard let command = StaffCommand.named(name) else { return [] }
            staff?.showsMore = false
            return staffCommand(command, now: now)
        case .confirm: return buttonPressed(.confirm, now: now)
        case .cancel: return buttonPressed(.cancel, now: now)
        default: break
        }
        return []
    }
}
