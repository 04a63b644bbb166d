/// The tunable numbers of report preparation and risk calculation. The defaults are Corona-Warn-App's production
/// values (its `presence-tracing-parameters.yaml`); the risk criteria may come, signed, from the health authority
/// with its warnings (`Published`, docs/PROTOCOL.md §4); the kiosk's configuration has no setting for them. Risk
/// follows CWA's algorithm whatever the values (`WarningMatcher.riskLevels`).
public struct PresenceTracingParameters: Codable, Equatable, Sendable {
    /// Stays whose length in minutes falls in one of these ranges are not reported (CWA: under 10 minutes).
    public var durationFilters: [MinuteRange]
    /// Added after a stay ends, since aerosols linger: `slope × minutes + intercept` for the range the stay's length
    /// falls in (CWA: as long as the stay, at most 30 minutes).
    public var aerosolDecayFunctions: [LinearFunction]
    /// Transmission risk level (1…8) → transmission risk value; a level with value 0 is not reported.
    public var transmissionRiskValues: [UInt8: Double]
    /// Normalized time (TRV × minutes) of one stay → risk level (1 low, 2 high).
    public var normalizedTimePerCheckInToRiskLevel: [RiskLevelRange]
    /// Normalized time summed over one day → risk level.
    public var normalizedTimePerDayToRiskLevel: [RiskLevelRange]
    /// Warnings about stays older than this many days are ignored.
    public var maxCheckInAgeInDays: Int

    public init(
        durationFilters: [MinuteRange], aerosolDecayFunctions: [LinearFunction],
        transmissionRiskValues: [UInt8: Double], normalizedTimePerCheckInToRiskLevel: [RiskLevelRange],
        normalizedTimePerDayToRiskLevel: [RiskLevelRange], maxCheckInAgeInDays: Int
    ) {
        self.durationFilters = durationFilters
        self.aerosolDecayFunctions = aerosolDecayFunctions
        self.transmissionRiskValues = transmissionRiskValues
        self.normalizedTimePerCheckInToRiskLevel = normalizedTimePerCheckInToRiskLevel
        self.normalizedTimePerDayToRiskLevel = normalizedTimePerDayToRiskLevel
        self.maxCheckInAgeInDays = maxCheckInAgeInDays
    }

    /// Corona-Warn-App's production values.
    public static let cwaProduction = PresenceTracingParameters(
        durationFilters: [MinuteRange(min: 0, max: 10, maxExclusive: true)],
        aerosolDecayFunctions: [
            LinearFunction(range: MinuteRange(min: 0, max: 30), slope: 1, intercept: 0),
            LinearFunction(range: MinuteRange(min: 30, max: 999_999, minExclusive: true), slope: 0, intercept: 30),
        ],
        transmissionRiskValues: [1: 0, 2: 0, 3: 0.6, 4: 0.8, 5: 1, 6: 1.2, 7: 1.4, 8: 1.6],
        normalizedTimePerCheckInToRiskLevel: [
            RiskLevelRange(range: MinuteRange(min: 0, max: 10, minExclusive: true, maxExclusive: true), riskLevel: 1),
            RiskLevelRange(range: MinuteRange(min: 10, max: 999_999), riskLevel: 2),
        ],
        normalizedTimePerDayToRiskLevel: [
            RiskLevelRange(range: MinuteRange(min: 0, max: 10, minExclusive: true, maxExclusive: true), riskLevel: 1),
            RiskLevelRange(range: MinuteRange(min: 10, max: 999_999), riskLevel: 2),
        ],
        maxCheckInAgeInDays: 10
    )

    /// The transmission risk value of `level`, 0 when unmapped.
    public func transmissionRiskValue(for level: UInt8) -> Double { transmissionRiskValues[level] ?? 0 }
}

/// A range of minutes (or of normalized time) with optionally exclusive ends.
public struct MinuteRange: Codable, Equatable, Sendable {
    public var min: Double
    public var max: Double
    public var minExclusive: Bool
    public var maxExclusive: Bool

    public init(min: Double, max: Double, minExclusive: Bool = false, maxExclusive: Bool = false) {
        self.min = min
        self.max = max
        self.minExclusive = minExclusive
        self.maxExclusive = maxExclusive
    }

    public func contains(_ value: Double) -> Bool {
        let aboveMin = minExclusive ? value > min : value >= min
        let belowMax = maxExclusive ? value < max : value <= max
        return aboveMin && belowMax
    }
}

/// `slope × minutes + intercept` for stays whose length falls in `range`.
public struct LinearFunction: Codable, Equatable, Sendable {
    public var range: MinuteRange
    public var slope: Double
    public var intercept: Double

    public init(range: MinuteRange, slope: Double, intercept: Double) {
        self.range = range
        self.slope = slope
        self.intercept = intercept
    }
}

/// A risk level for values in `range`.
public struct RiskLevelRange: Codable, Equatable, Sendable {
    public var range: MinuteRange
    public var riskLevel: Int

    public init(range: MinuteRange, riskLevel: Int) {
        self.range = range
        self.riskLevel = riskLevel
    }
}
