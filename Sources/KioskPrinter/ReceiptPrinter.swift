public import KioskCore

/// Takes receipts as ESC/POS bytes, printed while the person they are for is there. The daemon's implementation is
/// `AttendedPrinter`, which keeps nothing that failed; the simulation writes files; tests record.
public protocol ReceiptPrinter: Sendable {
    func print(_ bytes: [UInt8]) async throws(PrinterError)
}
