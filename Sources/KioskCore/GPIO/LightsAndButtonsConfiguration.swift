/// The configuration of the kiosk's lights, buzzer and buttons: which GPIO line each is on (chip plus offset), the
/// button debounce, and the feedback patterns that replace the defaults.
///
/// JSON (the `lightsAndButtons` part of the kiosk configuration; see `board/config/kiosk.json`):
/// `{"outputs": {"green": {"chip": "gpiochip0", "offset": 17}, …}, "buttons": {"confirm": {"chip": "gpiochip0",
/// "offset": 5, "activeLow": true, "bias": "pullUp"}}, "debounceMilliseconds": 30, "patterns": {"accepted": …}}`.
public struct LightsAndButtonsConfiguration: Sendable, Codable, Equatable {
    public var outputs: [IndicatorOutput: GPIOPin]
    public var buttons: [ButtonRole: GPIOPin]
    public var debounceMilliseconds: Int
    /// Patterns that replace the defaults of `FeedbackTable.default`.
    public var patterns: [IndicatorPattern: FeedbackSequence]

    public init(
        outputs: [IndicatorOutput: GPIOPin] = [:], buttons: [ButtonRole: GPIOPin] = [:],
        debounceMilliseconds: Int = 30, patterns: [IndicatorPattern: FeedbackSequence] = [:]
    ) {
        self.outputs = outputs
        self.buttons = buttons
        self.debounceMilliseconds = debounceMilliseconds
        self.patterns = patterns
    }

    private enum CodingKeys: String, CodingKey { case outputs, buttons, debounceMilliseconds, patterns }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outputs = try container.decodeIfPresent([IndicatorOutput: GPIOPin].self, forKey: .outputs) ?? [:]
        buttons = try container.decodeIfPresent([ButtonRole: GPIOPin].self, forKey: .buttons) ?? [:]
        debounceMilliseconds = try container.decodeIfPresent(Int.self, forKey: .debounceMilliseconds) ?? 30
        patterns = try container.decodeIfPresent([IndicatorPattern: FeedbackSequence].self, forKey: .patterns) ?? [:]
    }

    /// The default feedback table with this configuration's patterns in place (each validated).
    public func feedbackTable() throws(FeedbackTableError) -> FeedbackTable {
        try FeedbackTable.default.overriding(with: patterns)
    }

    /// Problems a field worker should fix: two roles on one line, a debounce outside 1…500 ms.
    public var problems: [String] {
        var problems: [String] = []
        var seen: [GPIOPin: String] = [:]
        let roles = outputs.map { ($0.key.rawValue, $0.value) } + buttons.map { ($0.key.rawValue, $0.value) }
        for (role, pin) in roles.sorted(by: { $0.0 < $1.0 }) {
            let line = GPIOPin(chip: pin.chip, offset: pin.offset)
            if let other = seen[line] {
                problems.append("'\(other)' and '\(role)' are both on \(line)")
            } else {
                seen[line] = role
            }
        }
        if !(1...500).contains(debounceMilliseconds) {
            problems.append("the button debounce must be 1 to 500 ms")
        }
        return problems
    }
}

extension IndicatorOutput: CodingKeyRepresentable {}
extension ButtonRole: CodingKeyRepresentable {}
extension IndicatorPattern: CodingKeyRepresentable {}
