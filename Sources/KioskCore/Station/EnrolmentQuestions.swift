/// The questions a new card's holder answers at enrolment, on the screen: may the kiosk match their stays against
/// warnings (yes and no alike, nothing selected), and an optional PIN (typed twice). A small machine of its own:
/// choices in, the screen and the request to save out. They are asked in the language the holder chose on the idle
/// screen, if they chose one (the station's `language`); the first question also offers "Language", so a holder who
/// did not choose before staff began chooses now. That choice is saved with their answers: the card's next tap and
/// session speak it without a visit to the settings.
struct EnrolmentQuestions: Sendable {
    enum Step: Sendable, Equatable {
        case matching
        case language
        case pinOffer
        case pin(first: String?, typed: String, problem: String?)
        case saving
    }

    /// What a choice leads to.
    enum Effect: Sendable, Equatable {
        case none
        /// Save the answers with the card's keys (`VisitorSession.Request.saveEnrolment`).
        case save(VisitorSession.Request)
    }

    var card: CardSecret
    var step: Step = .matching
    var matching: Bool?
    /// The language the holder chose during the questions, if they did: it wins over the station's.
    var chosenLanguage: Language?

    init(card: CardSecret) { self.card = card }

    var isSaving: Bool { step == .saving }

    /// The questions' screen in `language`.
    func screen(language station: Language) -> ScreenModel {
        let language = chosenLanguage ?? station
        let texts = SessionTexts(language)
        var screen: ScreenModel
        switch step {
        case .matching:
            screen = texts.matchingQuestion()
            screen.choices.append(.init(id: "language", label: texts.languageChoice))
        case .language:
            screen = LanguageChoice.screen(in: texts.catalog, back: .init(id: "back", label: texts.back))
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
        screen.language = language.rawValue
        screen.buttonHint = texts.buttonHint
        return screen
    }

    /// The holder chose `id`; the questions are in `language`. `chosen` is the language the holder chose at the kiosk
    /// (nil when they chose none): saved with the answers.
    mutating func choose(_ id: String, language station: Language, chosen stationChoice: Language?) -> Effect {
        let language = chosenLanguage ?? station
        let chosen = chosenLanguage ?? stationChoice
        switch step {
        case .matching:
            if id == "language" {
                step = .language
                return .none
            }
            guard id == "yes" || id == "no" else { return .none }
            matching = id == "yes"
            step = .pinOffer
        case .language:
            if let picked = LanguageChoice.language(of: id) {
                chosenLanguage = picked
                step = .matching
            } else if id == "back" {
                step = .matching
            }
        case .pinOffer:
            if id == "set-pin" {
                step = .pin(first: nil, typed: "", problem: nil)
            } else {
                return save(pin: nil, language: chosen)
            }
        case .pin(let first, let typed, _):
            if id == "no-pin" { return save(pin: nil, language: chosen) }
            switch VisitorSession.keypad(id, typed: typed, maxLength: CardProfile.pinLengths.upperBound) {
            case .typed(let now): step = .pin(first: first, typed: now, problem: nil)
            case .submit(let pin):
                let texts = SessionTexts(language)
                if !CardProfile.isWellFormed(pin) {
                    step = .pin(first: first, typed: "", problem: texts.pinFormat)
                } else if let first {
                    guard first == pin else {
                        step = .pin(first: nil, typed: "", problem: texts.pinMismatch)
                        return .none
                    }
                    return save(pin: pin, language: chosen)
                } else {
                    step = .pin(first: pin, typed: "", problem: nil)
                }
            case .other: break
            }
        case .saving:
            break
        }
        return .none
    }

    private mutating func save(pin: String?, language: Language?) -> Effect {
        step = .saving
        return .save(.saveEnrolment(matching: matching ?? false, pin: pin, language: language))
    }
}
