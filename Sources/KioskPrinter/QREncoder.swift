internal import CKioskQRencode
import Glibc
public import KioskCore
public import SystemPackage

/// Error correction of a QR code: higher levels survive more damage (a smudged receipt) but need more modules.
public enum QRErrorCorrection: Sendable, CaseIterable {
    case low, medium, quartile, high
}

/// libqrencode could not encode the data. Never carries the data itself.
public enum QREncodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data is too long for a QR code at this error-correction level (`ERANGE`).
    case tooLong(byteCount: Int)
    /// libqrencode failed otherwise (`EINVAL`, `ENOMEM`).
    case failed(Errno)

    public var description: String {
        switch self {
        case .tooLong(let count): "\(count) bytes do not fit in one QR code"
        case .failed(let errno): "the QR encoder failed: \(errno.description)"
        }
    }
}

/// Turns bytes into a QR module matrix with libqrencode (8-bit mode, smallest version that fits).
public enum QREncoder {
    /// The corresponding C function is `QRcode_encodeData`; the result is freed with `QRcode_free`.
    public static func matrix(for data: [UInt8], correction: QRErrorCorrection = .medium) throws(QREncodeError)
        -> QRMatrix
    {
        let level = Self.level(correction)
        let code = data.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, level)
        }
        guard let code else {
            let errno = Errno(rawValue: Glibc.errno)
            if errno == .outOfRange { throw .tooLong(byteCount: data.count) }
            throw .failed(errno)
        }
        return matrix(taking: code)
    }

    /// `text` as UTF-8.
    public static func matrix(for text: String, correction: QRErrorCorrection = .medium) throws(QREncodeError)
        -> QRMatrix
    {
        try matrix(for: Array(text.utf8), correction: correction)
    }

    /// `text` with libqrencode choosing the densest mode per segment (alphanumeric for Base45 batches, which packs
    /// 5.5 bits per character instead of 8). The corresponding C function is `QRcode_encodeString`.
    public static func compactMatrix(for text: String, correction: QRErrorCorrection = .medium) throws(QREncodeError)
        -> QRMatrix
    {
        let level = Self.level(correction)
        guard let code = QRcode_encodeString(text, 0, level, QR_MODE_8, 1) else {
            throw .tooLong(byteCount: text.utf8.count)
        }
        return matrix(taking: code)
    }

    private static func level(_ correction: QRErrorCorrection) -> QRecLevel {
        switch correction {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }

    /// The modules of libqrencode's result (bit 0 of each byte: dark), freeing it.
    private static func matrix(taking code: UnsafeMutablePointer<QRcode>) -> QRMatrix {
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        let modules = (0..<(size * size)).map { code.pointee.data[$0] & 1 == 1 }
        return QRMatrix(size: size, modules: modules)
    }
}
