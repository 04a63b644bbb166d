/// Why a diary card's tap or session could not be served. Carries no key, UID, stay or venue.
public enum DiaryError: Error, Equatable, Sendable {
    /// The stay cannot be kept in a card's record (a location id that is not 32 bytes, a date out of range).
    case unrecordable
    /// The card's header is not a diary header of a known version (damaged, or written by something else).
    case headerUnreadable
    /// The region's keys could not be had.
    case regionKeys(RegionKeyError)
    /// The crypto library failed.
    case crypto
}

extension DiaryError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unrecordable: "Diary card: this stay cannot be written to a card."
        case .headerUnreadable: "Diary card: the card's diary cannot be read. Ask staff."
        case .regionKeys(let error): "Diary card: the region's keys are not available (\(error))."
        case .crypto: "Diary card: the kiosk's encryption failed."
        }
    }
}
