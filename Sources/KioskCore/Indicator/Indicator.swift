/// What the kiosk shows with its lights and buzzer: a port, so the daemon can drive GPIO lines on a board and a
/// recording fake in tests.
///
/// `show(_:)` plays the pattern's steps in order and returns when they are done (leaving the pattern's `hold` outputs
/// on); a later `show(_:)` supersedes one still playing. `clear()` turns every light and the buzzer off, as on shutdown.
public protocol Indicator: Sendable {
    /// Plays `pattern` as the feedback table describes it.
    func show(_ pattern: IndicatorPattern) async

    /// Turns every output off and stops a pattern that is still playing.
    func clear() async
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
}

/// One light or the buzzer, by role. Which GPIO line each is wired to is configuration (chip plus line offset).
public enum IndicatorOutput: String, Sendable, Codable, CaseIterable, Hashable, Comparable {
    case green, red, amber, buzzer

    public static func < (lhs: IndicatorOutput, rhs: IndicatorOutput) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
