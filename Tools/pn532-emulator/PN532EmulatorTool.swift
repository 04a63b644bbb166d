import KioskCore
import KioskOpenSSL
import KioskSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// Test-support executable: a PN532 on a pseudo-terminal, controlled by lines on standard input.
///
///     pn532-emulator [--link PATH] [--card ntag213|ntag215|ntag216|ul11|ul21|classic|bank|desfire|desfire8k]
///                    [--uid HEX] [--desfire-memory FILE] [--exit-after SECONDS]
///
/// `desfire` and `desfire8k` are factory-fresh MIFARE DESFire EV1 4K and 8K cards (`EmulatedDESFire`); with
/// `--desfire-memory FILE` the DESFire card lives in FILE (`DESFireCardMemory`, created from a fresh card with the
/// UID when missing), which other emulators may share: a card walking from one reader to another.
///
/// Prints `ready <slave path>` once the pseudo-terminal serves. Commands on standard input, one a line:
/// `place MODEL [UID]`, `place-desfire FILE`, `remove`, `tear N` (NTAG writes), `tear-frames N` (DESFire frames),
/// `remove-after N`, `corrupt N`, `ignore N`, `quit`.
/// It exits at end of input, on `quit`, or after `--exit-after` seconds.
@main
struct PN532EmulatorTool {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var link: String?
        var card: EmulatedCard?
        var exitAfter: Double?
        var model = "ntag215"
        var uid = Hex.decode("04a1b2c3d4e5f6")!
        var placeCard = false
        var desfireMemory: String?
        while !arguments.isEmpty {
            let option = arguments.removeFirst()
            guard let value = arguments.first else { fail("\(option) needs a value") }
            arguments.removeFirst()
            switch option {
            case "--link": link = value
            case "--card":
                model = value
                placeCard = true
            case "--uid":
                guard let bytes = Hex.decode(value) else { fail("--uid needs hex digits") }
                uid = bytes
            case "--desfire-memory":
                desfireMemory = value
                placeCard = true
                if model == "ntag215" { model = "desfire" }
            case "--exit-after":
                guard let seconds = Double(value) else { fail("--exit-after needs a number of seconds") }
                exitAfter = seconds
            default: fail("unknown option \(option)")
            }
        }
        if placeCard {
            if let desfireMemory {
                card = desfireCard(
                    memory: desfireMemory, uid: uid, capacity: model == "desfire8k" ? .ev1_8K : .ev1_4K)
            } else {
                guard let made = makeCard(model, uid: uid) else { fail("unknown card \(model)") }
                card = made
            }
        }
        let emulator = PN532Emulator(card: card)
        let terminal: PN532PseudoTerminal
        do {
            terminal = try PN532PseudoTerminal(emulator: emulator, linkPath: link)
        } catch {
            fail(error.description)
        }
        terminal.start()
        if let exitAfter {
            alarm(UInt32(max(1, exitAfter.rounded(.up))))
        }
        say("ready \(terminal.slavePath)")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            let number = words.count > 1 ? Int(words[1]) : nil
            switch command {
            case "place":
                let uid = words.count > 2 ? (Hex.decode(words[2]) ?? uid) : uid
                guard words.count > 1, let card = makeCard(words[1], uid: uid) else {
                    say("error unknown card")
                    continue
                }
                emulator.place(card)
                say("ok placed")
            case "place-desfire":
                guard words.count > 1 else {
                    say("error place-desfire needs a file")
                    continue
                }
                emulator.place(desfireCard(memory: words[1], uid: uid, capacity: .ev1_4K))
                say("ok placed")
            case "tear-frames":
                emulator.inject(.tearAfterFrames(number ?? 0))
                say("ok")
            case "remove":
                emulator.removeCard()
                say("ok removed")
            case "tear":
                emulator.inject(.tearAfterWrites(number ?? 0))
                say("ok")
            case "remove-after":
                emulator.inject(.removeCardAfterCommands(number ?? 0))
                say("ok")
            case "corrupt":
                emulator.inject(.corruptReplies(number ?? 1))
                say("ok")
            case "ignore":
                emulator.inject(.ignoreCommands(number ?? 1))
                say("ok")
            case "quit":
                terminal.stop()
                return
            default:
                say("error unknown command")
            }
        }
        terminal.stop()
    }

    static func makeCard(_ name: String, uid: [UInt8]) -> EmulatedCard? {
        switch name {
        case "ntag213": uid.count == 7 ? .blank(.ntag213, uid: uid) : nil
        case "ntag215": uid.count == 7 ? .blank(.ntag215, uid: uid) : nil
        case "ntag216": uid.count == 7 ? .blank(.ntag216, uid: uid) : nil
        case "ul11": uid.count == 7 ? .blank(.ultralightEV1MF0UL11, uid: uid) : nil
        case "ul21": uid.count == 7 ? .blank(.ultralightEV1MF0UL21, uid: uid) : nil
        case "classic": .mifareClassic(uid: Array(uid.prefix(4)))
        case "bank": .bankCard
        case "desfire": uid.count == 7 ? .desfire(EmulatedDESFire(uid: uid, cipher: OpenSSLCrypto())) : nil
        case "desfire8k":
            uid.count == 7 ? .desfire(EmulatedDESFire(uid: uid, capacity: .ev1_8K, cipher: OpenSSLCrypto())) : nil
        default: nil
        }
    }

    /// The DESFire card kept in `memory` (a fresh one with `uid` when the file does not exist yet).
    static func desfireCard(memory path: String, uid: [UInt8], capacity: DESFireCapacity) -> EmulatedCard {
        guard uid.count == 7 else { fail("a DESFire UID is 7 bytes") }
        do {
            let card = try EmulatedDESFire(
                memory: DESFireCardMemory(path: path), initial: DESFireCardImage(uid: uid, capacity: capacity),
                cipher: OpenSSLCrypto())
            return .desfire(card)
        } catch {
            fail(error.description)
        }
    }

    static func say(_ text: String) {
        var line = Array((text + "\n").utf8)
        _ = write(1, &line, line.count)
    }

    static func fail(_ text: String) -> Never {
        var line = Array(("pn532-emulator: " + text + "\n").utf8)
        _ = write(2, &line, line.count)
        exit(2)
    }
}
