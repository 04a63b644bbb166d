public import KioskCamera
public import KioskCore
public import KioskPrinter

/// A QR code could not be rendered as a camera frame. Never carries the text.
public enum QRFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libqrencode could not encode the text.
    case encoding(QREncodeError)
    /// The code does not fit in the frame (with its quiet zone, at least 2 pixels per module).
    case tooLarge(modules: Int)

    public var description: String {
        switch self {
        case .encoding(let error): error.description
        case .tooLarge(let modules): "a QR code of \(modules) modules does not fit in the camera frame"
        }
    }
}

/// Renders text as a camera frame showing a QR code: libqrencode's matrix, centred, dark modules black on a light
/// background, as big as fits with a quiet zone of 4 modules.
public enum QRFrame {
    public static func render(
        text: String, width: Int = 640, height: Int = 480,
        correction: QRErrorCorrection = .medium
    ) throws(QRFrameError) -> GreyImage {
        let matrix: QRMatrix
        do throws(QREncodeError) {
            matrix = try QREncoder.matrix(for: text, correction: correction)
        } catch {
            throw .encoding(error)
        }
        return try render(matrix, width: width, height: height)
    }

    public static func render(_ matrix: QRMatrix, width: Int = 640, height: Int = 480) throws(QRFrameError) -> GreyImage
    {
        let span = matrix.size + 8
        let scale = min(width, height) / span
        guard scale >= 2 else { throw .tooLarge(modules: matrix.size) }
        var pixels = [UInt8](repeating: 235, count: width * height)
        let left = (width - matrix.size * scale) / 2
        let top = (height - matrix.size * scale) / 2
        for row in 0..<matrix.size {
            for column in 0..<matrix.size where matrix[column, row] {
                for y in (top + row * scale)..<(top + (row + 1) * scale) {
                    let start = y * width + left + column * scale
                    for x in start..<(start + scale) { pixels[x] = 20 }
                }
            }
        }
        return GreyImage(width: width, height: height, pixels: pixels)
    }
}
