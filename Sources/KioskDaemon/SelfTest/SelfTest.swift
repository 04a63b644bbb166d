internal import Foundation
internal import KioskCamera
public import KioskCore
internal import KioskGPIO
internal import KioskNFC
internal import KioskPrinter
internal import Synchronization

/// The devices `kiosk selftest` checks; nil means not configured (the check is skipped).
public struct SelfTestDevices: Sendable, Equatable {
    /// V4L2 camera device, e.g. `/dev/video0`.
    public var camera: String?
    /// libnfc connection string, e.g. `pn532_uart:/dev/ttyS0`.
    public var nfc: String?
    /// Lights, buzzer and buttons.
    public var lightsAndButtons: LightsAndButtonsConfiguration?
    public var printer: ReceiptPrinterConfiguration?
    /// How long the camera may take to deliver its first frame.
    public var cameraTimeout: Duration

    public init(
        camera: String? = nil, nfc: String? = nil, lightsAndButtons: LightsAndButtonsConfiguration? = nil,
        printer: ReceiptPrinterConfiguration? = nil, cameraTimeout: Duration = .seconds(5)
    ) {
        self.camera = camera
        self.nfc = nfc
        self.lightsAndButtons = lightsAndButtons
        self.printer = printer
        self.cameraTimeout = cameraTimeout
    }
}

/// The outcome of checking one device.
public struct SelfTestResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case pass = "PASS"
        case fail = "FAIL"
        case skip = "SKIP"
    }

    /// `camera`, `nfc`, `gpio` or `printer`.
    public var device: String
    public var outcome: Outcome
    /// What was found (a pass) or what is wrong (a failure).
    public var detail: String
    /// What to try, for a failure or a skip.
    public var fix: String?

    public init(device: String, outcome: Outcome, detail: String, fix: String? = nil) {
        self.device = device
        self.outcome = outcome
        self.detail = detail
        self.fix = fix
    }

    /// One line for the terminal: `PASS camera: …`, with the fix after a dash.
    public var line: String {
        let text = "\(outcome.rawValue) \(device): \(detail)"
        guard let fix else { return text }
        return text + " — " + fix
    }
}

/// Checks each configured device in turn: camera frames arrive, the NFC reader reports its firmware, every GPIO line
/// can be requested and driven, the printer takes a test page.
public enum SelfTest {
    public static func run(devices: SelfTestDevices) -> [SelfTestResult] {
        [checkCamera(devices), checkNFC(devices), checkGPIO(devices), checkPrinter(devices)]
    }

    /// True when no configured device failed.
    public static func passed(_ results: [SelfTestResult]) -> Bool { !results.contains { $0.outcome == .fail } }

    static func checkCamera(_ devices: SelfTestDevices) -> SelfTestResult {
        guard let device = devices.camera else {
            return SelfTestResult(
                device: "camera", outcome: .skip, detail: "not configured", fix: "set it with --camera /dev/video0")
        }
        // Opening and the first frame block in libzbar: a thread of their own, waited for with a time limit. A camera
        // that hangs keeps that thread, which ends with the process.
        let result = Mutex<Result<(width: Int, height: Int), CameraUnavailableReason>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let outcome: Result<(width: Int, height: Int), CameraUnavailableReason>
            do throws(CameraUnavailableReason) {
                let video = try ZBarVideo(device: device)
                outcome = .success(try video.nextFrameSize())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.name = "selftest-camera"
        thread.start()
        let milliseconds = Int(max(1, devices.cameraTimeout.wholeMilliseconds))
        guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success,
            let outcome = result.withLock({ $0 })
        else {
            return SelfTestResult(
                device: "camera", outcome: .fail,
                detail: "no frame from \(device) within \(milliseconds) ms",
                fix: "check the camera's cable and light; unplug and replug it")
        }
        switch outcome {
        case .success(let size):
            return SelfTestResult(
                device: "camera", outcome: .pass, detail: "\(device) delivers \(size.width)×\(size.height) frames")
        case .failure(let reason):
            return SelfTestResult(device: "camera", outcome: .fail, detail: reason.message, fix: reason.fix)
        }
    }

    static func checkNFC(_ devices: SelfTestDevices) -> SelfTestResult {
        guard let connection = devices.nfc else {
            return SelfTestResult(
                device: "nfc", outcome: .skip, detail: "not configured",
                fix: "set it with --nfc pn532_uart:/dev/ttyS0")
        }
        do throws(NFCError) {
            let reader = try NFCDevice(connection: connection)
            let firmware = try reader.firmwareVersion()
            return SelfTestResult(device: "nfc", outcome: .pass, detail: "reader at \(connection) answers: \(firmware)")
        } catch {
            return SelfTestResult(
                device: "nfc", outcome: .fail, detail: "reader at \(connection): \(error.description)",
                fix: nfcFix(error))
        }
    }

    private static func nfcFix(_ error: NFCError) -> String {
        switch error.code {
        case .invalidConnectionString: "write the reader as driver:port, e.g. pn532_uart:/dev/ttyS0"
        case .portBusy: "another program uses the reader's port: stop it (see `fuser` on the port)"
        default: "check the reader's wiring and power, and that the port and driver are right"
        }
    }

    static func checkGPIO(_ devices: SelfTestDevices) -> SelfTestResult {
        guard let configuration = devices.lightsAndButtons,
            !(configuration.outputs.isEmpty && configuration.buttons.isEmpty)
        else {
            return SelfTestResult(
                device: "gpio", outcome: .skip, detail: "not configured",
                fix: "set the lines with --gpio-config FILE (see board/config/devices.json)")
        }
        let problems = configuration.problems
        guard problems.isEmpty else {
            return SelfTestResult(
                device: "gpio", outcome: .fail, detail: problems.joined(separator: "; "),
                fix: "correct the GPIO configuration")
        }
        let checks = GPIOSelfTest.run(configuration)
        let failed = checks.filter { !$0.passed }
        guard failed.isEmpty else {
            let detail = failed.map { "\($0.role) (\($0.pin)): \($0.problem ?? "")" }.joined(separator: "; ")
            return SelfTestResult(
                device: "gpio", outcome: .fail, detail: detail,
                fix:
                    "check that the chip exists (`gpiodetect`), the line offsets and that no other program holds the lines (`gpioinfo`)"
            )
        }
        return SelfTestResult(
            device: "gpio", outcome: .pass,
            detail: "\(checks.count) lines work: " + checks.map(\.role).joined(separator: ", "))
    }

    static func checkPrinter(_ devices: SelfTestDevices) -> SelfTestResult {
        guard let configuration = devices.printer else {
            return SelfTestResult(
                device: "printer", outcome: .skip, detail: "not configured",
                fix: "set it with --printer /dev/usb/lp0 (optional)")
        }
        let printer = PrinterDevice(
            path: configuration.path, bidirectional: configuration.bidirectional,
            baudRate: configuration.baudRate,
            writeTimeout: .milliseconds(configuration.writeTimeoutMilliseconds))
        do {
            let page = try ReceiptTestPage.bytes(paper: configuration.paper, codePage: configuration.codePage)
            try printer.send(page)
            return SelfTestResult(device: "printer", outcome: .pass, detail: "test page sent to \(configuration.path)")
        } catch let error as PrinterError {
            return SelfTestResult(
                device: "printer", outcome: .fail, detail: error.description,
                fix: "check the printer's power, paper and cable, and the path")
        } catch {
            return SelfTestResult(
                device: "printer", outcome: .fail, detail: "the test page could not be made: \(error)",
                fix: "report this as a bug")
        }
    }
}
