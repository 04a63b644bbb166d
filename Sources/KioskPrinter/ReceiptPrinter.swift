public import KioskCore

/// Takes receipts as ESC/POS bytes. The daemon's implementation is `ReceiptSpooler` (which keeps a job that failed
/// and prints it again later); tests record.
public protocol ReceiptPrinter: Sendable {
    func print(_ bytes: [UInt8]) async throws(PrinterError)
}

extension ReceiptSpooler: ReceiptPrinter {
    public func print(_ bytes: [UInt8]) async throws(PrinterError) {
        try await submit(bytes)
    }
}
