public import Foundation

/// The kiosk's panel and the distance a visitor reads it from (`screen.*`), and what they make of its text.
///
/// EN 301 549 5.1.4 asks that a capital H subtends at least 0.7° at the most common viewing distance. The default is
/// the common 7-inch 800×480 panel read by a standing adult at 40 cm: 0.191 mm per pixel, so a capital H of at least
/// 4.89 mm, 25.7 pixels; in DejaVu Sans (the page's font, a capital H of 1493/2048 em) that is text of 36 pixels. The
/// page never draws visitor text smaller (`textPixels`, the browser step measures the capitals it draws); what does
/// not fit goes on the next page (`staysPerPage`), never in smaller type.
public struct ScreenGeometry: Sendable, Equatable {
    /// A side of the screen, where the card reader or the camera is.
    public enum Side: String, Sendable, Equatable, Codable, CaseIterable {
        case left, right, above, below
    }

    /// The panel's resolution in pixels (one CSS pixel is one of them: the kiosk's browser runs at scale 1).
    public var widthPixels = 800
    public var heightPixels = 480
    /// The panel's visible diagonal: 178 mm is 7 inches, 257 mm 10.1 inches.
    public var diagonalMillimetres = 178
    /// The most common viewing distance: a standing adult in front of a kiosk at chest height.
    public var viewingDistanceCentimetres = 40
    /// Where the card reader is, seen from the visitor: the idle screen points there.
    public var readerSide = Side.right
    /// Where the camera is, seen from the visitor: the idle screen points there for the printed code.
    public var cameraSide = Side.above

    public init() {}

    /// The clause's angle for a capital H.
    public static let minimumAngleDegrees = 0.7
    /// A capital H's height in DejaVu Sans (regular and bold), in ems: 1493 of 2048 font units.
    public static let capitalHeightPerEm = 1493.0 / 2048.0

    /// The panel's pixel pitch (square pixels assumed).
    public var millimetresPerPixel: Double {
        Double(diagonalMillimetres) / (Double(widthPixels * widthPixels + heightPixels * heightPixels)).squareRoot()
    }

    /// The smallest capital H that subtends `minimumAngleDegrees` at the viewing distance, in millimetres.
    public var minimumCapitalHeightMillimetres: Double {
        2 * Double(viewingDistanceCentimetres) * 10 * tan(Self.minimumAngleDegrees / 2 * .pi / 180)
    }

    /// The same in the panel's pixels.
    public var minimumCapitalHeightPixels: Double { minimumCapitalHeightMillimetres / millimetresPerPixel }

    /// The size of the page's smallest visitor text (CSS `font-size`, whole pixels, rounded up).
    public var textPixels: Int { Int((minimumCapitalHeightPixels / Self.capitalHeightPerEm).rounded(.up)) }

    /// How many stays one screen lists (a holder's stays, the stays to delete or share); the rest are on further
    /// pages. Estimated from how many lines of text the panel holds at `textPixels`: a page keeps about eight of
    /// them for its title, its other lines, its choices and the hint, and a stay takes about two; at least one.
    public var staysPerPage: Int {
        let lines = Double(heightPixels) / (Double(textPixels) * 1.3)
        return max(1, min(6, Int((lines - 8) / 2)))
    }

    /// The allowed range of each number, by its configuration key (`screen.<key>`).
    public static let ranges: [(key: String, range: ClosedRange<Int>, unit: String)] = [
        ("widthPixels", 320...7680, "px"), ("heightPixels", 240...4320, "px"), ("diagonalMillimetres", 60...2000, "mm"),
        ("viewingDistanceCentimetres", 20...300, "cm"),
    ]
}
