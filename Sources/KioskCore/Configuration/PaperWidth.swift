/// The paper a receipt printer takes, with its printable width in dots (203 dpi heads) and characters of font A
/// (12 × 24 dots).
public enum PaperWidth: String, Sendable, Codable, CaseIterable {
    /// 58 mm paper: 384 dots, 32 characters.
    case mm58
    /// 80 mm paper: 576 dots, 48 characters.
    case mm80

    public var dots: Int {
        switch self {
        case .mm58: 384
        case .mm80: 576
        }
    }

    public var columns: Int { dots / 12 }
}
