import Dispatch
import KioskCore

/// Prints one receipt at a time, while the person it is for stands at the kiosk.
///
/// A receipt that does not print (printer absent, out of paper, unplugged mid-job) is not kept: the error is thrown
/// to the caller, who tells the person and offers to try again now — with the bytes the caller still holds, and only
/// if the person asks. Nothing ever comes out of the printer later on its own: receipts carry a card's key, a
/// visitor's protected reports or a warning, which must reach no one else. Nothing is written to disk either.
/// (`ESC @` at the start of every receipt resets a printer that received half of one, so trying again prints the
/// whole receipt.)
///
/// Printing runs on the printer's own dispatch queue, never on the cooperative thread pool; receipts sent at the
/// same time come out one after the other, never interleaved.
public actor AttendedPrinter: ReceiptPrinter {
    public let device: PrinterDevice
    private let queue = DispatchQueue(label: "kiosk-printer")

    public init(device: PrinterDevice) {
        self.device = device
    }

    /// Prints `bytes` now, or throws why not; keeps nothing either way.
    public func print(_ bytes: [UInt8]) async throws(PrinterError) {
        let device = self.device
        let result: Result<Void, PrinterError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(PrinterError) {
                    try device.send(bytes)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }
}
