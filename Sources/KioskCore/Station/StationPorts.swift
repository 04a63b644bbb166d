// The ports the station uses, beside the printer's (`ReceiptPrinter`, in KioskPrinter, whose errors are the device's).

/// Writes a fresh secret to the blank card on the reader (the daemon implements it with libnfc's
/// `KioskCardAccess.enrol`). Throws `.cardRemoved` when the card left, `.enrolment(reason:)` otherwise.
public protocol CardEnroller: Sendable {
    func enrol(_ secret: CardSecret) async throws(StationFailure)
}

/// Matches a card's stays against the published warnings the kiosk keeps (the daemon's warnings client).
public protocol WarningSource: Sendable {
    func match(_ stays: [MatchableStay]) async -> ExposureResult?
    /// Whether any warning is kept at all; when not, a tap does not read the card's stays a second time to match
    /// them against nothing.
    var holdsWarnings: Bool { get async }
}

extension WarningSource {
    public var holdsWarnings: Bool { get async { true } }
}

/// The devices' states for the status slip ("printer" → "ok", …); no personal data.
public protocol DeviceStatusSource: Sendable {
    func deviceStates() async -> [String: String]
}
