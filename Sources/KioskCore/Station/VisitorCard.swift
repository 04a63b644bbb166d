/// The card a visitor showed: one of this kiosk's cards (an NTAG card or its printed code), whose stays the kiosk
/// keeps, or a diary card of the region, which keeps its own (docs/diary-card.md). The machine decides the same for
/// both; the runner serves the first with `CheckInDesk` and the second with `DiaryCardAccess`, on the card.
public enum VisitorCard: Sendable, Equatable {
    case kiosk(CardSecret)
    case diary(DiaryCardOnReader)

    /// The secret that tells this card from another and keys the kiosk's warning records for it.
    public var secret: CardSecret {
        switch self {
        case .kiosk(let secret): secret
        case .diary(let card): card.secret
        }
    }

    /// Whether it is a diary card (its holder's choices, their acknowledged warning included, are kept on it).
    public var isDiary: Bool {
        if case .diary = self { true } else { false }
    }

    /// Overwrites the secret of this copy.
    public mutating func wipe(using crypto: some CryptoProvider) {
        switch self {
        case .kiosk(var secret):
            secret.wipe(using: crypto)
            self = .kiosk(secret)
        case .diary(var card):
            card.wipe(using: crypto)
            self = .diary(card)
        }
    }
}
