/// Text that comes from outside the kiosk — a venue code's name, address and room, a file name on a USB stick, a
/// folder typed at the staff terminal — made safe to show, print, say and write to a terminal: every control
/// character (C0 with NUL and ESC, DEL, C1 with CSI U+009B) and every bidirectional control (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) is replaced by U+FFFD. A terminal then runs no escape sequence, a line reads in the
/// order it was written, and a C string (espeak-ng's text, a printer's line) is not cut short at a NUL.
///
/// The one place this is decided: the venue-code parser (through `VenueCode`) and every other edge call it.
public enum OutsideText {
    /// What an unsafe character becomes.
    public static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// Whether `scalar` is a control or a bidirectional control.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds any character `isUnsafe` names.
    public static func containsUnsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isUnsafe)
    }

    /// `text` with every unsafe character replaced by U+FFFD (`text` itself when it has none).
    public static func neutralized(_ text: String) -> String {
        guard containsUnsafe(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isUnsafe(scalar) ? replacement : scalar) }
        return String(scalars)
    }
}
