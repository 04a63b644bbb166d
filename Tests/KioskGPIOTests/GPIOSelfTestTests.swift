import KioskCore
import KioskGPIO
import Testing

@Suite struct GPIOSelfTestTests {
    @Test func everyLineFailsWithTheFixWhenTheChipIsMissing() {
        let chip = "/dev/gpiochip-kiosk-test-absent"
        let configuration = LightsAndButtonsConfiguration(
            outputs: [.green: GPIOPin(chip: chip, offset: 17), .buzzer: GPIOPin(chip: chip, offset: 23)],
            buttons: [.confirm: GPIOPin(chip: chip, offset: 5, activeLow: true, bias: .pullUp)])
        let results = GPIOSelfTest.run(configuration)
        #expect(results.map(\.role) == ["green", "buzzer", "confirm"])
        #expect(results.allSatisfy { !$0.passed })
        #expect(results.allSatisfy { $0.problem?.contains("gpiodetect") == true })
    }

    @Test func nothingConfiguredIsNothingChecked() {
        #expect(GPIOSelfTest.run(LightsAndButtonsConfiguration()).isEmpty)
    }
}
