public import Foundation

/// The texts of a card holder's session in one language, from that language's catalog. Nothing here names a card, a
/// code or a secret; venues and stays appear only inside the holder's own session.
public struct SessionTexts: Sendable {
    public let catalog: Catalog
    /// The health authority's advice for a warned holder (`warnings.message`) as configured, or nil for the
    /// catalog's advice in the holder's language.
    public var configuredAdvice: String?
    /// How the holder sees times: in their language and the venue's zone (`venue.timeZone`).
    public let time: VisitorTime

    public init(_ language: Language = .fallback, warningAdvice: String? = nil, zone: VenueZone = .board) {
        catalog = Catalog.of(language)
        configuredAdvice = warningAdvice.flatMap { $0.isEmpty ? nil : $0 }
        time = VisitorTime(language, zone: zone)
    }

    public var language: Language { catalog.language }
    public var warningAdvice: String { configuredAdvice ?? catalog[.sessionWarningAdvice] }

    private func t(_ key: TextKey, _ values: [String: String] = [:]) -> String { catalog.text(key, values) }

    // Opening and closing
    var opening: String { t(.sessionOpening) }
    var keepCard: String { t(.sessionKeepCard) }
    var closed: String { t(.sessionClosed) }
    var closedTitle: String { t(.sessionClosedTitle) }
    var lockedTitle: String { t(.sessionLockedTitle) }
    var closedMessage: StationMessage {
        StationMessage(title: closedTitle, body: t(.sessionClosedInactive), kind: .info)
    }
    var blockedMessage: StationMessage {
        StationMessage(title: t(.sessionBlockedTitle), body: t(.sessionBlockedBody), kind: .success)
    }
    /// After an enrolled card's questions: what the printed card says is said too (a blind holder hears how to use
    /// the paper they were handed).
    var enrolmentSaved: StationMessage {
        StationMessage(
            title: t(.sessionEnrolmentSavedTitle),
            body: [t(.sessionEnrolmentSavedBody), t(.receiptCardUse), t(.receiptCardKey)].joined(separator: " "),
            kind: .success)
    }
    var pinOfferTitle: String { t(.sessionPinOfferTitle) }
    var pinOfferExplained: String { t(.sessionPinOfferBody) }
    var noPIN: String { t(.sessionNoPIN) }
    func locked(until: Int64, now: Date) -> String {
        t(.sessionLocked, ["time": time.until(Date(timeIntervalSince1970: Double(until)), now: now)])
    }
    var buttonHint: String { catalog.buttonHint }
    func closingSoon(seconds: Int) -> String { t(.sessionClosingSoon, ["seconds": String(seconds)]) }
    var moreTime: String { t(.timeMoreTime) }

    // PIN
    var pinTitle: String { t(.sessionPinTitle) }
    var pinAsk: String { t(.sessionPinAsk) }
    var pinFormat: String { t(.sessionPinFormat) }
    func wrongPIN(remaining: Int) -> String { catalog.count(.sessionPinWrong, remaining) }
    var newPINTitle: String { t(.sessionPinNew) }
    var repeatPINTitle: String { t(.sessionPinRepeat) }
    var pinRule: String { t(.sessionPinRule) }
    var pinMismatch: String { t(.sessionPinMismatch) }
    var pinSaved: String { t(.sessionPinSaved) }
    func digitsTyped(_ count: Int) -> String { catalog.count(.sessionDigitsTyped, count) }
    var deleteKey: String { t(.sessionKeyDelete) }
    var okKey: String { t(.sessionKeyOk) }

    // Home
    var homeTitle: String { t(.sessionHomeTitle) }
    func count(_ count: Int) -> String { catalog.count(.sessionCount, count) }
    /// A diary card's stays younger than 14 days gave way on the full card.
    var cardWasFull: String { t(.diaryCardWasFull) }
    /// A diary card's count: the stays are on the card.
    func cardCount(_ count: Int) -> String { catalog.count(.sessionCardCount, count) }
    var newsForYou: String { t(.sessionNewsForYou) }
    var matchingOff: String { t(.sessionMatchingOff) }
    /// Some warnings could not be read: the stays were not checked against every one.
    var warningsUnchecked: String { t(.sessionWarningsUnchecked) }
    var readWarning: String { t(.sessionReadWarning) }
    var share: String { t(.sessionShare) }
    var deleteOne: String { t(.sessionDeleteOne) }
    var deleteAll: String { t(.sessionDeleteAll) }
    var settings: String { t(.sessionSettings) }
    var block: String { t(.sessionBlock) }
    var done: String { t(.sessionDone) }
    var back: String { t(.sessionBack) }
    var cancel: String { t(.sessionCancel) }
    var keep: String { t(.sessionKeep) }
    var noStays: String { t(.sessionNoStays) }
    var nextPage: String { t(.sessionNextPage) }
    var previousPage: String { t(.sessionPreviousPage) }
    /// Which stays a page shows, counted from 1: "Stays 4–6 of 7", "Stay 2 of 3".
    func staysPage(first: Int, last: Int, count: Int) -> String {
        first == last
            ? t(.sessionStaysPageOne, ["first": String(first), "count": String(count)])
            : t(.sessionStaysPage, ["first": String(first), "last": String(last), "count": String(count)])
    }

    /// One stay as the holder reads it: place, day ("today", "yesterday" as of `now`), from–to in the venue's zone,
    /// and whether it is still open.
    func stayLine(_ stay: StaySummary, now: Date? = nil) -> String {
        let place = stay.venueAddress.isEmpty ? stay.venueDescription : "\(stay.venueDescription), \(stay.venueAddress)"
        guard let end = stay.end else {
            return t(
                .sessionStayOpen,
                ["place": place, "from": time.moment(stay.start, now: now), "end": time.time(stay.automaticEnd)])
        }
        return t(.sessionStayEnded, ["place": place, "when": time.span(stay.start, end, now: now)])
    }

    // Deleting and blocking
    var deleteMenu: String { t(.sessionDeleteMenu) }
    var deleteMenuTitle: String { t(.sessionDeleteMenuTitle) }
    var deleteMenuExplained: String { t(.sessionDeleteMenuBody) }
    /// A diary card's: deleting only (there is no kiosk copy to block).
    var deleteOnCard: String { t(.sessionDeleteMenuCard) }
    var deleteOnCardExplained: String { t(.sessionDeleteMenuCardBody) }
    var pickStayTitle: String { t(.sessionPickStayTitle) }
    var pickStay: String { t(.sessionPickStayBody) }
    var deleteOneTitle: String { t(.sessionDeleteOneTitle) }
    var deleteForGood: String { t(.sessionDeleteForGood) }
    var deleteIt: String { t(.sessionDeleteIt) }
    var deleteAllTitle: String { t(.sessionDeleteAllTitle) }
    func deleteAllExplained(_ count: Int) -> String { catalog.count(.sessionDeleteAllBody, count) }
    /// A diary card's: the stays on the card go, its settings stay.
    func deleteAllOnCardExplained(_ count: Int) -> String { catalog.count(.sessionDeleteAllCardBody, count) }
    var deleteForGoodOnCard: String { t(.sessionDeleteForGoodCard) }
    var deleteAllConfirm: String { t(.sessionDeleteAllConfirm) }
    var stayDeleted: String { t(.sessionStayDeleted) }
    var allDeleted: String { t(.sessionAllDeleted) }
    var nothingDeleted: String { t(.sessionNothingDeleted) }
    var blockTitle: String { t(.sessionBlockTitle) }
    var blockExplained: [String] { [t(.sessionBlockBody), t(.sessionBlockAskStaff)] }
    var blockConfirm: String { t(.sessionBlockConfirm) }
    var notBlocked: String { t(.sessionNotBlocked) }

    // Warnings
    var warningTitle: String { t(.sessionWarningTitle) }
    func warningLines(_ warning: WarningNotice) -> [String] {
        // A day may hold a comma ("Sonntag, 29. November"): the days are set apart by semicolons.
        let days = warning.exposureDays.map { time.calendarDay($0) }.joined(separator: "; ")
        return [
            t(warning.isHighRisk ? .sessionWarningDaysHigh : .sessionWarningDays, ["days": days]), warningAdvice,
            t(.sessionWarningPrivate),
        ]
    }
    var printSlip: String { t(.sessionWarningPrintSlip) }
    var acknowledge: String { t(.sessionWarningAcknowledge) }
    var slipOrAcknowledged: String { t(.sessionWarningDone) }

    // Settings and permission
    func matchingState(_ allowed: Bool?) -> String {
        switch allowed {
        case true?: t(.sessionMatchingAllowed)
        case false?: t(.sessionMatchingRefused)
        case nil: t(.sessionMatchingUndecided)
        }
    }
    var pinOn: String { t(.sessionPinOn) }
    var pinOff: String { t(.sessionPinOff) }
    var matchingChoice: String { t(.sessionMatchingChoice) }
    var setPIN: String { t(.sessionSetPIN) }
    var changePIN: String { t(.sessionChangePIN) }
    var removePIN: String { t(.sessionRemovePIN) }
    var saved: String { t(.sessionSaved) }
    var languageChoice: String { t(.sessionLanguage) }
    func speechState(_ always: Bool) -> String { t(always ? .speechAlwaysOn : .speechAlwaysOff) }
    func speechToggle(_ always: Bool) -> String { t(always ? .speechTurnOff : .speechTurnOn) }

    /// The permission question: yes and no alike, nothing selected (also asked at enrolment).
    public func matchingQuestion() -> ScreenModel {
        ScreenModel(
            kind: "prompt", title: t(.sessionMatchingQuestionTitle),
            lines: [t(.sessionMatchingQuestionBody), t(.sessionMatchingQuestionLocal)],
            choices: [
                .init(id: "yes", label: t(.sessionMatchingQuestionYes)),
                .init(id: "no", label: t(.sessionMatchingQuestionNo)),
            ], selected: nil, language: language.rawValue)
    }

    // Sharing
    var nothingToShare: String { t(.sessionShareNothing) }
    var nothingShared: String { t(.sessionShareNothingShared) }
    var declined: String { t(.sessionShareDeclined) }
    var shareTitle: String { t(.sessionShareTitle) }
    var selectExplained: String { t(.sessionShareSelect) }
    /// How many stays are picked: "None is selected yet." only when none is.
    func selectedCount(_ selected: Int, of total: Int) -> String {
        selected == 0
            ? t(.sessionShareNoneSelected)
            : t(.sessionShareSelectedCount, ["selected": String(selected), "total": String(total)])
    }
    func toggleLine(_ stay: ReportableStay, selected: Bool, now: Date? = nil) -> String {
        let when = time.span(
            Date(timeIntervalSince1970: Double(stay.start)), Date(timeIntervalSince1970: Double(stay.end)), now: now)
        return t(
            selected ? .sessionShareSelectedStay : .sessionShareNotSelectedStay,
            ["venue": stay.venueName, "when": when])
    }
    var continueLabel: String { t(.sessionShareContinue) }
    var symptomsTitle: String { t(.sessionSymptomsTitle) }
    var symptomsExplained: String { t(.sessionSymptomsBody) }
    func symptomLabel(_ id: String) -> String {
        switch id {
        case "week": t(.sessionSymptomsWeek)
        case "weeks": t(.sessionSymptomsWeeks)
        case "older": t(.sessionSymptomsOlder)
        case "symptoms": t(.sessionSymptomsSymptoms)
        case "none": t(.sessionSymptomsNone)
        default: t(.sessionSymptomsUnknown)
        }
    }
    var outputTitle: String { t(.sessionOutputTitle) }
    var outputExplained: String { t(.sessionOutputBody) }
    var noOutputs: String { t(.sessionOutputNone) }
    func outputLabel(_ kind: VisitorSession.OutputKind) -> String {
        switch kind {
        case .print: t(.sessionOutputPrint)
        case .export: t(.sessionOutputExport)
        case .upload: t(.sessionOutputUpload)
        }
    }
    var codeTitle: String { t(.sessionCodeTitle) }
    var codeExplained: String { t(.sessionCodeBody) }
    var codeFormat: String { t(.sessionCodeFormat) }
    var disclosureTitle: String { t(.sessionDisclosureTitle) }
    var consentTitle: String { t(.sessionConsentTitle) }
    var consentQuestion: String { t(.sessionConsentQuestion) }
    var sendingTitle: String { t(.sessionSending) }
    var notSentTitle: String { t(.sessionNotSent) }
    var askedAgain: String { t(.sessionAskedAgain) }
    var tryAnotherWay: String { t(.sessionTryAnotherWay) }
    /// What the holder reads once the reports left the kiosk (for a receipt, what it says too: it is heard by
    /// whoever cannot read it).
    func delivered(_ output: ReportOutput) -> String {
        switch output {
        case .print: [t(.sessionSentPrint), t(.receiptReportHandOver), t(.receiptReportOpaque)].joined(separator: " ")
        case .export: t(.sessionSentExport)
        case .upload: t(.sessionSentUpload)
        }
    }
}
