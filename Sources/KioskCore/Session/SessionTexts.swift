public import Foundation

/// The texts of a card holder's session (English). Nothing here names a card, a code or a secret; venues and stays
/// appear only inside the holder's own session.
public struct SessionTexts: Sendable, Equatable {
    /// The health authority's advice for a warned holder (`warnings.message`), shown in their session.
    public var warningAdvice: String

    public init(warningAdvice: String = SessionTexts.defaultAdvice) {
        self.warningAdvice = warningAdvice
    }

    public static let defaultAdvice =
        "Watch for symptoms, get tested if you feel ill, and follow the health authority's advice."

    // Opening and closing
    var opening: String { "Opening your check-ins" }
    var keepCard: String { "Keep your card on the reader." }
    var closed: String { "Your check-ins are closed." }
    var closedTitle: String { "Closed" }
    var closedMessage: StationMessage {
        StationMessage(
            title: closedTitle, body: "Your check-ins were closed after a time without activity.", kind: .info)
    }
    var blockedMessage: StationMessage {
        StationMessage(title: "Card blocked", body: blocked + " Ask staff for a new card.", kind: .success)
    }
    var enrolmentSaved: StationMessage {
        StationMessage(title: "Saved", body: "Your answers are kept with your card's data.", kind: .success)
    }
    var pinOfferTitle: String { "A PIN for your check-ins?" }
    var pinOfferExplained: String {
        "A PIN of 4 to 6 digits keeps others who find your card from seeing your check-ins here. Tapping in and out "
            + "never needs it."
    }
    var noPIN: String { "No PIN" }
    func locked(until: Int64) -> String {
        "Too many wrong PINs: this card's check-ins stay locked until \(TimeText.time(unixSeconds: until)) UTC. "
            + "Tapping in and out still works."
    }
    var buttonHint: String { "Left button: next choice. Right button: choose." }
    func closingSoon(seconds: Int) -> String {
        "No activity: your check-ins close in \(seconds) seconds. Choose “More time” to stay."
    }
    var moreTime: String { "More time" }

    // PIN
    var pinTitle: String { "Your PIN" }
    var pinAsk: String { "Type your PIN, then OK." }
    var pinFormat: String { "A PIN has 4 to 6 digits." }
    func wrongPIN(remaining: Int) -> String {
        "Wrong PIN. \(remaining) tr\(remaining == 1 ? "y" : "ies") left before this card's check-ins are locked for an hour."
    }
    var newPINTitle: String { "New PIN" }
    var repeatPINTitle: String { "Type the new PIN again" }
    var pinRule: String { "4 to 6 digits. It is asked when you open your check-ins, never when you tap in or out." }
    var pinMismatch: String { "The two PINs were not the same. Type the new PIN again." }
    var pinSaved: String { "Saved." }
    func digitsTyped(_ count: Int) -> String { "\(count) digit\(count == 1 ? "" : "s") typed." }
    var deleteKey: String { "Delete last" }
    var okKey: String { "OK" }

    // Home
    var homeTitle: String { "Your check-ins" }
    func count(_ count: Int) -> String {
        count == 0
            ? "This kiosk holds no stays for this card."
            : "This kiosk holds \(count) stay\(count == 1 ? "" : "s") for this card."
    }
    var newsForYou: String { "There is news for you: choose “Possible exposure”." }
    var matchingOff: String {
        "Your stays are not checked against warnings (you can allow it in Settings)."
    }
    var readWarning: String { "Possible exposure" }
    var share: String { "Share after a positive test" }
    var deleteOne: String { "Delete a stay" }
    var deleteAll: String { "Delete everything" }
    var settings: String { "Settings" }
    var block: String { "Block my card" }
    var done: String { "Done" }
    var back: String { "Back" }
    var cancel: String { "Cancel" }
    var keep: String { "Keep" }
    var noStays: String { "There is no stay to delete." }

    /// One stay as the holder reads it: place, day, from–to in UTC, and whether it is still open.
    func stayLine(_ stay: StaySummary) -> String {
        let start = Int64(stay.start.timeIntervalSince1970.rounded(.down))
        let place = stay.venueAddress.isEmpty ? stay.venueDescription : "\(stay.venueDescription), \(stay.venueAddress)"
        let from = "\(TimeText.date(unixSeconds: start)) \(TimeText.time(unixSeconds: start))"
        guard let end = stay.end else {
            let automatic = Int64(stay.automaticEnd.timeIntervalSince1970.rounded(.down))
            return "\(place): \(from) UTC – open, ends by itself at \(TimeText.time(unixSeconds: automatic))"
        }
        let endSeconds = Int64(end.timeIntervalSince1970.rounded(.down))
        let sameDay = TimeText.date(unixSeconds: endSeconds) == TimeText.date(unixSeconds: start)
        let until =
            sameDay
            ? TimeText.time(unixSeconds: endSeconds)
            : "\(TimeText.date(unixSeconds: endSeconds)) \(TimeText.time(unixSeconds: endSeconds))"
        return "\(place): \(from)–\(until) UTC, ended"
    }

    // Deleting and blocking
    var pickStayTitle: String { "Delete a stay" }
    var pickStay: String { "Choose the stay to delete." }
    var deleteOneTitle: String { "Delete this stay?" }
    var deleteForGood: String { "It is removed from this kiosk for good; it cannot be brought back." }
    var deleteIt: String { "Delete it" }
    var deleteAllTitle: String { "Delete everything?" }
    func deleteAllExplained(_ count: Int) -> String {
        "All \(count) stay\(count == 1 ? "" : "s") and your settings on this kiosk will be deleted."
    }
    var deleteAllConfirm: String { "Delete everything" }
    var stayDeleted: String { "The stay was deleted." }
    var allDeleted: String { "Everything was deleted." }
    var nothingDeleted: String { "Nothing was deleted." }
    var blockTitle: String { "Block this card?" }
    var blockExplained: [String] {
        [
            "Use this if you lost the card. Every stay and setting is deleted, and neither the card nor its printed "
                + "code can be used on this kiosk again.",
            "Ask staff for a new card.",
        ]
    }
    var blockConfirm: String { "Block the card" }
    var notBlocked: String { "The card was not blocked." }
    var blocked: String { "The card is blocked: everything of it was deleted here." }

    // Warnings
    var warningTitle: String { "Possible exposure" }
    func warningLines(_ warning: WarningNotice) -> [String] {
        let days = warning.exposureDays.map { TimeText.date(unixSeconds: $0 * 86_400) }
        return [
            "You were at a place on a day when someone there later tested positive: "
                + days.joined(separator: ", ") + (warning.isHighRisk ? " (higher risk)." : "."),
            warningAdvice,
            "Only you can see this: it is shown in your session only. The advice slip prints it for you.",
        ]
    }
    var printSlip: String { "Print the advice slip" }
    var acknowledge: String { "I have read it" }
    var slipOrAcknowledged: String { "Done." }

    // Settings and permission
    func matchingState(_ allowed: Bool?) -> String {
        switch allowed {
        case true?: "Warnings: your stays are checked against published warnings on this kiosk."
        case false?: "Warnings: your stays are not checked."
        case nil: "Warnings: you have not decided yet; your stays are not checked."
        }
    }
    var pinOn: String { "PIN: set." }
    var pinOff: String { "PIN: none." }
    var matchingChoice: String { "Checking for warnings" }
    var setPIN: String { "Set a PIN" }
    var changePIN: String { "Change the PIN" }
    var removePIN: String { "Remove the PIN" }
    var saved: String { "Saved." }

    /// The permission question: yes and no alike, nothing selected (also asked at enrolment).
    public func matchingQuestion() -> ScreenModel {
        ScreenModel(
            kind: "prompt", title: "Check your stays for warnings?",
            lines: [
                "May this kiosk check your stays against warnings published by the health authority?",
                "The check happens on this kiosk only: nothing about your stays leaves it. You can change this later.",
            ],
            choices: [.init(id: "yes", label: "Yes, check"), .init(id: "no", label: "No, do not check")], selected: nil)
    }

    // Sharing
    var nothingToShare: String { "There is nothing to share: no stay of the last 14 days." }
    var nothingShared: String { "Nothing was shared, and nothing of it is kept." }
    var declined: String { "You said no: nothing was shared, and nothing of it is kept." }
    var shareTitle: String { "Share after a positive test" }
    var selectExplained: String {
        "Your stays of the last 14 days. None is selected: choose each stay you want to share, then Continue."
    }
    func selectedCount(_ selected: Int, of total: Int) -> String { "\(selected) of \(total) selected." }
    func toggleLine(_ stay: ReportableStay, selected: Bool) -> String {
        let from = "\(TimeText.date(unixSeconds: stay.start)) \(TimeText.time(unixSeconds: stay.start))"
        return "\(selected ? "Selected" : "Not selected"): \(stay.venueName), \(from)–"
            + "\(TimeText.time(unixSeconds: stay.end)) UTC"
    }
    var continueLabel: String { "Continue" }
    var symptomsTitle: String { "When did symptoms begin?" }
    var symptomsExplained: String { "This decides how much weight each day gets. There is no default." }
    func symptomLabel(_ id: String) -> String {
        switch id {
        case "week": "In the last 7 days"
        case "weeks": "1 to 2 weeks ago"
        case "older": "More than 2 weeks ago"
        case "symptoms": "I have symptoms, I do not know since when"
        case "none": "No symptoms"
        default: "I prefer not to say"
        }
    }
    var outputTitle: String { "How should the reports leave?" }
    var outputExplained: String { "Choose one. You will see exactly what leaves before you are asked." }
    var noOutputs: String { "This kiosk has no printer, USB stick or upload set up: ask staff." }
    func outputLabel(_ kind: VisitorSession.OutputKind) -> String {
        switch kind {
        case .print: "Print QR codes to take to the test centre"
        case .export: "Write to the USB stick"
        case .upload: "Send with the verification code from the test centre"
        }
    }
    var codeTitle: String { "Verification code" }
    var codeExplained: String {
        "Type the 10-character code from the test centre, or show its QR code to the camera."
    }
    var codeFormat: String { "That is not a verification code: it has 10 letters and digits." }
    var disclosureTitle: String { "Before you decide" }
    var consentTitle: String { "Share these reports?" }
    var consentQuestion: String {
        "This is exactly what will leave this kiosk if you say yes. Do you want to share it?"
    }
    var sendingTitle: String { "Sending" }
    var notSentTitle: String { "Not sent" }
    var askedAgain: String { "Nothing was shared. You can try another way; you will be asked again first." }
    var tryAnotherWay: String { "Try another way" }
}
