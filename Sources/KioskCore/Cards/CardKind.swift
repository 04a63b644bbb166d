/// What a kiosk card opens: a visitor's check-ins, or staff mode.
///
/// Stored as one byte in the card layout (`CardSecret.layoutBytes`), so the daemon can tell a staff card from a
/// visitor card before deriving anything.
public enum CardKind: UInt8, Sendable, Equatable, CaseIterable {
    /// A visitor's card: taps check in and out; the card unlocks its holder's stays.
    case visitor = 0x01
    /// A staff card: opens staff mode (binding the venue, enrolment, status, wiping the kiosk).
    case staff = 0x02
}
