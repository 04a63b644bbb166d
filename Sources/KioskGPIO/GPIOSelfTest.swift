public import KioskCore

/// The result of checking one configured line, for `kiosk selftest`.
public struct GPIOLineCheck: Sendable, Equatable {
    /// The role: `green`, `buzzer`, `confirm`, …
    public var role: String
    public var pin: GPIOPin
    /// nil when the line works; otherwise what failed and what to try.
    public var problem: String?

    public var passed: Bool { problem == nil }
}

/// Checks every configured light, buzzer and button line: each can be requested, outputs can be driven on and off
/// (and read back), buttons can be requested for edge events and read. Lines are released again afterwards; outputs
/// are left off.
public enum GPIOSelfTest {
    public static func run(_ configuration: LightsAndButtonsConfiguration, consumer: String = "kiosk-selftest")
        -> [GPIOLineCheck]
    {
        var results: [GPIOLineCheck] = []
        for (output, pin) in configuration.outputs.sorted(by: { $0.key < $1.key }) {
            results.append(
                GPIOLineCheck(role: output.rawValue, pin: pin, problem: checkOutput(pin, consumer: consumer)))
        }
        for role in ButtonRole.allCases {
            guard let pin = configuration.buttons[role] else { continue }
            results.append(GPIOLineCheck(role: role.rawValue, pin: pin, problem: checkButton(pin, consumer: consumer)))
        }
        return results
    }

    private static func checkOutput(_ pin: GPIOPin, consumer: String) -> String? {
        do {
            let line = try OutputLine(pin, consumer: consumer)
            for on in [true, false] {
                try line.set(on)
                guard try line.value() == on else { return "\(pin) does not keep the value driven on it" }
            }
            return nil
        } catch {
            return error.description
        }
    }

    private static func checkButton(_ pin: GPIOPin, consumer: String) -> String? {
        do {
            let line = try InputLine(pin, consumer: consumer)
            _ = try line.value()
            return nil
        } catch {
            return error.description
        }
    }
}
