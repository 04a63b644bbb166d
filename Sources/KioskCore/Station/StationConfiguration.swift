public import Foundation

/// The station's settings: a plain value with defaults; the daemon maps its configuration file onto it.
public struct StationConfiguration: Sendable, Equatable {
    /// Staff mode closes this long after the last staff action.
    public var staffTimeout: TimeInterval
    /// The text of the printed staff code (a QR code that opens staff mode), or `nil` for staff cards only.
    /// Compared in constant time; never logged.
    public var staffCode: String?
    /// Length of a stay at venues whose code sets none (SwissCovid/NotifyMe without a delay, Cléa).
    public var defaultStayLength: TimeInterval
    /// How long a warning stays on screen waiting for the visitor's confirmation.
    public var warningDisplayTime: TimeInterval
    /// The texts visitors and staff read.
    public var texts: StationTexts

    public init(
        staffTimeout: TimeInterval = 300, staffCode: String? = nil, defaultStayLength: TimeInterval = 8 * 3600,
        warningDisplayTime: TimeInterval = 120,
        texts: StationTexts = StationTexts()
    ) {
        self.staffTimeout = staffTimeout
        self.staffCode = staffCode
        self.defaultStayLength = defaultStayLength
        self.warningDisplayTime = warningDisplayTime
        self.texts = texts
    }

    public static let `default` = StationConfiguration()
}

/// The station's screen texts (English defaults; a venue may translate them). None may contain personal data.
public struct StationTexts: Sendable, Equatable {
    public var checkedIn = StationMessage(
        title: "Checked in", body: "Tap your card again when you leave. If you forget, your stay ends by itself.",
        kind: .success)
    public var checkedInEndedElsewhere = StationMessage(
        title: "Checked in", body: "Your stay at the previous place was ended. Tap again when you leave.",
        kind: .success)
    public var checkedOut = StationMessage(title: "Checked out", body: "Goodbye.", kind: .success)
    public var alreadyRegistered = StationMessage(
        title: "Already registered", body: "This card was registered a moment ago.", kind: .info)
    public var notSetUp = StationMessage(
        title: "Kiosk not set up", body: "Check-ins are not possible yet: staff must bind the kiosk to a venue.",
        kind: .error)
    public var clockNotSet = StationMessage(
        title: "Clock not set", body: TapRefusal.clockNotSynchronized.description, kind: .error)
    public var clockSet = StationMessage(title: "Clock set", body: "Check-ins are possible again.", kind: .info)
    public var notACheckInCode = StationMessage(
        title: "Not a check-in code",
        body: "This code is not a venue, card or staff code. Tap your card or show your personal QR card.",
        kind: .error)
    public var venueCodeHint = StationMessage(
        title: "This is a venue's code",
        body: "To check in here, tap your card or show your personal QR card. Nothing was stored.", kind: .info)
    public var notAKioskCard = StationMessage(
        title: "Not a kiosk card", body: "This card cannot be used for check-ins. Nothing was stored.", kind: .error)
    public var blankCard = StationMessage(
        title: "Empty card", body: "This card is not set up yet: ask staff to enrol it. Nothing was stored.",
        kind: .error)
    public var damagedCard = StationMessage(
        title: "Card not readable",
        body: "This card could not be read completely: hold it still, or ask staff to enrol it again.", kind: .error)
    /// After a tap whose card has a warning: no day, no place on the public screen, only that there is news.
    public var newsForCard = StationMessage(
        title: "News for this card",
        body: "There is news for you. Keep the card on the reader and choose “My check-ins”: only you will see it.",
        kind: .warning)
    public var newsForCardShowCode = StationMessage(
        title: "News for this card",
        body: "There is news for you. Choose “My check-ins” and show your card again: only you will see it.",
        kind: .warning)
    /// The idle screen.
    public var idle = StationMessage(
        title: "Welcome", body: "Tap your card on the reader to check in or out, or show your personal QR card.",
        kind: .info)
    /// "My check-ins" was chosen: waiting for the card.
    public var sessionPrompt = StationMessage(
        title: "My check-ins",
        body: "Tap your card, or show your personal QR card to the camera. Nothing is checked in or out.",
        kind: .prompt)
    public var myCheckIns = "My check-ins"
    public var confirm = "Confirm"
    public var cancel = "Cancel"
    public var warning = StationMessage(
        title: "Please read: possible exposure",
        body: "Watch for symptoms over the next days. If you feel unwell, stay at home and call your doctor or the "
            + "health service before you go there. Take a test, and follow your health authority's advice.",
        kind: .warning)

    public init() {}
}
