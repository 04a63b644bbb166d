import KioskCore
import KioskSimulation

#if canImport(Glibc)
    import Glibc
#endif

/// Test-support executable: a PN532 on a pseudo-terminal, controlled by lines on standard input.
///
///     pn532-emulator [--link PATH] [--card ntag213|ntag215|ntag216|ul11|ul21|classic|bank] [--uid HEX]
///                    [--exit-after SECONDS]
///
/// Prints `ready <slave path>` once the pseudo-terminal serves. Commands on standard input, one a line:
/// `place MODEL [UID]`, `remove`, `tear N`, `remove-after N`, `corrupt N`, `ignore N`, `quit`.
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
            case "--exit-after":
                guard let seconds = Double(value) else { fail("--exit-after needs a number of seconds") }
                exitAfter = seconds
            default: fail("unknown option \(option)")
            }
        }
        if placeCard {
            guard let made = makeCard(model, uid: uid) else { fail("unknown card \(model)") }
            card = made
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
        default: nil
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
