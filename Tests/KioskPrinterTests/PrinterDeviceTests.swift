import Foundation
import Glibc
import KioskCore
import KioskPrinter
import Testing

/// The printer output owner against real files, FIFOs and pseudo-terminals: each failure a real printer shows
/// (absent, unplugged before or during a job, out of paper, not answering, stalled) is a typed error, and the job
/// stays queued until it prints in full.
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

    @Test func plainFileReceivesTheWholeJob() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("receipt.bin")
        FileManager.default.createFile(atPath: path, contents: nil)
        let job = Self.job()
        try PrinterDevice(path: path).send(job)
        #expect(readWholeFile(path) == job)
    }

    @Test func absentPrinterIsNotFoundAndTheJobIsKeptUntilItPrints() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("lp0")
        let spooler = ReceiptSpooler(device: PrinterDevice(path: path))
        let job = Self.job()
        let error = await #expect(throws: PrinterError.self) { try await spooler.submit(job) }
        #expect(error == .notFound(path: path))
        #expect(error?.description.contains("plug it in") == true)
        #expect(await spooler.pending.map(\.bytes) == [job])
        let second = Self.job(500)
        await #expect(throws: PrinterError.notFound(path: path)) { try await spooler.submit(second) }
        #expect(await spooler.pending.count == 2)

        FileManager.default.createFile(atPath: path, contents: nil)  // plugged in
        try await spooler.retry()
        #expect(await spooler.pending.isEmpty)
        #expect(readWholeFile(path) == job + second)
    }

    @Test func fifoWithoutReaderIsUnplugged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("printer.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let spooler = ReceiptSpooler(device: PrinterDevice(path: path))
        let job = Self.job()
        await #expect(throws: PrinterError.unplugged(path: path)) { try await spooler.submit(job) }
        #expect(await spooler.pending.count == 1)

        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try await spooler.retry()
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
        let spooler = ReceiptSpooler(device: device)
        let job = Self.job()
        await #expect(throws: PrinterError.outOfPaper(path: printer.slavePath)) { try await spooler.submit(job) }
        #expect(printer.received == PrinterStatus.query)
        #expect(await spooler.pending.count == 1)
    }

    @Test func serialPrinterWithPaperPrintsTheKeptJob() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.file("kiosk-printer")  // as a udev rule would name it
        let empty = try FakeSerialPrinter(.answer(PrinterStatus(paperOut: true)))
        #expect(symlink(empty.slavePath, link) == 0)
        let spooler = ReceiptSpooler(device: PrinterDevice(path: link, bidirectional: true))
        let job = Self.job(20_000)
        await #expect(throws: PrinterError.outOfPaper(path: link)) { try await spooler.submit(job) }
        empty.stop()

        let refilled = try FakeSerialPrinter(.answer(PrinterStatus(paperLow: true)))
        defer { refilled.stop() }
        unlink(link)
        #expect(symlink(refilled.slavePath, link) == 0)
        try await spooler.retry()
        #expect(await spooler.pending.isEmpty)
        try await waitUntil { refilled.received.count >= PrinterStatus.query.count + job.count }
        #expect(refilled.received == PrinterStatus.query + job)
    }

    @Test func coverOpenAndFaultAreTheirOwnErrors() async throws {
        for (status, expected) in [(PrinterStatus(coverOpen: true), PrinterError.coverOpen(path: "")),
                                   (PrinterStatus(failed: true), PrinterError.printerFault(path: ""))] {
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

    @Test func printerUnpluggedMidJobIsAnIOErrorAndTheJobIsKept() async throws {
        let printer = try FakeSerialPrinter(.unplugAfter(4096))
        defer { printer.stop() }
        let spooler = ReceiptSpooler(device: PrinterDevice(path: printer.slavePath, writeTimeout: .seconds(2)))
        let job = Self.job(200_000)
        let error = await #expect(throws: PrinterError.self) { try await spooler.submit(job) }
        #expect(error == .ioError(path: printer.slavePath))
        #expect(await spooler.pending.map(\.bytes) == [job])
        #expect(printer.received.count < job.count)
    }

    @Test func discardedJobIsGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spooler = ReceiptSpooler(device: PrinterDevice(path: directory.file("absent")))
        await #expect(throws: PrinterError.self) { try await spooler.submit(Self.job()) }
        let id = try #require(await spooler.pending.first?.id)
        await spooler.discard(id: id)
        #expect(await spooler.pending.isEmpty)
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
