/// The texts of one language: every text the kiosk shows, speaks or prints, read from that language's catalog
/// (`catalogs/<tag>.json`, embedded in the binary at build time). Code names texts by key only; placeholders in
/// braces (`{count}`) are filled in by name.
///
/// A catalog missing a key, or holding one the code does not know, fails the catalog tests; at run time a missing
/// text falls back to English rather than showing a key.
public struct Catalog: Sendable {
    public let language: Language
    private let texts: [String: String]
    private let fallback: [String: String]

    /// The catalog of `language`.
    public static func of(_ language: Language) -> Catalog {
        Catalog(language: language, texts: loaded[language] ?? [:], fallback: loaded[.en] ?? [:])
    }

    /// The English catalog: the kiosk's fallback.
    public static let english = Catalog.of(.en)

    /// The text of `key`, with `{name}` placeholders replaced by `values[name]`.
    public func text(_ key: TextKey, _ values: [String: String] = [:]) -> String {
        fill(raw(key.rawValue), values)
    }

    public subscript(_ key: TextKey) -> String { text(key) }

    /// The form of `key` for `count` (`{count}` filled in), by the language's plural rule: French takes the singular
    /// for 0 and 1, the others for 1 only; a `.zero` form, where the catalog has one, is taken for 0.
    public func count(_ key: PluralKey, _ count: Int, _ values: [String: String] = [:]) -> String {
        var values = values
        values["count"] = String(count)
        let zero = key.rawValue + ".zero"
        if count == 0, let text = texts[zero] ?? fallback[zero] { return fill(text, values) }
        let one = count == 1 || (language == .fr && count == 0)
        return fill(raw(key.rawValue + (one ? ".one" : ".other")), values)
    }

    /// How the two buttons work, and that holding one speaks: the hint under every screen's choices.
    public var buttonHint: String { self[.buttonsHint] + " " + self[.speechHint] }

    /// Every key this catalog holds (for the catalog tests).
    public var keys: Set<String> { Set(texts.keys) }

    /// The raw text of `key` (placeholders not filled in), nil when this catalog lacks it.
    public func rawText(_ key: String) -> String? { texts[key] }

    private func raw(_ key: String) -> String { texts[key] ?? fallback[key] ?? "" }

    private func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = values[name] {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The catalogs, parsed once. A catalog that does not parse is empty (and fails the catalog tests).
    static let loaded: [Language: [String: String]] = {
        var catalogs = [Language: [String: String]]()
        for language in Language.allCases {
            catalogs[language] = (try? parse(source(of: language))) ?? [:]
        }
        return catalogs
    }()

    /// The embedded bytes of a language's catalog.
    static func source(of language: Language) -> [UInt8] {
        switch language {
        case .en: PackageResources.en_json
        case .de: PackageResources.de_json
        case .fr: PackageResources.fr_json
        case .it: PackageResources.it_json
        }
    }

    /// A catalog's texts: a JSON object of strings (duplicate keys refused by the parser).
    static func parse(_ bytes: [UInt8]) throws -> [String: String] {
        var parser = JSONParser(String(decoding: bytes, as: UTF8.self))
        guard case .object(let members) = try parser.document() else { throw CatalogError.notAnObject }
        var texts = [String: String]()
        for (key, value) in members {
            guard case .string(let text) = value else { throw CatalogError.notAString(key) }
            texts[key] = text
        }
        return texts
    }
}

/// Why a catalog could not be read.
enum CatalogError: Error, Equatable {
    case notAnObject
    case notAString(String)
}
