internal import CKioskPNG
internal import Foundation

/// Loads PNG (any colour type, through libpng) and PGM (P5 binary, P2 text) files as 8-bit grey images.
public enum ImageLoader {
    /// Images above this many pixels are refused.
    public static let maximumPixels = 40_000_000

    /// Reads `path`, picking the decoder by the file's first bytes.
    public static func load(path: String) throws(ImageLoadError) -> GreyImage {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        let bytes = [UInt8](data)
        if bytes.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) { return try decodePNG(bytes) }
        if bytes.starts(with: Array("P5".utf8)) || bytes.starts(with: Array("P2".utf8)) { return try decodePGM(bytes) }
        throw .unsupportedFormat
    }

    /// Decodes a PNG with libpng's simplified API, converting any colour type and depth to 8-bit grey; transparent
    /// pixels are composed onto white (QR codes are printed on white). The corresponding C functions are
    /// `png_image_begin_read_from_memory` and `png_image_finish_read`.
    public static func decodePNG(_ bytes: [UInt8]) throws(ImageLoadError) -> GreyImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw .invalidPNG(message(of: &image)) }
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0 else { throw .invalidPNG("no pixels") }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels, width <= maximumPixels,
            height <= maximumPixels
        else { throw .tooLarge(width: width, height: height) }
        image.format = UInt32(PNG_FORMAT_GRAY)
        var pixels = [UInt8](repeating: 0, count: width * height)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, &white, buffer.baseAddress, Int32(width), nil)
        }
        guard finished != 0 else { throw .invalidPNG(message(of: &image)) }
        return GreyImage(width: width, height: height, pixels: pixels)
    }

    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Decodes a Netpbm greymap: P5 (binary, 1 or 2 bytes per sample) or P2 (decimal text), `#` comments allowed,
    /// any maxval 1…65535 scaled to 0…255.
    public static func decodePGM(_ bytes: [UInt8]) throws(ImageLoadError) -> GreyImage {
        var index = 2
        func skipSpaceAndComments() {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                        index += 1
                    }
                } else if [0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c].contains(bytes[index]) {
                    index += 1
                } else {
                    return
                }
            }
        }
        func number() -> Int? {
            skipSpaceAndComments()
            var value = 0
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), digits < 9 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        let binary = bytes[1] == UInt8(ascii: "5")
        guard let width = number(), let height = number(), let maxval = number() else {
            throw .invalidPGM("bad header")
        }
        guard width > 0, height > 0 else { throw .invalidPGM("no pixels") }
        guard width * height <= maximumPixels else { throw .tooLarge(width: width, height: height) }
        guard (1...65535).contains(maxval) else { throw .invalidPGM("maximum value out of range") }
        let count = width * height
        var pixels = [UInt8]()
        pixels.reserveCapacity(count)
        func scaled(_ sample: Int) -> UInt8 { UInt8(min(sample, maxval) * 255 / maxval) }
        if binary {
            // Exactly one whitespace byte separates the header from the samples.
            guard index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) else {
                throw .invalidPGM("bad header")
            }
            index += 1
            let sampleSize = maxval > 255 ? 2 : 1
            guard bytes.count - index >= count * sampleSize else { throw .invalidPGM("the file is truncated") }
            for pixel in 0..<count {
                let at = index + pixel * sampleSize
                let sample = sampleSize == 2 ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : Int(bytes[at])
                pixels.append(scaled(sample))
            }
        } else {
            for _ in 0..<count {
                guard let sample = number() else { throw .invalidPGM("the file is truncated") }
                pixels.append(scaled(sample))
            }
        }
        return GreyImage(width: width, height: height, pixels: pixels)
    }
}
