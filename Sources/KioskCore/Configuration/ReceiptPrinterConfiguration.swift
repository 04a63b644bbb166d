/// The configuration of the optional receipt printer.
///
/// JSON: `{"path": "/dev/usb/lp0", "paper": "mm58", "codePage": "cp1252", "bidirectional": false, "baudRate": 9600,
/// "writeTimeoutMilliseconds": 10000}`; only `path` is required.
public struct ReceiptPrinterConfiguration: Sendable, Codable, Equatable {
    /// `/dev/usb/lp0`, a serial port, or a file.
    public var path: String
    public var paper: PaperWidth
    /// The character table text is printed in (`ESC t n`).
    public var codePage: PrinterCodePage
    /// The printer answers `DLE EOT` status queries on this port.
    public var bidirectional: Bool
    /// Serial speed when `path` is a tty.
    public var baudRate: Int
    public var writeTimeoutMilliseconds: Int

    public init(
        path: String, paper: PaperWidth = .mm58, codePage: PrinterCodePage = .cp1252, bidirectional: Bool = false,
        baudRate: Int = 9600, writeTimeoutMilliseconds: Int = 10_000
    ) {
        self.path = path
        self.paper = paper
        self.codePage = codePage
        self.bidirectional = bidirectional
        self.baudRate = baudRate
        self.writeTimeoutMilliseconds = writeTimeoutMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case path, paper, codePage, bidirectional, baudRate, writeTimeoutMilliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        paper = try container.decodeIfPresent(PaperWidth.self, forKey: .paper) ?? .mm58
        codePage = try container.decodeIfPresent(PrinterCodePage.self, forKey: .codePage) ?? .cp1252
        bidirectional = try container.decodeIfPresent(Bool.self, forKey: .bidirectional) ?? false
        baudRate = try container.decodeIfPresent(Int.self, forKey: .baudRate) ?? 9600
        writeTimeoutMilliseconds = try container.decodeIfPresent(Int.self, forKey: .writeTimeoutMilliseconds) ?? 10_000
    }
}
