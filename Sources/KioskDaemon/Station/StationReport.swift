public import KioskCore

/// What handling one event did, in order: for the control socket, the local screen and tests. Holds no card
/// secret, no venue identifier and no stay.
public struct StationReport: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        /// A tap was served with this outcome (stored durably before anything below it).
        case tapRecorded(TapOutcome)
        case shown(StationMessage)
        case indicated(IndicatorPattern)
        case printed(PrintJob.Kind)
        case printFailed(PrintJob.Kind, StationFailure)
        case persisted
        case persistFailed(StationFailure)
        case cardEnrolled
        case enrolmentFailed(StationFailure)
        case storeWiped
        case wipeFailed(StationFailure)
        case expired(Int)
        case expiryFailed(StationFailure)
        case warningAcknowledged
        /// The holder's session asked the store for something (`open`, `deleteStay`, …: the request's name only).
        case sessionStep(String)
        /// What the kiosk said (or that it stopped speaking), decided from the screen.
        case spoke(SpeechCue)
    }

    public var steps: [Step] = []

    public init(steps: [Step] = []) { self.steps = steps }

    /// The messages shown, in order.
    public var shown: [StationMessage] {
        steps.compactMap { if case .shown(let message) = $0 { message } else { nil } }
    }

    /// The patterns played, in order.
    public var indicated: [IndicatorPattern] {
        steps.compactMap { if case .indicated(let pattern) = $0 { pattern } else { nil } }
    }

    /// The receipts printed, in order.
    public var printed: [PrintJob.Kind] {
        steps.compactMap { if case .printed(let kind) = $0 { kind } else { nil } }
    }
}

/// Counters for metrics. Counts only.
public struct StationCounters: Sendable, Equatable {
    public var taps = 0
    public var checkIns = 0
    public var checkOuts = 0
    public var alreadyRegistered = 0
    /// Refused taps and codes by reason (`clockNotSynchronized`, `storeUnavailable`, `notACheckInCode`, …).
    public var refusals: [String: Int] = [:]
    public var expiryRuns = 0
    public var expiredStays = 0
    /// Receipts printed and failed, warning slips left out: a count that rose at a visitor's tap would say a warning
    /// was printed for them.
    public var prints = 0
    public var printFailures = 0
    public var enrolments = 0

    public init() {}
}
