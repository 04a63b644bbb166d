// Runs KioskGPIO for real against a gpio-sim chip (inside the QEMU test VM, as root): creates the simulated chip
// through configfs, drives outputs and reads them back through gpio-sim's sysfs attributes, pulls inputs and checks
// the edges and the debounce, and checks the error paths. Prints one result line:
//   KIOSK-GPIO-CHECK: PASS checks=<n> stop-us=<µs>        or        KIOSK-GPIO-CHECK: FAIL <check>: <detail>
// and exits 0 or 1. Started by Tests/scripts/40-gpio-qemu.sh; it refuses to run where no gpio-sim can be created.

import Glibc
import KioskCore
import KioskGPIO
import Logging
import Synchronization
import SystemPackage

struct CheckFailure: Error {
    let check: String
    let detail: String
}

func fail(_ check: String, _ detail: String) -> CheckFailure { CheckFailure(check: check, detail: detail) }

func writeFile(_ path: String, _ text: String) throws(CheckFailure) {
    let fd = open(path, O_WRONLY)
    guard fd >= 0 else { throw fail("write \(path)", String(cString: strerror(errno))) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else {
        throw fail("write \(path)", String(cString: strerror(errno)))
    }
}

func readFile(_ path: String) throws(CheckFailure) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw fail("read \(path)", String(cString: strerror(errno))) }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(fd, &buffer, buffer.count)
    guard count >= 0 else { throw fail("read \(path)", String(cString: strerror(errno))) }
    return String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters()
}

extension String {
    func trimmingCharacters() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        return String(text)
    }
}

func sleepMilliseconds(_ ms: Int) async { try? await Task.sleep(for: .milliseconds(ms)) }

/// Creates a gpio-sim device with one bank of `lines` lines; returns (chip name, sysfs directory of the chip).
func makeSimulatedChip(lines: Int) throws(CheckFailure) -> (chip: String, sysfs: String) {
    let configfs = "/sys/kernel/config"
    if access("\(configfs)/gpio-sim", F_OK) != 0 {
        _ = mount("none", configfs, "configfs", 0, nil)
    }
    guard access("\(configfs)/gpio-sim", F_OK) == 0 else {
        throw fail(
            "gpio-sim", "no \(configfs)/gpio-sim: this kernel has no gpio-sim or configfs (run inside the test VM)")
    }
    let device = "\(configfs)/gpio-sim/kiosk-check"
    guard mkdir(device, 0o755) == 0, mkdir("\(device)/bank0", 0o755) == 0 else {
        throw fail("gpio-sim", "cannot create the simulated chip: \(String(cString: strerror(errno)))")
    }
    try writeFile("\(device)/bank0/num_lines", "\(lines)")
    try writeFile("\(device)/bank0/label", "kiosk-sim")
    try writeFile("\(device)/live", "1")
    let chip = try readFile("\(device)/bank0/chip_name")
    let deviceName = try readFile("\(device)/dev_name")
    return (chip, "/sys/devices/platform/\(deviceName)/\(chip)")
}

func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
}

final class EventLog: Sendable {
    let events = Mutex<[ButtonEvent]>([])
    let lastArrival = Mutex<Int>(0)
    func append(_ event: ButtonEvent) {
        events.withLock { $0.append(event) }
        lastArrival.withLock { $0 = monotonicMicroseconds() }
    }
    func take() -> [ButtonEvent] {
        events.withLock {
            let all = $0
            $0 = []
            return all
        }
    }
}

/// Runs the self-test while another consumer holds `busy`.
func selfTestWithBusyLine(_ busy: GPIOPin, _ configuration: LightsAndButtonsConfiguration) throws(GPIOError)
    -> [GPIOLineCheck]
{
    let holder = try OutputLine(busy, consumer: "another-program")
    let results = GPIOSelfTest.run(configuration)
    try holder.set(false)
    return results
}

func run() async throws -> (checks: Int, stopMicroseconds: Int, pressMicroseconds: Int) {
    var checks = 0
    let (chip, sysfs) = try makeSimulatedChip(lines: 8)
    func value(_ offset: Int) throws(CheckFailure) -> String { try readFile("\(sysfs)/sim_gpio\(offset)/value") }
    func pull(_ offset: Int, _ up: Bool) throws(CheckFailure) {
        try writeFile("\(sysfs)/sim_gpio\(offset)/pull", up ? "pull-up" : "pull-down")
    }
    func expectError(
        _ check: String, _ operation: GPIOError.Operation, _ errno: Int32,
        _ body: () throws(GPIOError) -> Void
    ) throws {
        do {
            try body()
            throw fail(check, "no error")
        } catch let error as GPIOError {
            guard error.operation == operation, error.errno.rawValue == errno else {
                throw fail(check, "got \(error.operation) errno \(error.errno.rawValue): \(error)")
            }
        } catch let error as CheckFailure {
            throw error
        } catch {
            throw fail(check, "unexpected \(error)")
        }
        checks += 1
    }

    // Error paths against the real chip: an offset past the last line, a label that does not exist, a busy line.
    try expectError("bad offset", .getLine, EINVAL) { () throws(GPIOError) in
        _ = try OutputLine(GPIOPin(chip: chip, offset: 99), consumer: "kiosk-check")
    }
    try expectError("unknown label", .openChip, ENOENT) { () throws(GPIOError) in
        _ = try OutputLine(GPIOPin(chip: "label:no-such-chip", offset: 0), consumer: "kiosk-check")
    }

    // Outputs by name, by path and by label, driven and read back through gpio-sim.
    do {
        let byName = try OutputLine(GPIOPin(chip: chip, offset: 0), consumer: "kiosk-check")
        let byPath = try OutputLine(GPIOPin(chip: "/dev/\(chip)", offset: 1), consumer: "kiosk-check")
        let byLabel = try OutputLine(GPIOPin(chip: "label:kiosk-sim", offset: 2), consumer: "kiosk-check")
        let inverted = try OutputLine(GPIOPin(chip: chip, offset: 3, activeLow: true), consumer: "kiosk-check")
        for on in [true, false, true, false] {
            try byName.set(on)
            try byPath.set(!on)
            try byLabel.set(on)
            try inverted.set(on)
            let seen = [try value(0), try value(1), try value(2), try value(3)]
            let expected = [on ? "1" : "0", on ? "0" : "1", on ? "1" : "0", on ? "0" : "1"]
            guard seen == expected else {
                throw fail("outputs", "set \(on), sysfs shows \(seen), expected \(expected)")
            }
            checks += 1
        }
        try expectError("busy line", .requestOutput, EBUSY) { () throws(GPIOError) in
            _ = try OutputLine(GPIOPin(chip: chip, offset: 0), consumer: "kiosk-check-2")
        }
    } catch let error as GPIOError {
        throw fail("outputs", error.description)
    }
    // Released: the line can be requested again.
    do {
        let again = try OutputLine(GPIOPin(chip: chip, offset: 0), consumer: "kiosk-check", initial: true)
        guard try value(0) == "1" else { throw fail("release", "re-requested line is not driven") }
        try again.set(false)
        checks += 1
    } catch let error as GPIOError {
        throw fail("release", error.description)
    }

    // The indicator plays a pattern from a configured table beside the caller and leaves the hold state lit; a newer
    // pattern replaces an older one; clear stops a playing pattern and turns all off.
    do {
        let table = try FeedbackTable.default.overriding(with: [
            .accepted: FeedbackSequence(
                steps: [
                    FeedbackStep(on: [.green, .buzzer], milliseconds: 20),
                    FeedbackStep(on: [.green], milliseconds: 20),
                ], hold: [.green]),
            .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red, .buzzer], milliseconds: 20)], hold: [.amber]),
        ])
        let indicator = try GPIOIndicator(
            pins: [
                .green: GPIOPin(chip: chip, offset: 0), .red: GPIOPin(chip: chip, offset: 1),
                .amber: GPIOPin(chip: chip, offset: 2), .buzzer: GPIOPin(chip: chip, offset: 3),
            ],
            table: table, consumer: "kiosk-check", logger: Logger(label: "kiosk-gpio-check"))
        // `show` sets the first step and returns; the pattern plays on beside the caller.
        await indicator.show(.accepted)
        var seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["1", "0", "0", "1"] else { throw fail("indicator", "right after showing accepted: \(seen)") }
        await indicator.waitUntilPlayed()
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["1", "0", "0", "0"] else { throw fail("indicator", "after accepted: \(seen)") }
        await indicator.show(.refused)
        await indicator.waitUntilPlayed()
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["0", "0", "1", "0"] else { throw fail("indicator", "after refused: \(seen)") }
        // A newer pattern replaces one still playing: the long warning gives way to an accepted tap, and none of the
        // warning's later steps (nor its amber hold) reach the lines, even after the warning would have ended.
        await indicator.show(.warningPending)
        await sleepMilliseconds(100)
        await indicator.show(.accepted)
        await indicator.waitUntilPlayed()
        await sleepMilliseconds(1_600)
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["1", "0", "0", "0"] else { throw fail("indicator", "after a replaced warning: \(seen)") }
        await indicator.clear()
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["0", "0", "0", "0"] else { throw fail("indicator", "after clear: \(seen)") }
        // Clearing while a pattern plays (shutdown) stops it: nothing is lit then, nor later.
        await indicator.show(.warningPending)
        guard try value(2) == "1" else { throw fail("indicator", "the warning pattern does not light amber") }
        await indicator.clear()
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["0", "0", "0", "0"] else { throw fail("indicator", "after clearing a playing warning: \(seen)") }
        await sleepMilliseconds(600)
        seen = [try value(0), try value(1), try value(2), try value(3)]
        guard seen == ["0", "0", "0", "0"] else { throw fail("indicator", "after clearing, later: \(seen)") }
        guard await indicator.lastError == nil else { throw fail("indicator", "a line failed") }
        checks += 1
    } catch let error as GPIOError {
        throw fail("indicator", error.description)
    } catch let error as FeedbackTableError {
        throw fail("indicator", error.description)
    } catch let error as CheckFailure {
        throw error
    } catch {
        throw fail("indicator", "\(error)")
    }

    // A single input line: a pull-up is a rising edge, a pull-down a falling one.
    do {
        try pull(4, false)
        let input = try InputLine(GPIOPin(chip: chip, offset: 4), consumer: "kiosk-check")
        try pull(4, true)
        guard try input.waitForEdge(timeout: .seconds(2)) else { throw fail("input", "no edge after pull-up") }
        guard try input.readEdge() == true else { throw fail("input", "pull-up was not a rising edge") }
        try pull(4, false)
        guard try input.waitForEdge(timeout: .seconds(2)) else { throw fail("input", "no edge after pull-down") }
        guard try input.readEdge() == false else { throw fail("input", "pull-down was not a falling edge") }
        guard try input.value() == false else { throw fail("input", "level is not low") }
        guard try input.waitForEdge(timeout: .milliseconds(50)) == false else { throw fail("input", "spurious edge") }
        checks += 1
        // The kernel delivers every edge of a bouncing contact: what the debounce below has to swallow.
        for up in [true, false, true, false, true] { try pull(4, up) }
        var edges = 0
        while try input.waitForEdge(timeout: .milliseconds(200)) {
            _ = try input.readEdge()
            edges += 1
        }
        guard edges >= 3 else { throw fail("input", "only \(edges) raw edges from 5 pulls") }
        checks += 1
    } catch let error as GPIOError {
        throw fail("input", error.description)
    }

    // Buttons with debounce: a bouncing press is one press, a glitch shorter than the debounce is nothing.
    var stopMicroseconds = 0
    var pressMicroseconds = 0
    do {
        try pull(5, false)
        try pull(6, true)  // the cancel button is wired active-low: idle high
        let monitor = try ButtonMonitor(
            buttons: [
                .confirm: GPIOPin(chip: chip, offset: 5), .cancel: GPIOPin(chip: chip, offset: 6, activeLow: true),
            ],
            debounce: .milliseconds(40), consumer: "kiosk-check")
        let log = EventLog()
        monitor.start()
        let reader = Task.detached {
            for await event in monitor.events { log.append(event) }
        }
        for up in [true, false, true, false, true] { try pull(5, up) }
        let lastPull = monotonicMicroseconds()
        await sleepMilliseconds(300)
        pressMicroseconds = log.lastArrival.withLock { $0 } - lastPull
        var got = log.take()
        guard got == [ButtonEvent(button: .confirm, pressed: true)] else {
            throw fail("debounce", "bouncing press gave \(got)")
        }
        checks += 1
        for up in [false, true, false, true, false] { try pull(5, up) }
        await sleepMilliseconds(300)
        got = log.take()
        guard got == [ButtonEvent(button: .confirm, pressed: false)] else {
            throw fail("debounce", "bouncing release gave \(got)")
        }
        checks += 1
        try pull(5, true)
        try pull(5, false)
        await sleepMilliseconds(300)
        got = log.take()
        guard got.isEmpty else { throw fail("debounce", "a glitch gave \(got)") }
        checks += 1
        try pull(6, false)  // active-low: pulling it low presses it
        await sleepMilliseconds(300)
        try pull(6, true)
        await sleepMilliseconds(300)
        got = log.take()
        guard got == [ButtonEvent(button: .cancel, pressed: true), ButtonEvent(button: .cancel, pressed: false)] else {
            throw fail("active-low button", "press and release gave \(got)")
        }
        checks += 1
        var before = timespec()
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        monitor.stop()
        clock_gettime(CLOCK_MONOTONIC, &after)
        stopMicroseconds = (after.tv_sec - before.tv_sec) * 1_000_000 + (after.tv_nsec - before.tv_nsec) / 1000
        await reader.value
        guard monitor.failure == nil else { throw fail("buttons", "monitor failed: \(monitor.failure!)") }
        checks += 1
    } catch let error as GPIOError {
        throw fail("buttons", error.description)
    }
    // The self-test passes on working lines and names the line another program holds.
    let configuration = LightsAndButtonsConfiguration(
        outputs: [
            .green: GPIOPin(chip: chip, offset: 0), .red: GPIOPin(chip: chip, offset: 1),
            .amber: GPIOPin(chip: "label:kiosk-sim", offset: 2), .buzzer: GPIOPin(chip: "/dev/\(chip)", offset: 3),
        ],
        buttons: [.confirm: GPIOPin(chip: chip, offset: 5), .cancel: GPIOPin(chip: chip, offset: 6, activeLow: true)])
    var results = GPIOSelfTest.run(configuration)
    guard results.count == 6, results.allSatisfy(\.passed) else {
        throw fail("selftest", "\(results.filter { !$0.passed }.map { $0.problem ?? "" })")
    }
    results = try selfTestWithBusyLine(GPIOPin(chip: chip, offset: 1), configuration)
    guard results.filter({ !$0.passed }).map(\.role) == ["red"],
        results.first(where: { $0.role == "red" })?.problem?.contains("already in use") == true
    else {
        throw fail("selftest", "with a busy line: \(results)")
    }
    checks += 1
    return (checks, stopMicroseconds, pressMicroseconds)
}

do {
    let (checks, stop, press) = try await run()
    // press-us: from the last bouncing edge to the debounced event (debounce 40 ms included); stop-us: stop() time.
    print("KIOSK-GPIO-CHECK: PASS checks=\(checks) press-us=\(press) stop-us=\(stop)")
    exit(0)
} catch let error as CheckFailure {
    print("KIOSK-GPIO-CHECK: FAIL \(error.check): \(error.detail)")
    exit(1)
} catch {
    print("KIOSK-GPIO-CHECK: FAIL unexpected: \(error)")
    exit(1)
}
