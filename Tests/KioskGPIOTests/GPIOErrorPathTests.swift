import Glibc
import KioskCore
import Logging
import SystemPackage
import Testing

@testable import KioskGPIO

/// The error paths of the libgpiod owners against the real libgpiod on a machine without any GPIO chip (the build and
/// CI machines). The working paths run against gpio-sim in the QEMU test (Tests/scripts/40-gpio-qemu.sh).
@Suite struct GPIOErrorPathTests {
    /// The chip name a Raspberry Pi uses, where this machine has none; else a name no machine has.
    static let absentChip = ((try? FileManagerLite.gpioChips()) ?? []).isEmpty ? "gpiochip0" : "gpiochip999"

    @Test func missingChipByNameIsENOENT() throws {
        let error = #expect(throws: GPIOError.self) {
            _ = try OutputLine(GPIOPin(chip: Self.absentChip, offset: 17), consumer: "kiosk-test")
        }
        #expect(error?.operation == .openChip)
        #expect(error?.errno == .noSuchFileOrDirectory)
        #expect(error?.chip == Self.absentChip)
        #expect(error?.description.contains("not found") == true)
        #expect(error?.description.contains("runs without lights") == true)
    }

    @Test func missingChipByPathIsENOENT() {
        let error = #expect(throws: GPIOError.self) {
            _ = try OutputLine(GPIOPin(chip: "/dev/gpiochip-kiosk-test-absent", offset: 0), consumer: "kiosk-test")
        }
        #expect(error?.operation == .openChip)
        #expect(error?.errno == .noSuchFileOrDirectory)
    }

    @Test func missingChipByLabelIsENOENT() {
        let error = #expect(throws: GPIOError.self) {
            _ = try InputLine(GPIOPin(chip: "label:kiosk-test-absent", offset: 0), consumer: "kiosk-test")
        }
        #expect(error?.operation == .openChip)
        #expect(error?.errno == .noSuchFileOrDirectory)
    }

    @Test(arguments: ["/dev/null", "/etc/hostname"])
    func somethingThatIsNotAChipIsRefused(path: String) {
        let error = #expect(throws: GPIOError.self) {
            _ = try OutputLine(GPIOPin(chip: path, offset: 0), consumer: "kiosk-test")
        }
        #expect(error?.operation == .openChip)
        #expect(error?.errno == .inappropriateIOCTLForDevice)
        #expect(error?.description.contains("is not a GPIO chip") == true)
    }

    @Test func indicatorWithoutChipFailsAtStart() {
        let error = #expect(throws: GPIOError.self) {
            _ = try GPIOIndicator(
                pins: [.green: GPIOPin(chip: "/dev/gpiochip-kiosk-test-absent", offset: 5)],
                logger: Logger(label: "test"))
        }
        #expect(error?.operation == .openChip)
    }

    @Test func buttonMonitorWithoutChipFailsAtStart() {
        let error = #expect(throws: GPIOError.self) {
            _ = try ButtonMonitor(buttons: [.confirm: GPIOPin(chip: "/dev/gpiochip-kiosk-test-absent", offset: 6)])
        }
        #expect(error?.operation == .openChip)
        #expect(error?.offset == nil)
    }

    @Test func messagesNameTheLineAndTheFix() {
        let badOffset = GPIOError(.getLine, chip: "gpiochip0", offset: 99, errno: .invalidArgument)
        #expect(badOffset.description.contains("line 99 on GPIO chip 'gpiochip0' does not exist"))
        let busy = GPIOError(.requestOutput, chip: "gpiochip0", offset: 4, errno: .resourceBusy)
        #expect(busy.description.contains("already in use"))
        let denied = GPIOError(.openChip, chip: "gpiochip0", offset: nil, errno: .permissionDenied)
        #expect(denied.description.contains("group 'gpio'"))
    }
}

/// The GPIO character devices present on this machine.
enum FileManagerLite {
    static func gpioChips() throws -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var chips: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("gpiochip") { chips.append(name) }
        }
        return chips
    }
}
