import Foundation

extension KioskConfiguration {
    /// The type an overridable key takes, which says how an environment variable's text becomes JSON.
    public enum ValueKind: Sendable, Equatable {
        case string
        /// A string, or none: an empty variable means `null`.
        case optionalString
        case integer
        case bool
    }

    /// A key that an environment variable can set.
    public struct OverridableKey: Sendable, Equatable {
        /// `nil` for a top-level key, else the section (`nfc`).
        public var section: String?
        public var key: String
        public var kind: ValueKind

        /// `nfc.connection`.
        public var path: String { section.map { "\($0).\(key)" } ?? key }

        /// `KIOSK_NFC_CONNECTION`: `KIOSK_`, then the section and the key with each word boundary of their
        /// camelCase names as `_`, in capitals (`checkIns.dailyLimit` → `KIOSK_CHECK_INS_DAILY_LIMIT`,
        /// `warnings.baseURL` → `KIOSK_WARNINGS_BASE_URL`).
        public var variable: String {
            "KIOSK_"
                + ([section, key].compactMap { $0 }.map(KioskConfiguration.screamingSnakeCase).joined(separator: "_"))
        }
    }

    /// Every key an environment variable can set: all the single values of the top level and of each section
    /// (pins and feedback patterns are set in the file only).
    public static let overridableKeys: [OverridableKey] = {
        func keys(_ section: String?, _ entries: [(String, ValueKind)]) -> [OverridableKey] {
            entries.map { OverridableKey(section: section, key: $0.0, kind: $0.1) }
        }
        return keys(nil, [("stateDirectory", .string), ("logLevel", .string)])
            + keys(
                "nfc",
                [
                    ("connection", .string), ("pollTimeoutMilliseconds", .integer),
                    ("removalCheckMilliseconds", .integer),
                ])
            + keys(
                "camera",
                [("device", .string), ("width", .integer), ("height", .integer), ("framesUntilGone", .integer)])
            + keys("lightsAndButtons", [("debounceMilliseconds", .integer)])
            + keys(
                "receiptPrinter",
                [
                    ("path", .string), ("paper", .string), ("codePage", .string), ("bidirectional", .bool),
                    ("baudRate", .integer), ("writeTimeoutMilliseconds", .integer),
                ])
            + keys(
                "checkIns",
                [
                    ("dailyLimit", .integer), ("debounceSeconds", .integer), ("defaultStayMinutes", .integer),
                    ("retentionDays", .integer), ("sessionInactivitySeconds", .integer),
                ])
            + keys("staff", [("modeTimeoutSeconds", .integer), ("codeCredential", .optionalString)])
            + keys("venue", [("code", .optionalString), ("timeZone", .optionalString)])
            + keys(
                "reports",
                [
                    ("exportDirectory", .optionalString), ("uploadURL", .optionalString),
                    ("uploadTimeoutSeconds", .integer), ("uploadTokenCredential", .optionalString),
                ])
            + keys(
                "warnings",
                [
                    ("baseURL", .optionalString), ("cwaBaseURL", .optionalString), ("syncIntervalMinutes", .integer),
                    ("maxPackageBytes", .integer), ("maxInflatedBytes", .integer),
                    ("publicKey", .string), ("cwaPublicKey", .string), ("message", .string), ("keepRegion", .bool),
                ])
            + keys("language", [("default", .string)])
            + keys("clock", [("source", .string)])
            + keys("metrics", [("listen", .optionalString), ("allowNonLoopback", .bool)])
            + keys("web", [("listen", .optionalString), ("allowNonLoopback", .bool)])
            + keys(
                "screen",
                [
                    ("widthPixels", .integer), ("heightPixels", .integer), ("diagonalMillimetres", .integer),
                    ("viewingDistanceCentimetres", .integer), ("readerSide", .string), ("cameraSide", .string),
                ])
            + keys("speech", [("device", .string), ("volume", .integer), ("rate", .integer)])
            + keys(
                "region", [("name", .string), ("module", .string), ("token", .string), ("pinCredential", .string)])
    }()

    /// The sections, in the documented order.
    public static let sections = [
        "nfc", "camera", "lightsAndButtons", "receiptPrinter", "checkIns", "staff", "venue",
        "reports", "warnings", "language", "clock", "metrics", "web", "screen", "speech", "region",
    ]

    /// `checkIns` → `CHECK_INS`, `baseURL` → `BASE_URL`.
    static func screamingSnakeCase(_ name: String) -> String {
        var out = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { out.append("_") }
            out.append(contentsOf: character.uppercased())
            previous = character
        }
        return out
    }

    /// Writes the values of `environment`'s `KIOSK_…` variables into `members` (creating a section that is absent
    /// or `null`), and reports variables that look like configuration (`KIOSK_<SECTION>_…`) but name no key.
    /// Returns the key paths set, each with its variable, so that later problems can name the variable too.
    static func applyEnvironment(
        _ environment: [String: String], to members: inout [String: JSONValue], log: ProblemLog
    ) -> [String: String] {
        var overridden: [String: String] = [:]
        let byVariable = Dictionary(uniqueKeysWithValues: overridableKeys.map { ($0.variable, $0) })
        for (variable, text) in environment.sorted(by: { $0.key < $1.key }) where variable.hasPrefix("KIOSK_") {
            guard let key = byVariable[variable] else {
                if let section = sections.first(where: { variable.hasPrefix("KIOSK_\(screamingSnakeCase($0))_") }) {
                    let known = overridableKeys.filter { $0.section == section }.map(\.variable)
                    log.add(variable, "not a configuration variable (for \(section): \(known.joined(separator: ", ")))")
                }
                continue
            }
            let value: JSONValue
            switch key.kind {
            case .string: value = .string(text)
            case .optionalString: value = text.isEmpty ? .null : .string(text)
            case .integer:
                guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                    log.add("\(key.path) (from \(variable))", "expected a whole number, got \(JSONValue.quoted(text))")
                    continue
                }
                value = .integer(number)
            case .bool:
                switch text.lowercased() {
                case "true", "yes", "1": value = .bool(true)
                case "false", "no", "0": value = .bool(false)
                default:
                    log.add("\(key.path) (from \(variable))", "expected true or false, got \(JSONValue.quoted(text))")
                    continue
                }
            }
            overridden[key.path] = variable
            guard let section = key.section else {
                members[key.key] = value
                continue
            }
            switch members[section] {
            case .object(var sectionMembers)?:
                sectionMembers[key.key] = value
                members[section] = .object(sectionMembers)
            case nil, .null?:
                members[section] = .object([key.key: value])
            case _?:
                // Not an object: reading the section reports that.
                break
            }
        }
        return overridden
    }
}
