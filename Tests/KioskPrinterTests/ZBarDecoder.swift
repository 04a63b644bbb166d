internal import CKioskZBar

/// Decodes QR codes in an 8-bit grey image with the real libzbar image scanner, straight through the C API (QR only,
/// binary mode, lengths taken from libzbar rather than NUL termination).
enum ZBarDecoder {
    static func decodeQRCodes(width: Int, height: Int, grey: [UInt8]) -> [[UInt8]] {
        precondition(grey.count == width * height)
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        let y800 = UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8 | UInt(UInt8(ascii: "0")) << 16
            | UInt(UInt8(ascii: "0")) << 24
        zbar_image_set_format(image, y800)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return grey.withUnsafeBufferPointer { buffer -> [[UInt8]] in
            zbar_image_set_data(image, buffer.baseAddress, UInt(buffer.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var results: [[UInt8]] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                let length = Int(zbar_symbol_get_data_length(current))
                if let data = zbar_symbol_get_data(current) {
                    results.append(data.withMemoryRebound(to: UInt8.self, capacity: length) {
                        Array(UnsafeBufferPointer(start: $0, count: length))
                    })
                }
                symbol = zbar_symbol_next(current)
            }
            zbar_image_set_data(image, nil, 0, nil)
            return results
        }
    }
}
