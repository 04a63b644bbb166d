import Foundation
import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Logging

/// Benchmark: card placed → card secret read, through the real libnfc (`pn532_uart`) and the PN532 emulator on a
/// pseudo-terminal, with the kiosk's reader thread, per-card password (HKDF via OpenSSL), PWD_AUTH and FAST_READ.
///
///     kiosk-bench-nfc [--placements N] [--model ntag213|ntag215|ntag216] [--stops N] [--baud 115200]
@main
struct NFCBenchmark {
    static func main() async throws {
        var placements = 1000
        var stops = 50
        var model = NTAGModel.ntag215
        var baudRate: Int?
        var arguments = Array(CommandLine.arguments.dropFirst())
        while arguments.count >= 2 {
            let option = arguments.removeFirst()
            let value = arguments.removeFirst()
            switch option {
            case "--placements": placements = Int(value) ?? placements
            case "--stops": stops = Int(value) ?? stops
            case "--model": model = NTAGModel(rawValue: value) ?? model
            case "--baud": baudRate = Int(value)
            default: break
            }
        }
        let crypto = OpenSSLCrypto()
        let access = KioskCardAccess(cardKey: try crypto.randomBytes(count: 32), crypto: crypto)
        let content = CardContent(kind: .visitor, secret: try crypto.randomBytes(count: 32))
        let uid: [UInt8] = [0x04, 0x5A, 0x17, 0x22, 0x91, 0x6C, 0x80]

        let terminal = try PN532PseudoTerminal(
            emulator: PN532Emulator(card: .blank(model, uid: uid)), baudRate: baudRate)
        terminal.start()
        let connection = "pn532_uart:\(terminal.slavePath)"

        // Enrol the card once.
        var openTimes: [Duration] = []
        do {
            let start = ContinuousClock.now
            let device = try NFCDevice(connection: connection)
            openTimes.append(start.duration(to: .now))
            guard let target = try device.reselect() else { throw NFCError(code: .noSuchDevice) }
            try access.enrol(content, on: target, over: device)
        }
        guard let card = terminal.emulator.removeCard() else { throw NFCError(code: .targetReleased) }

        let reader = NFCReader(
            connection: connection, access: access, logger: Logger(label: "bench"),
            removalCheckInterval: .milliseconds(2))
        reader.start()
        var events = reader.events.makeAsyncIterator()
        var latencies: [Duration] = []
        latencies.reserveCapacity(placements)
        // Let the reader open the device and start polling before the first placement.
        while !terminal.emulator.withChip({ $0.isWaitingForCard }) { try await Task.sleep(for: .milliseconds(1)) }
        for _ in 0..<placements {
            let placed = ContinuousClock.now
            terminal.emulator.place(card)
            guard case .card(.kioskCard(let read))? = await events.next(), read == content else {
                throw NFCError(code: .unexpectedAnswer)
            }
            latencies.append(placed.duration(to: .now))
            terminal.emulator.removeCard()
            guard await events.next() == .removed else { throw NFCError(code: .unexpectedAnswer) }
            // Wait until the reader polls again, as it would before the next visitor arrives.
            while !terminal.emulator.withChip({ $0.isWaitingForCard }) { try await Task.sleep(for: .microseconds(200)) }
        }
        reader.stop()

        // Shutdown promptness: stop() while the reader is blocked in a poll.
        var stopTimes: [Duration] = []
        for _ in 0..<stops {
            let reader = NFCReader(connection: connection, access: access, logger: Logger(label: "bench"))
            reader.start()
            while !terminal.emulator.withChip({ $0.isWaitingForCard }) { try await Task.sleep(for: .milliseconds(1)) }
            let start = ContinuousClock.now
            reader.stop()
            stopTimes.append(start.duration(to: .now))
            let opened = ContinuousClock.now
            _ = try NFCDevice(connection: connection)  // the port is free again
            openTimes.append(opened.duration(to: .now))
        }
        terminal.stop()

        let pacing = baudRate.map { "replies paced at \($0) baud" } ?? "replies unpaced"
        print("kiosk-bench-nfc: \(model.rawValue), libnfc pn532_uart over a pseudo-terminal, emulated PN532, \(pacing)")
        report("card placed -> secret read", latencies)
        report("reader stop() during a poll", stopTimes)
        report("nfc_open + initiator init", openTimes)
    }

    static func report(_ name: String, _ samples: [Duration]) {
        let ms = samples.map(\.fractionalMilliseconds).sorted()
        guard !ms.isEmpty else { return }
        func pick(_ q: Double) -> Double { ms[min(ms.count - 1, Int((Double(ms.count) * q).rounded(.up)) - 1)] }
        let mean = ms.reduce(0, +) / Double(ms.count)
        print(
            "\(name): "
                + String(
                    format: "n=%d p50=%.2f ms p90=%.2f ms p99=%.2f ms max=%.2f ms mean=%.2f ms",
                    ms.count, pick(0.5), pick(0.9), pick(0.99), ms.last!, mean))
    }
}
