public import Foundation

/// The tunable rules of the check-in lifecycle.
public struct CheckInPolicy: Sendable, Equatable {
    /// A second tap within this time of the last registered tap does nothing ("already registered").
    public var debounce: TimeInterval
    /// Check-ins per card per UTC day (CWA used 20): blunts flooding a chosen venue with false warnings.
    public var dailyLimit: Int
    public var retention: RetentionPolicy

    public init(debounce: TimeInterval = 30, dailyLimit: Int = 20, retention: RetentionPolicy = .default) {
        self.debounce = debounce
        self.dailyLimit = dailyLimit
        self.retention = retention
    }

    public static let `default` = CheckInPolicy()
}
