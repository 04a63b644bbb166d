/// A GPIO line as configuration names it: a chip and a line offset on that chip, never a global sysfs number (those
/// change between kernels and boards).
///
/// `chip` is a character-device path (`/dev/gpiochip0`), a chip name (`gpiochip0`) or `label:` plus the chip's label
/// (`label:pinctrl-bcm2711`), which stays the same when chips are numbered in a different order.
public struct GPIOPin: Sendable, Codable, Equatable, Hashable, CustomStringConvertible {
    public var chip: String
    public var offset: UInt32
    /// The line is active when low (a LED wired to 3.3 V, a button pulling the line to ground).
    public var activeLow: Bool
    /// Pull resistor for inputs.
    public var bias: GPIOBias

    public init(chip: String, offset: UInt32, activeLow: Bool = false, bias: GPIOBias = .asIs) {
        self.chip = chip
        self.offset = offset
        self.activeLow = activeLow
        self.bias = bias
    }

    private enum CodingKeys: String, CodingKey { case chip, offset, activeLow, bias }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        chip = try container.decode(String.self, forKey: .chip)
        offset = try container.decode(UInt32.self, forKey: .offset)
        activeLow = try container.decodeIfPresent(Bool.self, forKey: .activeLow) ?? false
        bias = try container.decodeIfPresent(GPIOBias.self, forKey: .bias) ?? .asIs
    }

    public var description: String { "\(chip) line \(offset)" }
}

/// The pull resistor a line is requested with.
public enum GPIOBias: String, Sendable, Codable, Hashable, CaseIterable {
    /// Leave the line's bias as the board configured it.
    case asIs
    case disabled
    case pullUp
    case pullDown
}

/// The kiosk's two buttons.
public enum ButtonRole: String, Sendable, Codable, CaseIterable, Hashable {
    /// "Yes" / continue.
    case confirm
    /// "No" / back.
    case cancel
}

/// A debounced button change.
public struct ButtonEvent: Sendable, Equatable, Hashable {
    public var button: ButtonRole
    public var pressed: Bool

    public init(button: ButtonRole, pressed: Bool) {
        self.button = button
        self.pressed = pressed
    }
}
