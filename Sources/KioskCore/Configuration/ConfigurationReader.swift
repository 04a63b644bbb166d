/// Collects the problems found while reading one configuration document.
final class ProblemLog {
    private(set) var problems: [ConfigurationProblem] = []

    func add(_ path: String, _ message: String) {
        problems.append(ConfigurationProblem(path: path, message: message))
    }
}

/// Reads the members of one JSON object at `path`: each accessor returns the value or the default, records a problem
/// when the value has the wrong type or range, and remembers which keys were read, so that `finish()` can report
/// the rest as unknown (a typo must not be silently ignored).
struct ObjectReader {
    let path: String
    let members: [String: JSONValue]
    let log: ProblemLog
    private var known: [String] = []

    init(path: String, members: [String: JSONValue], log: ProblemLog) {
        self.path = path
        self.members = members
        self.log = log
    }

    /// The object at `path`, or nil (with a problem) when `value` is not an object.
    init?(path: String, value: JSONValue, log: ProblemLog) {
        guard case .object(let members) = value else {
            log.add(path, "expected an object, got \(value.typeName)")
            return nil
        }
        self.init(path: path, members: members, log: log)
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The raw value of `key` (nil when absent), marking the key as known.
    mutating func value(_ key: String) -> JSONValue? {
        known.append(key)
        return members[key]
    }

    mutating func string(_ key: String, default fallback: String) -> String {
        switch value(key) {
        case nil: return fallback
        case .string(let text)?: return text
        case let other?:
            log.add(keyPath(key), "expected a string, got \(other.typeName)")
            return fallback
        }
    }

    /// A string that may be `null` (meaning "none").
    mutating func optionalString(_ key: String, default fallback: String?) -> String? {
        switch value(key) {
        case nil: return fallback
        case .null?: return nil
        case .string(let text)?: return text
        case let other?:
            log.add(keyPath(key), "expected a string or null, got \(other.typeName)")
            return fallback
        }
    }

    mutating func integer(_ key: String, default fallback: Int, range: ClosedRange<Int>, unit: String = "") -> Int {
        let number: Int
        switch value(key) {
        case nil: return fallback
        case .integer(let value)?:
            guard let exact = Int(exactly: value) else {
                number = Int.max
                break
            }
            number = exact
        case .number(let value)?:
            log.add(keyPath(key), "expected a whole number, got \(value)")
            return fallback
        case let other?:
            log.add(keyPath(key), "expected a whole number, got \(other.typeName)")
            return fallback
        }
        guard range.contains(number) else {
            let suffix = unit.isEmpty ? "" : " \(unit)"
            log.add(keyPath(key), "must be \(range.lowerBound) to \(range.upperBound)\(suffix), got \(number)")
            return fallback
        }
        return number
    }

    mutating func bool(_ key: String, default fallback: Bool) -> Bool {
        switch value(key) {
        case nil: return fallback
        case .bool(let value)?: return value
        case let other?:
            log.add(keyPath(key), "expected true or false, got \(other.typeName)")
            return fallback
        }
    }

    /// One of `choices` (by raw value).
    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, default fallback: T) -> T
    where T.RawValue == String {
        switch value(key) {
        case nil: return fallback
        case .string(let text)?:
            if let value = T(rawValue: text) { return value }
            log.add(
                keyPath(key),
                "expected one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \(JSONValue.quoted(text))"
            )
            return fallback
        case let other?:
            log.add(keyPath(key), "expected a string, got \(other.typeName)")
            return fallback
        }
    }

    /// The object at `key`: `.absent`, `.null`, or a reader for it (nil when it is not an object; reported).
    mutating func section(_ key: String) -> Section {
        switch value(key) {
        case nil: return .absent
        case .null?: return .null
        case let other?:
            guard let reader = ObjectReader(path: keyPath(key), value: other, log: log) else { return .invalid }
            return .present(reader)
        }
    }

    enum Section {
        case absent, null, invalid
        case present(ObjectReader)
    }

    /// Reports every member that no accessor asked for, with the closest known key when one is near.
    func finish() {
        var seen: Set<String> = []
        let known = self.known.filter { seen.insert($0).inserted }
        for key in members.keys.sorted() where !known.contains(key) {
            var message = "unknown key"
            if let near = Self.nearest(to: key, in: known) {
                message += " (did you mean \"\(near)\"?)"
            } else {
                message += " (known here: \(known.joined(separator: ", ")))"
            }
            log.add(keyPath(key), message)
        }
    }

    /// The known key nearest to `key` (case-insensitive): within edit distance 2 for keys of 6 characters or more,
    /// 1 for shorter ones (two edits turn any two-letter key into any other).
    static func nearest(to key: String, in known: [String]) -> String? {
        let lowered = Array(key.lowercased())
        let limit = lowered.count >= 6 ? 2 : 1
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(lowered, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.key
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
