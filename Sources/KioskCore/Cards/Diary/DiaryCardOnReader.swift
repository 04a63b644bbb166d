/// A diary card of the kiosk's region as the reader found it (docs/diary-card.md, "At the station"): which placement
/// on the reader it is, and the card's secret for this kiosk.
///
/// The card itself is its holder's diary: nothing of it is stored on the kiosk. Everything the station does with it
/// (a tap, the holder's session) is done on the card while it lies on the reader, through `DiaryCardAccess`, which
/// refuses when the card named here has left (`placement` is not the reader's card any more).
///
/// `secret` tells this card from another within one visit and keys what the kiosk keeps of a warning it told
/// (`WarningRecord`), as a kiosk card's secret does; it is derived from the card's own diary key
/// (`DiaryCardLink.kioskSecret`), never written anywhere, and wiped when its holder leaves. It opens no stay: a
/// diary card's stays open only on the card, with the region's day keys.
public struct DiaryCardOnReader: Sendable, Equatable {
    /// The reader's count of the card's placement: a job for another placement is refused.
    public let placement: UInt64
    /// The card's secret for this kiosk (kind visitor).
    public private(set) var secret: CardSecret

    public init(placement: UInt64, secret: CardSecret) {
        self.placement = placement
        self.secret = secret
    }

    /// Overwrites the secret of this copy.
    public mutating func wipe(using crypto: some CryptoProvider) { secret.wipe(using: crypto) }
}
