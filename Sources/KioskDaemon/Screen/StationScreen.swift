public import Foundation
public import KioskCore
internal import Synchronization

/// What the kiosk's local screen shows now: the station's last message, or the idle text once the station is idle.
/// Only the station's own message texts and the button names, never a card, a code or a venue secret.
public struct ScreenView: Codable, Sendable, Equatable {
    /// One button on the screen; every button looks the same.
    public struct Button: Codable, Sendable, Equatable {
        /// The `StationButton` it presses (`confirm`, `cancel`); the page posts to `/press/<id>`.
        public var id: String
        public var label: String
    }

    public var title: String
    public var body: String
    /// `idle`, or the message's kind: `info`, `success`, `warning`, `error`, `prompt`.
    public var kind: String
    public var buttons: [Button]

    public init(title: String, body: String, kind: String, buttons: [Button] = ScreenView.allButtons) {
        self.title = title
        self.body = body
        self.kind = kind
        self.buttons = buttons
    }

    /// One per `StationButton`, in its order.
    public static let allButtons: [Button] = StationButton.allCases.map {
        Button(id: $0.rawValue, label: label(of: $0))
    }

    static func label(of button: StationButton) -> String {
        switch button {
        case .confirm: "Confirm"
        case .cancel: "Cancel"
        }
    }
}

/// The station's last message and when it was shown, as a pure value: `view(…)` decides what the screen shows.
///
/// - In staff mode the last message stays (the station closes staff mode after its own timeout and says so).
/// - A warning stays as long as the station waits for its confirmation (`warningDisplayTime`), or until the
///   visitor answers it (the station then shows its answer).
/// - Any other message stays `holdTime` on the station's clock; then the screen shows the idle text, which follows
///   the station's state (not set up, clock not set, or ready for a tap).
public struct ScreenState: Sendable, Equatable {
    public var message: StationMessage?
    public var shownAt: Date?

    /// How long a visitor's message (checked in, checked out, refused) stays before the idle text returns.
    public static let holdTime: TimeInterval = 15

    public static let idle = StationMessage(
        title: "Welcome", body: "Tap your card on the reader to check in or out, or show your personal QR card.",
        kind: .info)

    public init(message: StationMessage? = nil, shownAt: Date? = nil) {
        self.message = message
        self.shownAt = shownAt
    }

    public mutating func show(_ message: StationMessage, at now: Date) {
        self.message = message
        shownAt = now
    }

    /// What the screen shows at `now`.
    public func view(
        now: ClockReading, staffMode: Bool, venueBound: Bool,
        configuration: StationConfiguration
    ) -> ScreenView {
        if let message, let shownAt {
            let hold = message.kind == .warning ? configuration.warningDisplayTime : Self.holdTime
            // A clock set back (or a clock not yet set) keeps the message rather than dropping it early.
            let elapsed = now.now.timeIntervalSince(shownAt)
            if staffMode || elapsed < hold {
                return ScreenView(title: message.title, body: message.body, kind: message.kind.rawValue)
            }
        }
        let idle: StationMessage
        if !now.isSynchronized {
            idle = configuration.texts.clockNotSet
        } else if !venueBound {
            idle = configuration.texts.notSetUp
        } else {
            idle = Self.idle
        }
        return ScreenView(title: idle.title, body: idle.body, kind: "idle")
    }
}

/// The station's display port for the local screen: keeps the last message the station showed, with the time on the
/// station's clock.
final class ScreenDisplay: StationDisplay {
    private let state = Mutex(ScreenState())
    private let clock: any ClockSource

    init(clock: any ClockSource) {
        self.clock = clock
    }

    func show(_ message: StationMessage) async {
        let now = clock.read().now
        state.withLock { $0.show(message, at: now) }
    }

    var current: ScreenState { state.withLock { $0 } }
}
