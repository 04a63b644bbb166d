import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskPKCS11
import KioskSimulation

/// Benchmark: a diary card's tap, card placed → stay durable on the card (CommitTransaction answered), through the
/// real libnfc (`pn532_uart`) and the PN532 emulator on a pseudo-terminal, its EV1 answering with the real card's
/// timing (`DESFireTiming`: air time at 106 kbit/s, processing, EEPROM programming), and the region's keys in a
/// SoftHSM2 token (every card key and stay key computed inside it). Then the holder's session: a full diary opened
/// (header, ring, every stay unsealed).
///
///     kiosk-bench-diary [--taps N] [--opens N] [--baud 115200]
///
/// Needs Debian's softhsm2 (`softhsm2-util`). Light and buzzer are not included: the station does not take diary
/// cards yet.
@main
struct DiaryBenchmark {
    static func main() async throws {
        var taps = 200
        var opens = 50
        var baudRate: Int? = 115_200
        var arguments = Array(CommandLine.arguments.dropFirst())
        while arguments.count >= 2 {
            let option = arguments.removeFirst()
            let value = arguments.removeFirst()
            switch option {
            case "--taps": taps = Int(value) ?? taps
            case "--opens": opens = Int(value) ?? opens
            case "--baud": baudRate = Int(value) == 0 ? nil : Int(value)
            default: break
            }
        }
        let crypto = OpenSSLCrypto()
        let token = try TemporaryToken()
        defer { token.remove() }
        let module = try token.load()
        defer { module.close() }
        let keys = PKCS11RegionKeys(
            session: try module.openSession(tokenLabel: "bench", pin: PKCS11PIN(TemporaryToken.pin)),
            regionName: "Benchmark")
        let today = DiaryCalendar.day(of: Date())
        try keys.setUp(today: today)

        let uid: [UInt8] = [0x04, 0x62, 0x19, 0x3A, 0x5B, 0x7C, 0x80]
        let terminal = try PN532PseudoTerminal(
            emulator: PN532Emulator(card: .desfire(EmulatedDESFire(uid: uid, cipher: crypto))), baudRate: baudRate)
        terminal.start()
        defer { terminal.stop() }
        let device = try NFCDevice(connection: "pn532_uart:\(terminal.slavePath)")
        func client() throws -> DESFireClient {
            guard let target = try device.poll(count: 1, period: 1),
                let card = try DESFireCard.identify(target, over: device, crypto: crypto)
            else { throw NFCError(code: .targetReleased) }
            return card.client
        }
        // A factory-new card (DES master key) made a diary card, as staff do at the station.
        let making = ContinuousClock.now
        let made = try DiaryCardMaker.make(client: try client(), keys: keys, crypto: crypto)
        let madeIn = making.duration(to: .now)
        guard var card = terminal.emulator.desfireCard else { throw NFCError(code: .targetReleased) }
        _ = terminal.emulator.removeCard()

        let desk = DiaryDesk(keys: keys, crypto: crypto)
        let venues = (0..<3).map { index in
            StayVenue(
                locationId: [UInt8](repeating: UInt8(index + 1), count: 32), description: "Venue \(index + 1)",
                address: "", autoCheckout: AutoCheckoutRule(maximumStay: 3 * 3600))
        }
        // A tap every 80 minutes (18 a day, under the daily limit of 20), ending today.
        let spacing: TimeInterval = 80 * 60
        let start = Date().addingTimeInterval(-Double(taps) * spacing)
        var tapTimes: [Duration] = []
        var frames: [Int] = []
        for index in 0..<taps {
            let clock = ClockReading(now: start.addingTimeInterval(Double(index) * spacing), isSynchronized: true)
            let placed = ContinuousClock.now
            terminal.emulator.place(.desfire(card))
            let before = terminal.emulator.withChip { $0.commandLog.count }
            let link = try DiaryCardLink.open(client: try client(), keys: keys, crypto: crypto)
            guard case .success(let tap) = desk.tap(link, at: venues[index % 3], clock: clock),
                case .checkedIn = tap.outcome
            else { throw NFCError(code: .unexpectedAnswer) }
            tapTimes.append(placed.duration(to: .now))
            frames.append(terminal.emulator.withChip { $0.commandLog.count } - before)
            link.close()
            guard let now = terminal.emulator.desfireCard else { throw NFCError(code: .targetReleased) }
            card = now
            _ = terminal.emulator.removeCard()
        }

        // The holder's session on a full diary.
        var openTimes: [Duration] = []
        var stayCount = 0
        for _ in 0..<opens {
            let clock = ClockReading(now: Date(), isSynchronized: true)
            let placed = ContinuousClock.now
            terminal.emulator.place(.desfire(card))
            let link = try DiaryCardLink.open(client: try client(), keys: keys, crypto: crypto)
            stayCount = try desk.stays(of: link, clock: clock).count
            openTimes.append(placed.duration(to: .now))
            link.close()
            _ = terminal.emulator.removeCard()
        }

        // What a tap asks of the token: the identify and diary keys, and the stay keys of two days (the open stay's
        // and the new one's), the older 13 ratchet steps from the token's oldest day key.
        var tokenTimes: [Duration] = []
        for _ in 0..<50 {
            let asked = ContinuousClock.now
            _ = try keys.cardKey(.identify, uid: [UInt8](repeating: 0, count: 7), aid: DiaryLayout.aid, generation: 1)
            _ = try keys.cardKey(.diary, uid: uid, aid: DiaryLayout.aid, generation: 1)
            _ = try keys.stayKeyMaterial(day: today - 1, uid: uid, today: today)
            _ = try keys.stayKeyMaterial(day: today, uid: uid, today: today)
            tokenTimes.append(asked.duration(to: .now))
        }

        let pacing = baudRate.map { "PN532 replies paced at \($0) baud" } ?? "PN532 replies unpaced"
        print(
            "kiosk-bench-diary: EV1 4K emulated with its timing, \(made.ringRecords)-record ring, libnfc pn532_uart,"
                + " \(pacing), region keys in SoftHSM2")
        report("factory card placed -> made a diary card", [madeIn])
        report("card placed -> tap durable on the card", tapTimes)
        let sortedFrames = frames.sorted()
        print("PN532 commands per tap: min=\(sortedFrames.first ?? 0) max=\(sortedFrames.last ?? 0)")
        report("region keys of one tap, in SoftHSM2", tokenTimes)
        report("card placed -> full diary opened (\(stayCount) stays)", openTimes)
    }

    static func report(_ name: String, _ samples: [Duration]) {
        let ms = samples.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }
            .sorted()
        guard !ms.isEmpty else { return }
        func pick(_ q: Double) -> Double { ms[min(ms.count - 1, Int((Double(ms.count) * q).rounded(.up)) - 1)] }
        let mean = ms.reduce(0, +) / Double(ms.count)
        print(
            "\(name): "
                + String(
                    format: "n=%d p50=%.1f ms p90=%.1f ms p99=%.1f ms max=%.1f ms mean=%.1f ms",
                    ms.count, pick(0.5), pick(0.9), pick(0.99), ms.last!, mean))
    }
}

/// A SoftHSM2 token of the benchmark's own, in a temporary directory (`SOFTHSM2_CONF`), removed at the end.
struct TemporaryToken {
    static let pin = "1234"
    let directory: String
    let configuration: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-bench-diary-\(UUID().uuidString)")
        let tokens = url.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        directory = url.path
        configuration = url.appendingPathComponent("softhsm2.conf").path
        try "directories.tokendir = \(tokens.path)\nobjectstore.backend = file\nlog.level = ERROR\n".write(
            toFile: configuration, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/softhsm2-util")
        process.arguments = ["--init-token", "--free", "--label", "bench", "--so-pin", "87654321", "--pin", Self.pin]
        process.environment = ["SOFTHSM2_CONF": configuration, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PKCS11Error.moduleNotLoadable(path: "/usr/bin/softhsm2-util", reason: "could not initialize a token")
        }
    }

    func load() throws(PKCS11Error) -> PKCS11Module {
        setenv("SOFTHSM2_CONF", configuration, 1)
        return try PKCS11Module(path: PKCS11Module.softHSM2Path)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
