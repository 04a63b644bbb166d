import Foundation
import Glibc
import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

/// The printer output owner against real files, FIFOs and pseudo-terminals: each failure a real printer shows
/// (absent, unplugged before or during a job, out of paper, not answering, stalled) is a typed error, and a receipt
/// that did not print is never printed later on its own.
@Suite(.serialized) struct PrinterDeviceTests {
    static func job(_ size: Int = 2000) -> [UInt8] {
        var encoder = ESCPOSEncoder(paper: .mm58)
        encoder.initialize()
        encoder.text("Check-in kiosk test page")
        var bitmap = MonoBitmap(width: 384, height: max(1, size / 48))
        for y in 0..<bitmap.height { bitmap[(y * 7) % 384, y] = true }
        try? encoder.image(bitmap)
        encoder.cut()
        return encoder.bytes
    }

    @Test func aPrinterPipeReceivesTheWholeJobAndAPlainFileIsRefusedAndKeepsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pipe = try PipePrinter(path: directory.file("lp0"))
        defer { pipe.stop() }
        let job = Self.job()
        try PrinterDevice(path: pipe.path).send(job)
        #expect(pipe.received() == job)

        // A file would keep every receipt (reports, card codes) beyond any retention: refused, left empty.
        let path = directory.file("receipt.bin")
        FileManager.default.createFile(atPath: path, contents: nil)
        #expect(throws: PrinterError.notAPrinter(path: path)) { try PrinterDevice(path: path).send(job) }
        #expect(readWholeFile(path) == [])
        #expect(PrinterError.notAPrinter(path: path).description.contains("not a printer"))
    }

    @Test func absentPrinterIsNotFoundAndAFailedReceiptNeverPrintsLater() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("lp0")
        let printer = AttendedPrinter(device: PrinterDevice(path: path))
        let job = Self.job()
        let error = await #expect(throws: PrinterError.self) { try await printer.print(job) }
        #expect(error == .notFound(path: path))
        #expect(error?.description.contains("plug it in") == true)

        // Plugged in: the next receipt, someone else's, comes out alone; the failed one is gone for good.
        let plugged = try PipePrinter(path: path)
        defer { plugged.stop() }
        let second = Self.job(500)
        try await printer.print(second)
        #expect(plugged.received() == second)
        // Trying again is the holder's choice, made now with the bytes the caller still holds.
        try await printer.print(job)
        #expect(plugged.received() == second + job)
    }

    @Test func fifoWithoutReaderIsUnplugged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("printer.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let printer = AttendedPrinter(device: PrinterDevice(path: path))
        let job = Self.job()
        await #expect(throws: PrinterError.unplugged(path: path)) { try await printer.print(job) }

        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try await printer.print(job)
        var got = [UInt8](repeating: 0, count: job.count + 10)
        let count = read(reader, &got, got.count)
        #expect(Array(got[0..<max(count, 0)]) == job)
    }

    @Test func printerThatStopsTakingDataStallsWithinTheTimeLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("stuck.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let reader = open(path, O_RDONLY | O_NONBLOCK)  // opened, never read: a printer out of paper that holds data
        defer { close(reader) }
        let job = Self.job(300_000)
        let device = PrinterDevice(path: path, writeTimeout: .milliseconds(200))
        let error = #expect(throws: PrinterError.self) { try device.send(job) }
        guard case .stalled(let errorPath, let written, let total) = error else {
            Issue.record("expected .stalled, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(written > 0 && written < total)
        #expect(total == job.count)
    }

    @Test func serialPrinterOutOfPaperIsReportedBeforeAnythingIsPrinted() async throws {
        let printer = try FakeSerialPrinter(.answer(PrinterStatus(paperOut: true)))
        defer { printer.stop() }
        let device = PrinterDevice(path: printer.slavePath, bidirectional: true)
        let attended = AttendedPrinter(device: device)
        let job = Self.job()
        await #expect(throws: PrinterError.outOfPaper(path: printer.slavePath)) { try await attended.print(job) }
        #expect(printer.received == PrinterStatus.query)
    }

    @Test func serialPrinterRefilledPrintsTheReceiptTriedAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.file("kiosk-printer")  // as a udev rule would name it
        let empty = try FakeSerialPrinter(.answer(PrinterStatus(paperOut: true)))
        #expect(symlink(empty.slavePath, link) == 0)
        let attended = AttendedPrinter(device: PrinterDevice(path: link, bidirectional: true))
        let job = Self.job(20_000)
        await #expect(throws: PrinterError.outOfPaper(path: link)) { try await attended.print(job) }
        empty.stop()

        let refilled = try FakeSerialPrinter(.answer(PrinterStatus(paperLow: true)))
        defer { refilled.stop() }
        unlink(link)
        #expect(symlink(refilled.slavePath, link) == 0)
        try await attended.print(job)
        try await waitUntil { refilled.received.count >= PrinterStatus.query.count + job.count }
        #expect(refilled.received == PrinterStatus.query + job)
    }

    @Test func coverOpenAndFaultAreTheirOwnErrors() async throws {
        for (status, expected) in [
            (PrinterStatus(coverOpen: true), PrinterError.coverOpen(path: "")),
            (PrinterStatus(failed: true), PrinterError.printerFault(path: "")),
        ] {
            let printer = try FakeSerialPrinter(.answer(status))
            defer { printer.stop() }
            let error = #expect(throws: PrinterError.self) {
                try PrinterDevice(path: printer.slavePath, bidirectional: true).send(Self.job())
            }
            switch (error, expected) {
            case (.coverOpen?, .coverOpen), (.printerFault?, .printerFault): break
            default: Issue.record("expected \(expected), got \(String(describing: error))")
            }
        }
    }

    @Test func bidirectionalPrinterThatDoesNotAnswerIsNotResponding() throws {
        let printer = try FakeSerialPrinter(.silent)
        defer { printer.stop() }
        let device = PrinterDevice(path: printer.slavePath, bidirectional: true, statusTimeout: .milliseconds(150))
        #expect(throws: PrinterError.notResponding(path: printer.slavePath)) { try device.send(Self.job()) }
        #expect(throws: PrinterError.notResponding(path: printer.slavePath)) { _ = try device.status() }
    }

    @Test func statusQueryReadsTheAnswer() throws {
        let printer = try FakeSerialPrinter(.answer(PrinterStatus(paperLow: true)))
        defer { printer.stop() }
        let status = try PrinterDevice(path: printer.slavePath, bidirectional: true).status()
        #expect(status == PrinterStatus(paperLow: true))
    }

    @Test func printerUnpluggedMidJobIsAnIOError() async throws {
        let printer = try FakeSerialPrinter(.unplugAfter(4096))
        defer { printer.stop() }
        let attended = AttendedPrinter(device: PrinterDevice(path: printer.slavePath, writeTimeout: .seconds(2)))
        let job = Self.job(200_000)
        let error = await #expect(throws: PrinterError.self) { try await attended.print(job) }
        #expect(error == .ioError(path: printer.slavePath))
        #expect(printer.received.count < job.count)
    }

    @Test func noErrorTextPromisesALaterPrint() {
        let path = "/dev/usb/lp0"
        let errors: [PrinterError] = [
            .notFound(path: path), .unplugged(path: path), .permissionDenied(path: path), .busy(path: path),
            .ioError(path: path), .stalled(path: path, written: 10, total: 20), .outOfPaper(path: path),
            .coverOpen(path: path), .printerFault(path: path), .notResponding(path: path), .notConfigured,
        ]
        for error in errors {
            #expect(!error.description.contains("kept"), "\(error)")
            #expect(!error.description.contains("again"), "\(error)")
        }
    }

    @Test func errorTextCarriesNoReceiptContent() {
        let errors: [PrinterError] = [
            .notFound(path: "/dev/usb/lp0"), .unplugged(path: "/dev/usb/lp0"), .ioError(path: "/dev/usb/lp0"),
            .stalled(path: "/dev/usb/lp0", written: 10, total: 20), .outOfPaper(path: "/dev/usb/lp0"),
        ]
        for error in errors {
            #expect(error.description.contains("/dev/usb/lp0"))
            #expect(!error.description.contains("coronawarn"))
        }
    }
}

/// Polls `condition` for up to two seconds (the fake printer reads on its own thread).
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<200 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
}
