/// The screen on which a visitor chooses a language: each language named in itself (a person who does not read the
/// kiosk's language still finds their own), the current one first selected.
public enum LanguageChoice {
    /// The choice id of `language` (`language:de`).
    public static func id(of language: Language) -> String { "language:" + language.rawValue }

    /// The language a choice id names, if it names one.
    public static func language(of id: String) -> Language? {
        guard id.hasPrefix("language:") else { return nil }
        return Language(rawValue: String(id.dropFirst("language:".count)))
    }

    public static func screen(in catalog: Catalog, back: ScreenModel.Choice) -> ScreenModel {
        let choices = Language.allCases.map { ScreenModel.Choice(id: id(of: $0), label: Catalog.of($0)[.languageName]) }
        return ScreenModel(
            kind: "prompt", title: catalog[.languageTitle], lines: [catalog[.languageExplained]],
            choices: choices + [back], selected: Language.allCases.firstIndex(of: catalog.language) ?? 0,
            language: catalog.language.rawValue, buttonHint: catalog.buttonHint)
    }
}
