import Dispatch
import KioskCore

/// Keeps receipts until the printer has taken them: a job that fails (printer absent, out of paper, unplugged
/// mid-job) stays in the queue, in order, and `retry()` prints it again from the start (`ESC @` at the start of every
/// receipt resets a printer that received half of one). Nothing is written to disk: receipts can carry a visitor's
/// protected reports, so they live only in memory until printed.
///
/// Printing runs on the spooler's own dispatch queue, never on the cooperative thread pool.
public actor ReceiptSpooler {
    /// A receipt waiting for the printer.
    public struct Job: Sendable, Equatable, Identifiable {
        public let id: UInt64
        public let bytes: [UInt8]
    }

    public let device: PrinterDevice
    /// Jobs not yet printed, oldest first.
    public private(set) var pending: [Job] = []
    private var nextID: UInt64 = 1
    private let queue = DispatchQueue(label: "kiosk-printer")

    public init(device: PrinterDevice) {
        self.device = device
    }

    /// Queues `bytes` as a job and prints the queue; returns the job's id. If the printer fails, throws, and this
    /// job (with any older ones still waiting) stays queued.
    @discardableResult
    public func submit(_ bytes: [UInt8]) async throws(PrinterError) -> UInt64 {
        let id = nextID
        nextID += 1
        pending.append(Job(id: id, bytes: bytes))
        try await retry()
        return id
    }

    /// Prints the waiting jobs in order, removing each once the printer took all of it; stops at the first failure.
    public func retry() async throws(PrinterError) {
        while let job = pending.first {
            try await send(job.bytes)
            pending.removeFirst()
        }
    }

    /// Drops a waiting job (staff chose not to print it).
    public func discard(id: UInt64) {
        pending.removeAll { $0.id == id }
    }

    private func send(_ bytes: [UInt8]) async throws(PrinterError) {
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
