/// The station's own choices on the screen, typed (a holder's session names its own, `VisitorSession`). Each has the
/// id the page posts, `kiosk simulate choose ID` names and the buttons choose: `id` and `init?(id:)` are the one
/// place the two meet.
enum StationChoice: Equatable, Sendable {
    /// “My check-ins” on the idle screen: the next card opens its holder's session.
    case myCheckIns
    /// Stop waiting for a card after “My check-ins”.
    case cancelCardWait
    /// “Language” on the idle screen: the languages are offered.
    case languages
    /// Back from the languages, none chosen.
    case cancelLanguages
    /// A language, named in itself.
    case language(Language)
    /// An entry of the staff menu, by its name (`StaffCommand.menu`).
    case staff(String)
    /// Yes to what staff mode asks, or print a receipt offered again.
    case confirm
    /// No to what staff mode asks, or drop a receipt offered again.
    case cancel
    /// “More time” on a screen about to end by itself.
    case moreTime
    /// The volume and speed of speech (offered while the kiosk speaks).
    case speechSettings
    case speechLouder, speechQuieter, speechFaster, speechSlower
    /// Back from the speech settings to the screen under them.
    case speechBack

    private static let plain: [(StationChoice, String)] = [
        (.myCheckIns, "session"), (.cancelCardWait, "cancel-session"), (.languages, "language"),
        (.cancelLanguages, "cancel-language"), (.confirm, "confirm"), (.cancel, "cancel"), (.moreTime, "more-time"),
        (.speechSettings, "speech-settings"), (.speechLouder, "speech-louder"), (.speechQuieter, "speech-quieter"),
        (.speechFaster, "speech-faster"), (.speechSlower, "speech-slower"), (.speechBack, "speech-back"),
    ]

    /// The id of the choice on the screen.
    var id: String {
        switch self {
        case .language(let language): return LanguageChoice.id(of: language)
        case .staff(let name): return "staff:" + name
        default: return Self.plain.first { $0.0 == self }?.1 ?? ""
        }
    }

    /// The choice an id names, if it names one of the station's.
    init?(id: String) {
        if let language = LanguageChoice.language(of: id) {
            self = .language(language)
        } else if id.hasPrefix("staff:") {
            self = .staff(String(id.dropFirst("staff:".count)))
        } else if let found = Self.plain.first(where: { $0.1 == id }) {
            self = found.0
        } else {
            return nil
        }
    }

    /// Whether the choice belongs to speech (its settings), handled whatever else is on the screen.
    var isSpeech: Bool {
        switch self {
        case .speechSettings, .speechLouder, .speechQuieter, .speechFaster, .speechSlower, .speechBack: true
        default: false
        }
    }

    /// The choice on the screen with its label.
    func choice(_ label: String) -> ScreenModel.Choice { .init(id: id, label: label) }
}
