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
    /// How long the kiosk waits for a visitor's answer (`checkIns.sessionInactivitySeconds`): a printed code's session
    /// closes after this long without a choice; the languages, the speech settings and a receipt offered again wait
    /// as long.
    public var sessionInactivity: TimeInterval = VisitorSession.defaultInactivityLimit
    /// The kiosk's language: the screen, speech and paper use it unless a visitor chooses another (on the idle
    /// screen, or remembered with their card).
    public var language: Language
    /// The health authority's advice for a warned card holder (`warnings.message`), shown as written whatever the
    /// language; nil for the catalog's advice in the holder's language.
    public var warningAdvice: String?
    /// How loud and fast the kiosk speaks (`speech.volume`, `speech.rate`) until a visitor changes it for themselves.
    public var voice = SpeechVoice(volume: 80, rate: 150)
    /// The venue's time zone (`venue.timeZone`): every time a visitor reads, hears or takes away is in it.
    public var timeZone: VenueZone
    /// The panel and viewing distance (`screen.*`): how many stays a screen lists, where the idle screen points.
    public var screen = ScreenGeometry()

    public init(
        staffTimeout: TimeInterval = 300, staffCode: String? = nil, defaultStayLength: TimeInterval = 8 * 3600,
        language: Language = .fallback, warningAdvice: String? = nil, timeZone: VenueZone = .board
    ) {
        self.timeZone = timeZone
        self.staffTimeout = staffTimeout
        self.staffCode = staffCode
        self.defaultStayLength = defaultStayLength
        self.language = language
        self.warningAdvice = warningAdvice
    }

    public static let `default` = StationConfiguration()
}
