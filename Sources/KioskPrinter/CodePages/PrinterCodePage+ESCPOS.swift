public import KioskCore

extension PrinterCodePage {
    /// The `n` of `ESC t n` that selects this code page on an Epson-compatible printer (Epson's ESC/POS command
    /// reference, "Select character code table"): 16 for `WPC1252`, 19 for `PC858`.
    public var escposTable: UInt8 {
        switch self {
        case .cp1252: 16
        case .cp858: 19
        }
    }

    /// The code page `ESC t n` selects, if it is one of ours.
    public init?(escposTable: UInt8) {
        guard let page = Self.allCases.first(where: { $0.escposTable == escposTable }) else { return nil }
        self = page
    }

    /// The character `byte` prints in this code page: printable ASCII for 0x20–0x7E, the code page's own table
    /// above 0x7F; nil for a control byte (0x00–0x1F, 0x7F) and for a byte the code page leaves undefined.
    public func character(for byte: UInt8) -> Unicode.Scalar? {
        switch byte {
        case 0x20...0x7E: return Unicode.Scalar(byte)
        case 0x80...0xFF:
            let value = high[Int(byte) - 0x80]
            return value == 0 ? nil : Unicode.Scalar(value)
        default: return nil
        }
    }

    /// The byte that prints `scalar` in this code page, if it has it. Never a control byte: a control character
    /// (C0, DEL or C1) has no byte.
    public func byte(for scalar: Unicode.Scalar) -> UInt8? {
        if (0x20...0x7E).contains(scalar.value) { return UInt8(scalar.value) }
        return bytesAboveASCII[scalar]
    }

    /// The table of bytes 0x80–0xFF (0 where a byte is undefined).
    private var high: [UInt16] {
        switch self {
        case .cp1252: Self.windows1252High
        case .cp858: Self.codePage858High
        }
    }

    private var bytesAboveASCII: [Unicode.Scalar: UInt8] {
        switch self {
        case .cp1252: Self.windows1252Bytes
        case .cp858: Self.codePage858Bytes
        }
    }

    private static let windows1252Bytes = reverse(windows1252High)
    private static let codePage858Bytes = reverse(codePage858High)

    /// Scalar → byte for a table of bytes 0x80–0xFF. The C1 controls (U+0080–U+009F) are left out, so that no table
    /// can ever turn one into a byte.
    private static func reverse(_ table: [UInt16]) -> [Unicode.Scalar: UInt8] {
        var bytes: [Unicode.Scalar: UInt8] = [:]
        for (offset, value) in table.enumerated() where value != 0 && !(0x80...0x9F).contains(value) {
            if let scalar = Unicode.Scalar(value) { bytes[scalar] = UInt8(0x80 + offset) }
        }
        return bytes
    }
}
