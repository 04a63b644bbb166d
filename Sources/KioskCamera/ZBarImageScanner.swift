internal import CKioskZBar

/// A code libzbar found in an image: its raw bytes (read with `zbar_symbol_get_data_length`, never as a C string).
public struct ScannedCode: Sendable, Equatable {
    public var bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes as text (invalid UTF-8 replaced), which is how venue codes are read.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Why libzbar could not scan.
public enum ZBarError: Error, Equatable, Sendable {
    /// `zbar_image_scanner_create` or `zbar_image_create` returned NULL (out of memory).
    case outOfMemory
    /// `zbar_image_scanner_set_config` refused a setting (the installed libzbar lacks it).
    case configurationRefused(String)
    /// `zbar_scan_image` returned an error.
    case scanFailed
    /// The image has no pixels or its size does not match its buffer.
    case invalidImage

    public var message: String {
        switch self {
        case .outOfMemory: "The QR code reader (libzbar) ran out of memory."
        case .configurationRefused(let what):
            "The installed libzbar does not support \(what); install libzbar0 0.23 or newer."
        case .scanFailed: "The QR code reader (libzbar) failed to scan the image."
        case .invalidImage: "The image is empty or damaged."
        }
    }
}

/// Owns one `zbar_image_scanner_t`, set up for QR codes only, with `ZBAR_CFG_BINARY` so that bytes come back
/// unchanged. Not thread-safe: use one scanner per thread.
public struct ZBarImageScanner: ~Copyable {
    private let scanner: OpaquePointer

    /// The corresponding C functions are `zbar_image_scanner_create` and `zbar_image_scanner_set_config`.
    public init() throws(ZBarError) {
        guard let scanner = zbar_image_scanner_create() else { throw .outOfMemory }
        // Everything off, then QR on, in binary mode (without it bytes >= 0x80 come back re-encoded as UTF-8).
        let settings: [(zbar_symbol_type_t, zbar_config_t, Int32, String)] = [
            (ZBAR_NONE, ZBAR_CFG_ENABLE, 0, "disabling symbologies"),
            (ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1, "QR codes"),
            (ZBAR_QRCODE, ZBAR_CFG_BINARY, 1, "binary QR data"),
        ]
        for (symbology, config, value, what) in settings
        where zbar_image_scanner_set_config(scanner, symbology, config, value) != 0 {
            zbar_image_scanner_destroy(scanner)
            throw .configurationRefused(what)
        }
        self.scanner = scanner
    }

    /// Every QR code in `image`, in libzbar's order. The corresponding C function is `zbar_scan_image`.
    public func scan(_ image: GreyImage) throws(ZBarError) -> [ScannedCode] {
        guard image.pixels.count == image.width * image.height else { throw .invalidImage }
        return try image.pixels.withUnsafeBufferPointer { pixels throws(ZBarError) -> [ScannedCode] in
            try scan(pixels: pixels, width: image.width, height: image.height)
        }
    }

    /// Every QR code in an 8-bit grey frame that someone else owns (a camera buffer), without copying it: `pixels`
    /// holds at least `width × height` bytes, row by row. The corresponding C function is `zbar_scan_image`.
    public func scan(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws(ZBarError) -> [ScannedCode] {
        guard width > 0, height > 0, pixels.count >= width * height, pixels.baseAddress != nil,
            let zwidth = UInt32(exactly: width), let zheight = UInt32(exactly: height)
        else {
            throw .invalidImage
        }
        guard let zimage = zbar_image_create() else { throw .outOfMemory }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, ckiosk_zbar_fourcc_y800())
        zbar_image_set_size(zimage, zwidth, zheight)
        // No cleanup handler: the buffer stays the caller's and outlives the image, which is destroyed above.
        zbar_image_set_data(zimage, pixels.baseAddress, UInt(width * height), nil)
        defer { zbar_image_set_data(zimage, nil, 0, nil) }  // detach the buffer before the image is destroyed
        guard zbar_scan_image(scanner, zimage) >= 0 else { throw .scanFailed }
        var codes = [ScannedCode]()
        var symbol = zbar_image_first_symbol(zimage)
        while let current = symbol {
            if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                let length = Int(zbar_symbol_get_data_length(current))
                let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                    Array(UnsafeBufferPointer(start: $0, count: length))
                }
                codes.append(ScannedCode(bytes: bytes))
            }
            symbol = zbar_symbol_next(current)
        }
        return codes
    }

    deinit { zbar_image_scanner_destroy(scanner) }
}
