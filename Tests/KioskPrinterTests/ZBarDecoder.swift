import KioskCamera

/// Decodes QR codes in an 8-bit grey image with the kiosk's libzbar scanner (QR only, binary mode).
enum ZBarDecoder {
    static func decodeQRCodes(width: Int, height: Int, grey: [UInt8]) -> [[UInt8]] {
        guard let scanner = try? ZBarImageScanner(),
            let codes = try? scanner.scan(GreyImage(width: width, height: height, pixels: grey))
        else { return [] }
        return codes.map(\.bytes)
    }
}
