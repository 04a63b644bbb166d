import Foundation
import KioskCore
import Testing

@Suite struct DeviceConfigurationTests {
    struct DevicesFile: Decodable {
        var lightsAndButtons: LightsAndButtonsConfiguration
        var receiptPrinter: ReceiptPrinterConfiguration
    }

    static let boardFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("board/config/kiosk.json")

    @Test func boardExampleDecodesAndIsConsistent() throws {
        let file = try JSONDecoder().decode(DevicesFile.self, from: Data(contentsOf: Self.boardFile))
        let lights = file.lightsAndButtons
        #expect(Set(lights.outputs.keys) == Set(IndicatorOutput.allCases))
        #expect(Set(lights.buttons.keys) == Set(ButtonRole.allCases))
        #expect(lights.outputs[.green] == GPIOPin(chip: "gpiochip0", offset: 17))
        #expect(lights.buttons[.confirm] == GPIOPin(chip: "gpiochip0", offset: 5, activeLow: true, bias: .pullUp))
        #expect(lights.problems.isEmpty)
        #expect(try lights.feedbackTable()[.accepted] == FeedbackTable.default[.accepted])
        #expect(file.receiptPrinter == ReceiptPrinterConfiguration(path: "/dev/kiosk-printer", paper: .mm58))
    }

    @Test func unknownRoleIsAnError() {
        let json = #"{"outputs": {"blue": {"chip": "gpiochip0", "offset": 1}}}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LightsAndButtonsConfiguration.self, from: Data(json.utf8))
        }
    }

    @Test func twoRolesOnOneLineAreReported() {
        let configuration = LightsAndButtonsConfiguration(
            outputs: [.green: GPIOPin(chip: "gpiochip0", offset: 17), .buzzer: GPIOPin(chip: "gpiochip0", offset: 4)],
            buttons: [.confirm: GPIOPin(chip: "gpiochip0", offset: 17, activeLow: true)],
            debounceMilliseconds: 0)
        #expect(
            configuration.problems == [
                "'confirm' and 'green' are both on gpiochip0 line 17", "the button debounce must be 1 to 500 ms",
            ])
    }

    @Test func configurationRoundTripsThroughJSON() throws {
        let configuration = LightsAndButtonsConfiguration(
            outputs: [.red: GPIOPin(chip: "label:pinctrl-rp1", offset: 27)],
            buttons: [.cancel: GPIOPin(chip: "/dev/gpiochip4", offset: 6, activeLow: true, bias: .pullUp)],
            debounceMilliseconds: 25,
            patterns: [.error: FeedbackSequence(steps: [FeedbackStep(on: [.red], milliseconds: 200)])])
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(LightsAndButtonsConfiguration.self, from: data) == configuration)
    }
}
