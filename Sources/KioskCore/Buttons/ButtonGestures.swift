/// The two buttons' gestures: a press shorter than `holdNanoseconds` is a tap (it moves or chooses, on release), a
/// press held that long is a hold (say the screen), reported once while the button is still down; its release does
/// nothing more. Pure: the caller feeds edges and the monotonic time, and asks again at `nextDeadline`.
public struct ButtonGestures<Button: Hashable & Sendable>: Sendable {
    public enum Gesture: Sendable, Equatable {
        case tap(Button)
        case hold(Button)
    }

    public let holdNanoseconds: UInt64
    private var down: [Button: (since: UInt64, held: Bool)] = [:]

    public init(holdNanoseconds: UInt64 = 2_000_000_000) {
        self.holdNanoseconds = holdNanoseconds
    }

    /// A button went down (`pressed`) or up at `nanoseconds`.
    public mutating func edge(_ button: Button, pressed: Bool, at nanoseconds: UInt64) -> Gesture? {
        if pressed {
            if down[button] == nil { down[button] = (nanoseconds, false) }
            return nil
        }
        guard let press = down.removeValue(forKey: button) else { return nil }
        if press.held { return nil }
        return nanoseconds &- press.since >= holdNanoseconds ? .hold(button) : .tap(button)
    }

    /// Holds that became due by `nanoseconds` (each reported once).
    public mutating func due(at nanoseconds: UInt64) -> [Gesture] {
        var gestures = [Gesture]()
        for (button, press) in down where !press.held && nanoseconds &- press.since >= holdNanoseconds {
            down[button] = (press.since, true)
            gestures.append(.hold(button))
        }
        return gestures
    }

    /// When the next hold becomes due, if a button is down and not reported yet.
    public var nextDeadline: UInt64? {
        down.values.filter { !$0.held }.map { $0.since &+ holdNanoseconds }.min()
    }
}
