internal import Foundation
internal import Synchronization

/// The kiosk's operational counters and gauges, rendered in the Prometheus text exposition format for the loopback
/// metrics endpoint. Label values are fixed vocabularies (reasons, device names): never personal or venue data.
public final class MetricsRegistry: Sendable {
    public enum Kind: String, Sendable { case counter, gauge }

    private struct Family {
        var kind: Kind
        var help: String
        var values: [String: Double] = [:]  // rendered label set → value
    }

    private let families = Mutex<[String: Family]>([:])

    public init() {}

    /// Declares a metric so that it appears (at zero) before its first change.
    public func declare(_ name: String, _ kind: Kind, help: String, labels: [[String: String]] = [[:]]) {
        families.withLock { families in
            var family = families[name] ?? Family(kind: kind, help: help)
            for set in labels where family.values[Self.render(set)] == nil { family.values[Self.render(set)] = 0 }
            families[name] = family
        }
    }

    /// Adds `amount` to a counter.
    public func increment(_ name: String, labels: [String: String] = [:], by amount: Double = 1) {
        families.withLock { families in
            var family = families[name] ?? Family(kind: .counter, help: name)
            family.values[Self.render(labels), default: 0] += amount
            families[name] = family
        }
    }

    /// Sets a gauge.
    public func set(_ name: String, labels: [String: String] = [:], to value: Double) {
        families.withLock { families in
            var family = families[name] ?? Family(kind: .gauge, help: name)
            family.values[Self.render(labels)] = value
            families[name] = family
        }
    }

    /// The current value (0 when never set), for `kiosk status` and tests.
    public func value(_ name: String, labels: [String: String] = [:]) -> Double {
        families.withLock { $0[name]?.values[Self.render(labels)] ?? 0 }
    }

    /// Every value of a family by its label set, e.g. refusals by reason.
    public func values(_ name: String) -> [String: Double] {
        families.withLock { $0[name]?.values ?? [:] }
    }

    /// The Prometheus text format (version 0.0.4), families and series in a stable order.
    public func exposition() -> String {
        let snapshot = families.withLock { $0 }
        var text = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind.rawValue)\n"
            for labels in family.values.keys.sorted() {
                text += "\(name)\(labels) \(Self.format(family.values[labels]!))\n"
            }
        }
        return text
    }

    private static func render(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.keys.sorted().map { key in
            let value = labels[key]!
                .replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\(key)=\"\(value)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
