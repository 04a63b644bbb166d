/// What the kiosk shows with its lights and buzzer: a port, so the daemon can drive GPIO lines on a board and a
/// recording fake in tests.
///
/// `show(_:)` starts the patterns (one after the other: a check-in's light, then a warning's) and returns at once:
/// they play beside the caller, never inside the event the station has in hand (a pattern lasts about 1.5 s; the next
/// tap, button or tick must not wait for it). The steps follow in order and the last pattern's `hold` outputs stay on
/// after it. A later `show(_:)` replaces patterns still playing or still to come: none of their remaining steps reach
/// the outputs. `clear()` stops what plays, waits until it has stopped and turns every light and the buzzer off, as on
/// shutdown.
public protocol Indicator: Sendable {
    /// Starts `patterns` one after the other as the feedback table describes them (`FeedbackTable.timeline(for:)`),
    /// replacing what still plays; returns without waiting for them to play out. Without `sound`, the buzzer stays
    /// silent and only the lights play (the kiosk is speaking: nothing may sound over speech).
    func show(_ patterns: [IndicatorPattern], sound: Bool) async

    /// Stops what is still playing, then turns every output off.
    func clear() async
}

extension Indicator {
    /// Starts one pattern, replacing what still plays.
    public func show(_ pattern: IndicatorPattern) async {
        await show([pattern], sound: true)
    }

    /// Starts `patterns`, buzzer included, replacing what still plays.
    public func show(_ patterns: [IndicatorPattern]) async {
        await show(patterns, sound: true)
    }
}

/// The situations the kiosk signals with light and sound. What each looks and sounds like is data (`FeedbackTable`).
public enum IndicatorPattern: String, Sendable, Codable, CaseIterable, Hashable {
    /// A check-in was stored.
    case accepted
    /// A check-out was stored.
    case checkedOut
    /// The card or code was refused (not a kiosk card, not a check-in code, limit reached).
    case refused
    /// The visitor has a pending warning: look at the screen or the printed slip.
    case warningPending
    /// Something on the kiosk failed (a device, the store); staff should look.
    case error
    /// The system clock is not synchronized yet, so no check-in can be recorded.
    case clockNotSet
    /// A step that times out is about to (the screen says so and offers more time): a tone beside the words.
    case timeRunningOut

    /// The kiosk did not do what was asked: refused, failed, or could not record for want of a clock. What a script
    /// driving a simulated kiosk hears as "refused or failed" (exit status 1).
    public var meansRefusal: Bool {
        switch self {
        case .refused, .error, .clockNotSet: true
        case .accepted, .checkedOut, .warningPending, .timeRunningOut: false
        }
    }
}

/// One light or the buzzer, by role. Which GPIO line each is wired to is configuration (chip plus line offset).
public enum IndicatorOutput: String, Sendable, Codable, CaseIterable, Hashable, Comparable {
    case green, red, amber, buzzer

    public static func < (lhs: IndicatorOutput, rhs: IndicatorOutput) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
