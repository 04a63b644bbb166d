public import Foundation

extension PresenceTracingParameters {
    /// The risk criteria a health authority publishes in its signed CKPW/1 index (`presenceTracingParameters`,
    /// docs/PROTOCOL.md §4): transmission risk values for levels 1…8, the two mappings of normalized time to risk
    /// levels, and the age filter. They govern matching at the kiosk; report preparation keeps CWA's values (the
    /// reports a kiosk prepares are read by others, whatever authority they follow).
    public struct Published: Codable, Equatable, Sendable {
        /// The values for levels 1 to 8, in order (0: a level that never warns).
        public var transmissionRiskValues: [Double]
        public var normalizedTimePerCheckInToRiskLevel: [PublishedRange]
        public var normalizedTimePerDayToRiskLevel: [PublishedRange]
        public var maxCheckInAgeInDays: Int

        public init(
            transmissionRiskValues: [Double], normalizedTimePerCheckInToRiskLevel: [PublishedRange],
            normalizedTimePerDayToRiskLevel: [PublishedRange], maxCheckInAgeInDays: Int
        ) {
            self.transmissionRiskValues = transmissionRiskValues
            self.normalizedTimePerCheckInToRiskLevel = normalizedTimePerCheckInToRiskLevel
            self.normalizedTimePerDayToRiskLevel = normalizedTimePerDayToRiskLevel
            self.maxCheckInAgeInDays = maxCheckInAgeInDays
        }
    }

    /// `{"min": 0, "max": 10, "minExclusive": true, "maxExclusive": true, "riskLevel": 1}` (the flags default to
    /// false).
    public struct PublishedRange: Codable, Equatable, Sendable {
        public var min: Double
        public var max: Double
        public var minExclusive: Bool?
        public var maxExclusive: Bool?
        public var riskLevel: Int

        public init(min: Double, max: Double, minExclusive: Bool? = nil, maxExclusive: Bool? = nil, riskLevel: Int) {
            self.min = min
            self.max = max
            self.minExclusive = minExclusive
            self.maxExclusive = maxExclusive
            self.riskLevel = riskLevel
        }
    }

    /// These parameters with the published risk criteria, once each is checked: eight finite values from 0 to 10,
    /// one to sixteen ranges per mapping with finite ends in order and a level of 1 (low) or 2 (high), and an age
    /// of 1 to 14 days.
    public func applying(_ published: Published) throws(PublishedParametersError) -> PresenceTracingParameters {
        guard published.transmissionRiskValues.count == 8 else {
            throw .invalid("transmissionRiskValues must hold 8 values (levels 1 to 8)")
        }
        guard published.transmissionRiskValues.allSatisfy({ $0.isFinite && (0...10).contains($0) }) else {
            throw .invalid("transmissionRiskValues must be numbers from 0 to 10")
        }
        let perCheckIn = try Self.ranges(
            published.normalizedTimePerCheckInToRiskLevel, named: "normalizedTimePerCheckInToRiskLevel")
        let perDay = try Self.ranges(
            published.normalizedTimePerDayToRiskLevel, named: "normalizedTimePerDayToRiskLevel")
        guard (1...14).contains(published.maxCheckInAgeInDays) else {
            throw .invalid("maxCheckInAgeInDays must be 1 to 14")
        }
        var parameters = self
        parameters.transmissionRiskValues = Dictionary(
            uniqueKeysWithValues: published.transmissionRiskValues.enumerated().map {
                (UInt8($0.offset + 1), $0.element)
            })
        parameters.normalizedTimePerCheckInToRiskLevel = perCheckIn
        parameters.normalizedTimePerDayToRiskLevel = perDay
        parameters.maxCheckInAgeInDays = published.maxCheckInAgeInDays
        return parameters
    }

    private static func ranges(_ published: [PublishedRange], named name: String) throws(PublishedParametersError)
        -> [RiskLevelRange]
    {
        guard (1...16).contains(published.count) else { throw .invalid("\(name) must hold 1 to 16 ranges") }
        var ranges = [RiskLevelRange]()
        for range in published {
            guard range.min.isFinite, range.max.isFinite, range.min <= range.max else {
                throw .invalid("\(name): a range needs finite ends, min not above max")
            }
            guard range.riskLevel == 1 || range.riskLevel == 2 else {
                throw .invalid("\(name): riskLevel must be 1 (low) or 2 (high)")
            }
            ranges.append(
                RiskLevelRange(
                    range: MinuteRange(
                        min: range.min, max: range.max, minExclusive: range.minExclusive ?? false,
                        maxExclusive: range.maxExclusive ?? false), riskLevel: range.riskLevel))
        }
        return ranges
    }
}

/// Why published presence-tracing parameters were refused (the previous ones stay in force).
public enum PublishedParametersError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let reason): reason
        }
    }
}
