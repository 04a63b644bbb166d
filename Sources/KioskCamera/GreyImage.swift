/// An 8-bit greyscale image, row by row, no padding: what libzbar's `Y800` format expects.
public struct GreyImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// Why an image file could not be read.
public enum ImageLoadError: Error, Equatable, Sendable {
    /// The file could not be opened or read.
    case unreadable(path: String)
    /// Neither PNG nor PGM (P2/P5).
    case unsupportedFormat
    /// A PNG that libpng rejects (its message, which never contains image data).
    case invalidPNG(String)
    /// A PGM whose header or pixel data is wrong.
    case invalidPGM(String)
    /// More pixels than the kiosk will decode (a guard against memory exhaustion).
    case tooLarge(width: Int, height: Int)

    public var message: String {
        switch self {
        case .unreadable(let path): "Cannot read the image file \(path)."
        case .unsupportedFormat:
            "This image is neither PNG nor PGM; convert it, e.g. with `pngtopnm` or an image editor."
        case .invalidPNG(let why): "This PNG image is damaged (\(why))."
        case .invalidPGM(let why): "This PGM image is damaged (\(why))."
        case .tooLarge(let width, let height):
            "This image is too large (\(width) × \(height) pixels); scale it below 40 megapixels."
        }
    }
}
