/// What the kiosk's screen shows, decided by the station alone: a title, text, an optional list, the choices and an
/// optional keypad. The page draws it, the two buttons step through its choices and choose, speech reads it; none of
/// them keeps state of its own.
///
/// Choices are named by `id`: the page posts the id, `kiosk simulate choose ID` names it, and the two buttons choose
/// the one `selected` names (one button moves `selected` to the next choice, the other chooses it). A screen whose
/// question must not lean towards an answer (consent, permission) starts with nothing selected.
public struct ScreenModel: Sendable, Equatable, Codable {
    /// One choice; every choice is drawn alike (same size, colour and font): only its label differs.
    public struct Choice: Sendable, Equatable, Codable {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }
    }

    /// A keypad for a PIN (masked: only how many digits were typed is shown or spoken) or a verification code.
    public struct Keypad: Sendable, Equatable, Codable {
        public enum Purpose: String, Sendable, Equatable, Codable {
            case pin, verificationCode
        }

        public var purpose: Purpose
        /// What has been typed, as shown: "••" for a PIN, the characters for a code.
        public var shown: String
        /// The keys the keypad offers, in order (also offered as choices `key:<k>`).
        public var keys: [String]

        public init(purpose: Purpose, shown: String, keys: [String]) {
            self.purpose = purpose
            self.shown = shown
            self.keys = keys
        }
    }

    /// Where a card is tapped and a printed code is shown, seen from the visitor (the idle screen): the page draws a
    /// card and a code, each with an arrow to its side; the screen's lines say the same in words.
    public struct Guide: Sendable, Equatable, Codable {
        public var reader: ScreenGeometry.Side
        public var camera: ScreenGeometry.Side

        public init(reader: ScreenGeometry.Side, camera: ScreenGeometry.Side) {
            self.reader = reader
            self.camera = camera
        }
    }

    /// `idle`, or a message's kind: `info`, `success`, `warning`, `error`, `prompt`.
    public var kind: String
    public var title: String
    /// Paragraphs, in reading order.
    public var lines: [String]
    /// A list to read (the holder's stays, a preview), in order.
    public var items: [String]
    public var choices: [Choice]
    /// The choice the buttons would choose now (an index into `choices`): the first one unless the screen asks a
    /// question that must not lean towards an answer (then nil until the holder moves to one).
    public var selected: Int?
    public var keypad: Keypad?
    /// True inside a card holder's session: what it shows belongs to the person with the card only.
    public var isPrivate: Bool
    /// The language of the texts (BCP 47: `en`, `de`, `fr`, `it`).
    public var language: String
    /// How the two buttons work, in one line (shown under the choices, spoken after them).
    public var buttonHint: String
    /// The idle screen's pictures of where to tap and show a code; nil elsewhere.
    public var guide: Guide?

    public init(
        kind: String, title: String, lines: [String] = [], items: [String] = [], choices: [Choice] = [],
        selected: Int? = 0, keypad: Keypad? = nil, isPrivate: Bool = false, language: String = "en",
        buttonHint: String = ""
    ) {
        self.kind = kind
        self.title = title
        self.lines = lines
        self.items = items
        self.choices = choices
        self.selected = choices.isEmpty ? nil : selected
        self.keypad = keypad
        self.isPrivate = isPrivate
        self.language = language
        self.buttonHint = buttonHint
    }

    /// The catalog of the screen's language (English for a tag the kiosk does not speak).
    public var catalog: Catalog { Catalog.of(Language(rawValue: language) ?? .fallback) }

    /// The id of the selected choice, if any.
    public var selectedID: String? {
        guard let selected, choices.indices.contains(selected) else { return nil }
        return choices[selected].id
    }

    /// Whether `id` is one of this screen's choices.
    public func offers(_ id: String) -> Bool { choices.contains { $0.id == id } }

    /// The screen with the selection moved to the next choice (from none to the first; from the last back to the
    /// first).
    public func selectingNext() -> ScreenModel {
        var next = self
        guard !choices.isEmpty else { return next }
        next.selected = selected.map { ($0 + 1) % choices.count } ?? 0
        return next
    }

    /// Everything the screen says, in reading order: title, lines, items, keypad, choices (the selected one named),
    /// the button hint. What speech reads and what a transcript compares against.
    public var readingOrder: [String] {
        var parts = [title] + lines + items
        if let keypad { parts.append(keypad.shown) }
        parts += choices.map(\.label)
        if !buttonHint.isEmpty { parts.append(buttonHint) }
        return parts.filter { !$0.isEmpty }
    }
}

/// The physical buttons: one moves to the next choice, the other chooses the selected one.
public enum NavigationButton: String, Sendable, Equatable, Codable, CaseIterable {
    case next
    case choose
}
