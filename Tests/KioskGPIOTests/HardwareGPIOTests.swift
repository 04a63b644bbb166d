import Foundation
import KioskCore
import KioskGPIO
import Logging
import Testing

/// Tier 4: runs on a board with the lights wired, when `KIOSK_HARDWARE_TESTS=1` and `KIOSK_DEVICES_CONFIG` names a
/// file like `board/config/kiosk.json`. Plays every pattern (watch and listen) and checks each output line
/// reads back what was driven. Elsewhere it is reported as disabled with this reason, never silently passed.
@Suite(.enabled(if: HardwareTests.enabled, "set KIOSK_HARDWARE_TESTS=1 and KIOSK_DEVICES_CONFIG on a wired board"))
struct HardwareGPIOTests {
    @Test func everyOutputDrivesAndReadsBack() throws {
        let configuration = try HardwareTests.configuration()
        for (_, pin) in configuration.outputs.sorted(by: { $0.key < $1.key }) {
            let line = try OutputLine(pin, consumer: "kiosk-hardware-test")
            for on in [true, false] {
                try line.set(on)
                #expect(try line.value() == on)
            }
        }
    }

    @Test func playsEveryPattern() async throws {
        let configuration = try HardwareTests.configuration()
        let indicator = try GPIOIndicator(
            pins: configuration.outputs, table: try configuration.feedbackTable(),
            logger: Logger(label: "kiosk-hardware-test"))
        for pattern in IndicatorPattern.allCases {
            await indicator.show(pattern)
            await indicator.waitUntilPlayed()
            #expect(await indicator.lastError == nil)
        }
        await indicator.clear()
        #expect(await indicator.lit.isEmpty)
    }
}

enum HardwareTests {
    static var enabled: Bool {
        ProcessInfo.processInfo.environment["KIOSK_HARDWARE_TESTS"] == "1"
            && ProcessInfo.processInfo.environment["KIOSK_DEVICES_CONFIG"] != nil
    }

    struct DevicesFile: Decodable { var lightsAndButtons: LightsAndButtonsConfiguration }

    static func configuration() throws -> LightsAndButtonsConfiguration {
        let path = ProcessInfo.processInfo.environment["KIOSK_DEVICES_CONFIG"] ?? ""
        return try JSONDecoder().decode(DevicesFile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            .lightsAndButtons
    }
}
