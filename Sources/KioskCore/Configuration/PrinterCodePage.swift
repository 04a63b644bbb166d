/// The character table a receipt printer prints text in: one byte a character, selected with `ESC t n` when a
/// receipt begins. Both cover every letter of English, German, French and Italian.
public enum PrinterCodePage: String, Sendable, Codable, CaseIterable {
    /// Windows-1252 (Epson's `WPC1252`, `ESC t 16`), the default: Latin-1 plus typographic quotes, en and em dash,
    /// ellipsis, bullet and €.
    case cp1252
    /// Code page 858 (Epson's `PC858`, `ESC t 19`): code page 850 with € in place of the dotless i, for printers
    /// without `WPC1252` (many cheap 58 mm ones). It has no typographic quotes or dashes: they print as `"`, `'`
    /// and `-`.
    case cp858
}
