import Foundation
import KioskCamera
import KioskCameraTesting
import KioskCore
import KioskDaemon
import KioskSimulation
import Testing

@Suite(.serialized) struct SelfTestTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-selftest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func nothingConfiguredIsAllSkippedAndPasses() {
        let results = SelfTest.run(devices: SelfTestDevices())
        #expect(results.map(\.device) == ["camera", "nfc", "gpio", "printer"])
        #expect(results.allSatisfy { $0.outcome == .skip && $0.fix != nil })
        #expect(SelfTest.passed(results))
        #expect(results[0].line.hasPrefix("SKIP camera: not configured — "))
    }

    @Test func nfcReaderOnTheEmulatorPasses() throws {
        let terminal = try PN532PseudoTerminal(emulator: PN532Emulator(card: nil))
        terminal.start()
        let results = SelfTest.run(devices: SelfTestDevices(nfc: "pn532_uart:\(terminal.slavePath)"))
        let nfc = try #require(results.first { $0.device == "nfc" })
        #expect(nfc.outcome == .pass, "\(nfc.line)")
        #expect(nfc.detail.contains("PN532 v1.6"))
        #expect(terminal.emulator.withChip { $0.commandLog }.contains(0x02))  // GetFirmwareVersion reached the chip
        #expect(SelfTest.passed(results))
    }

    @Test func missingNFCReaderFails() throws {
        let results = SelfTest.run(devices: SelfTestDevices(nfc: "pn532_uart:/dev/ttyKIOSKNONE"))
        let nfc = try #require(results.first { $0.device == "nfc" })
        #expect(nfc.outcome == .fail)
        #expect(nfc.fix != nil)
        #expect(!SelfTest.passed(results))
    }

    @Test func missingGPIOChipFailsWithAMessage() throws {
        let configuration = LightsAndButtonsConfiguration(
            outputs: [.green: GPIOPin(chip: "gpiochip-kiosk-none", offset: 17)],
            buttons: [.confirm: GPIOPin(chip: "gpiochip-kiosk-none", offset: 5, activeLow: true)])
        let results = SelfTest.run(devices: SelfTestDevices(lightsAndButtons: configuration))
        let gpio = try #require(results.first { $0.device == "gpio" })
        #expect(gpio.outcome == .fail)
        #expect(
            gpio.detail.contains("green") && gpio.detail.contains("confirm")
                && gpio.detail.contains("gpiochip-kiosk-none"))
        #expect(gpio.fix?.contains("gpiodetect") == true)
        #expect(!SelfTest.passed(results))
    }

    @Test func printerFileGetsTheTestPage() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = try PipePrinter(path: directory.appendingPathComponent("lp0").path)
        defer { pipe.stop() }
        let results = SelfTest.run(devices: SelfTestDevices(printer: ReceiptPrinterConfiguration(path: pipe.path)))
        let printer = try #require(results.first { $0.device == "printer" })
        #expect(printer.outcome == .pass, "\(printer.line)")
        let bytes = pipe.received()
        #expect(bytes.starts(with: [0x1B, 0x40]))  // ESC @ initialises the printer
        #expect(bytes.count > 100)
    }

    @Test func printerInAMissingDirectoryFails() throws {
        let results = SelfTest.run(
            devices: SelfTestDevices(printer: ReceiptPrinterConfiguration(path: "/nonexistent-kiosk-dir/lp0")))
        let printer = try #require(results.first { $0.device == "printer" })
        #expect(printer.outcome == .fail)
        #expect(printer.detail.contains("/nonexistent-kiosk-dir/lp0"))
        #expect(!SelfTest.passed(results))
    }

    @Test func missingCameraFails() throws {
        let results = SelfTest.run(devices: SelfTestDevices(camera: "/dev/video-kiosk-none"))
        let camera = try #require(results.first { $0.device == "camera" })
        #expect(camera.outcome == .fail)
        #expect(camera.detail == CameraUnavailableReason.noCamera(device: "/dev/video-kiosk-none").message)
    }

    // The command itself, with the stand-in camera loaded at process start.

    static func selftest(_ arguments: [String], fault: String? = nil) throws -> ChildProcess.Result {
        let kiosk = try ChildProcess.productPath("kiosk")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let frame = directory.appendingPathComponent("blank.pgm").path
        try TestFrames.writePGM(TestFrames.blank(), to: frame)
        let environment = try V4L2Shim.environment(frames: [frame], fault: fault)
        return try ChildProcess.run(kiosk, ["selftest"] + arguments, environment: environment, timeout: 60)
    }

    @Test func commandPassesWithTheStandInCamera() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let printer = try PipePrinter(path: directory.appendingPathComponent("lp0").path)  // stands in for the printer
        defer { printer.stop() }
        let result = try Self.selftest(["--camera", V4L2Shim.device, "--printer", printer.path])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.contains("PASS camera: \(V4L2Shim.device) delivers 640×480 frames"))
        #expect(lines.contains { $0.hasPrefix("SKIP nfc: not configured") })
        #expect(lines.contains { $0.hasPrefix("SKIP gpio: not configured") })
        #expect(lines.contains("PASS printer: test page sent to \(printer.path)"))
    }

    @Test func commandFailsWhenTheCameraIsBusy() throws {
        let result = try Self.selftest(["--camera", V4L2Shim.device], fault: "busy")
        #expect(result.status == 1)
        let reason = CameraUnavailableReason.busy(device: V4L2Shim.device)
        #expect(result.standardOutput.contains("FAIL camera: \(reason.message) — \(reason.fix)"))
    }

    @Test func commandReportsABrokenGPIOFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("devices.json")
        try Data(#"{"lightsAndButtons": {"outputs": {"green": {"chip": "gpiochip0"}}}}"#.utf8).write(to: file)
        let result = try Self.selftest(["--gpio-config", file.path])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("FAIL gpio: \(file.path) is not a valid GPIO configuration"))
    }

    @Test func commandRejectsBadOptions() throws {
        let result = try Self.selftest(["--nfc", "ttyS0"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("driver:port"))
    }
}
