/// The languages the kiosk speaks, on screen, aloud and on paper: those of the countries whose venue codes it reads.
/// The raw value is the BCP 47 tag the page's `lang` attribute, the catalogs and the speech voices use.
public enum Language: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case en
    case de
    case fr
    case it

    /// The language named by a BCP 47 tag (`de`, `de-CH`, `fr_FR`, case-insensitive), or nil for any other.
    public init?(tag: String) {
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        guard let language = Language(rawValue: primary) else { return nil }
        self = language
    }

    /// The kiosk's language when nothing else is configured.
    public static let fallback = Language.en
}
