/// One thing wrong with the kiosk's configuration, named by the full path of the key (`nfc.connection`), the
/// environment variable or the credential it came from. Start-up reports every problem at once, so a field worker
/// fixes a file in one go.
///
/// Messages quote configuration values (a device path, a URL) but never a secret or a venue code.
public struct ConfigurationProblem: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `nfc.connection`, `lightsAndButtons.outputs.green.offset`, `credential staff-code`, or empty for the whole
    /// file.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, the form every problem is printed in.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Why the configuration could not be used: every problem found.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return "The configuration has \(count):\n" + problems.map { "  " + $0.description }.joined(separator: "\n")
    }
}
