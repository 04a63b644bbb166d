import ArgumentParser
import Foundation
import KioskCore
import KioskDaemon

/// `kiosk selftest`: checks each configured device and prints one PASS/FAIL/SKIP line per device.
struct SelfTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the camera, NFC reader, lights and buttons, and printer.",
        discussion: """
            Prints one line per device: PASS, FAIL (with the fix to try) or SKIP (not configured). Exit status 0 \
            only when every configured device passed. Without a device option, the devices of the kiosk's \
            configuration (--config, default \(ConfigurationLoader.defaultPath)) are checked, as the daemon would \
            open them.
            """
    )

    @Option(help: "The camera's V4L2 device, e.g. /dev/video0.")
    var camera: String?

    @Option(help: "The NFC reader's libnfc connection, e.g. pn532_uart:/dev/ttyS0.")
    var nfc: String?

    @Option(
        name: .customLong("gpio-config"),
        help: "A JSON file with a `lightsAndButtons` section (board/config/kiosk.json format).")
    var gpioConfig: String?

    @Option(help: "The receipt printer's device or file, e.g. /dev/usb/lp0 (the test page is printed).")
    var printer: String?

    @Option(
        name: .customLong("config"),
        help: "The kiosk's configuration, checked when no device option is given (default: the daemon's).")
    var configPath: String?

    @Option(name: .customLong("camera-timeout"), help: "Seconds to wait for the camera's first frame.")
    var cameraTimeout: Double = 5

    func validate() throws {
        if let camera, !camera.hasPrefix("/") {
            throw ValidationError("--camera needs a device path such as /dev/video0.")
        }
        if let nfc, !nfc.contains(":") { throw ValidationError("--nfc needs driver:port, e.g. pn532_uart:/dev/ttyS0.") }
        if let printer, printer.isEmpty { throw ValidationError("--printer needs a path such as /dev/usb/lp0.") }
        guard cameraTimeout > 0, cameraTimeout <= 120 else {
            throw ValidationError("--camera-timeout must be 0 to 120 seconds.")
        }
    }

    func run() throws {
        var devices = SelfTestDevices(camera: camera, nfc: nfc, cameraTimeout: .milliseconds(Int(cameraTimeout * 1000)))
        if let printer { devices.printer = ReceiptPrinterConfiguration(path: printer) }
        if camera == nil, nfc == nil, gpioConfig == nil, printer == nil {
            // A field worker runs it bare: check what the kiosk itself would open.
            let loader = ConfigurationLoader(path: configPath ?? ConfigurationLoader.defaultPath)
            let configuration: KioskConfiguration
            do { configuration = try loader.loadConfiguration() } catch {
                print("FAIL config: \(loader.path): \(error) — fix: kiosk config check --config \(loader.path)")
                throw ExitCode(1)
            }
            devices.camera = configuration.camera?.device
            devices.nfc = configuration.nfc?.connection
            devices.lightsAndButtons = configuration.lightsAndButtons
            devices.printer = configuration.receiptPrinter
        }
        var gpioFailure: SelfTestResult?
        if let gpioConfig {
            do {
                devices.lightsAndButtons = try Self.lightsAndButtons(from: gpioConfig)
            } catch {
                gpioFailure = SelfTestResult(
                    device: "gpio", outcome: .fail, detail: "\(error)",
                    fix: "fix the file (see board/config/kiosk.json)")
            }
        }
        var results = SelfTest.run(devices: devices)
        if let gpioFailure, let index = results.firstIndex(where: { $0.device == "gpio" }) {
            results[index] = gpioFailure
        }
        for result in results { print(result.line) }
        if !SelfTest.passed(results) { throw ExitCode(1) }
    }

    struct ConfigurationFileError: Error, CustomStringConvertible {
        var description: String
    }

    /// The `lightsAndButtons` section of a devices file.
    static func lightsAndButtons(from path: String) throws -> LightsAndButtonsConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationFileError(description: "cannot read the GPIO configuration file \(path)")
        }
        struct File: Decodable { var lightsAndButtons: LightsAndButtonsConfiguration? }
        do {
            guard let section = try JSONDecoder().decode(File.self, from: data).lightsAndButtons else {
                throw ConfigurationFileError(description: "\(path) has no \"lightsAndButtons\" section")
            }
            return section
        } catch let error as ConfigurationFileError {
            throw error
        } catch {
            throw ConfigurationFileError(
                description: "\(path) is not a valid GPIO configuration (\(Self.describe(error)))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty
                ? "not JSON" : "wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "unreadable"
        }
    }
}
