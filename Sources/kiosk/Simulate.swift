import ArgumentParser
import Foundation
import KioskCore
import KioskDaemon
import KioskOpenSSL
import KioskSimulation
import KioskStore

/// `kiosk simulate …`: drives a kiosk started with `kiosk run --simulate`.
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a simulated kiosk (started with `kiosk run --simulate`).",
        discussion: """
            Every command prints what a person at the kiosk would see (screen, lights, printer); with --json, the \
            kiosk's answer as one JSON object: {"ok", "lines", "steps": [{"type", "title", "body", "kind", …}], "data"}. \
            Exit status 0 when the kiosk did what was asked, 1 when it refused or failed, 3 when no kiosk answers.
            """,
        subcommands: [
            SimStatus.self, SimStaff.self, SimStaffCommand.self, SimEnrol.self, SimTap.self, SimMakeDiaryCard.self,
            SimRemove.self,
            SimShowCode.self, SimPress.self, SimChoose.self, SimButton.self, SimType.self, SimScreen.self,
            SimAdvance.self, SimClock.self, SimLights.self, SimReceipts.self, SimSync.self, SimLoadWarnings.self,
            SimReport.self, SimConsole.self,
        ]
    )

    static var defaultStateDirectory: String {
        let base =
            ProcessInfo.processInfo.environment["XDG_STATE_HOME"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return (base as NSString).appendingPathComponent("kiosk-simulation")
    }

    /// Whether `stateDirectory` is a simulated kiosk's: it holds the `simulation` folder that `kiosk run --simulate`
    /// makes (the simulated staff code lives there). A board's daemon refuses such a directory, a simulated kiosk
    /// refuses a board's (a check-in store without it), and the simulation's staff console opens only these, so the
    /// console never reads a board's cards.
    static func isSimulatedStateDirectory(_ stateDirectory: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(
            atPath: SimulatedHardware.folder(inStateDirectory: stateDirectory), isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// Refuses a state directory of the other kind (see `isSimulatedStateDirectory`), with what to do instead.
    static func checkStateDirectoryKind(_ stateDirectory: String, simulate: Bool) -> String? {
        let simulated = isSimulatedStateDirectory(stateDirectory)
        let hasStore = FileManager.default.fileExists(
            atPath: (stateDirectory as NSString).appendingPathComponent(SQLiteCheckInStore.fileName))
        if !simulate && simulated {
            return "\(stateDirectory) belongs to a simulated kiosk (it holds a simulation folder): "
                + "give the board its own state directory."
        }
        if simulate && hasStore && !simulated {
            return "\(stateDirectory) holds a kiosk's check-ins but is not a simulated kiosk's: "
                + "give the simulation another state directory (--state-dir)."
        }
        return nil
    }

    /// The simulated kiosk's staff code: created once, kept in the state directory (mode 0600).
    static func staffCode(stateDirectory: String) throws -> String {
        let directory = SimulatedHardware.folder(inStateDirectory: stateDirectory)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let path = (directory as NSString).appendingPathComponent("staff-code")
        if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
            !text.isEmpty
        {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let bytes = try OpenSSLCrypto().randomBytes(count: 16)
        let code = "KIOSK-STAFF:" + bytes.map { String(format: "%02X", $0) }.joined()
        FileManager.default.createFile(atPath: path, contents: Data(code.utf8), attributes: [.posixPermissions: 0o600])
        return code
    }

    /// Sends `request` and prints the answer; exits 1 when the kiosk refused, 3 when none answers.
    static func send(_ request: ControlRequest, stateDirectory: String, json: Bool, dataOnly: Bool = false) async throws
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = String(decoding: try encoder.encode(request), as: UTF8.self)
        let path = KioskDaemon.controlSocketPath(stateDirectory: stateDirectory)
        let answer: String
        do {
            answer = try await ControlSocketServer.request(line, to: path, timeout: .seconds(60))
        } catch .messageTooLarge {
            // The kiosk did answer: the command's outcome is unknown here, not "no kiosk".
            stderrLine("The kiosk's answer is larger than this command reads; nothing else is known of the outcome.")
            throw ExitCode(1)
        } catch {
            stderrLine("\(error)")
            throw ExitCode(3)
        }
        guard let response = try? JSONDecoder().decode(ControlResponse.self, from: Data(answer.utf8)) else {
            stderrLine("The kiosk's answer could not be read.")
            throw ExitCode(3)
        }
        if json {
            print(dataOnly ? (response.data ?? answer) : answer)
        } else {
            for text in response.lines { print(text) }
        }
        if !response.ok { throw ExitCode(1) }
    }
}

struct SimulatorOptions: ParsableArguments {
    @Option(help: "The simulated kiosk's state directory.")
    var stateDir: String = Simulate.defaultStateDirectory

    @Flag(help: "Print the kiosk's answer as JSON.")
    var json = false

    func send(_ request: ControlRequest, dataOnly: Bool = false) async throws {
        try await Simulate.send(request, stateDirectory: stateDir, json: json, dataOnly: dataOnly)
    }
}

struct SimStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "The kiosk's state.")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "status"), dataOnly: true) }
}

struct SimStaff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff", abstract: "Open staff mode (as if the staff code were shown).")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "staff")) }
}

struct SimStaffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff-menu",
        abstract:
            "Choose from the staff menu: bind, create, rotate, reprint, enrol, enrol-staff, forget-staff, status-slip, wipe, wipe-confirm, leave."
    )
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The menu entry.") var entry: String
    @Option(help: "New venue: description.") var description: String?
    @Option(help: "New venue: address.") var address: String?
    @Option(help: "New venue: CWA type (1 … 12).") var type: String?
    @Option(help: "New venue: default stay in minutes.") var length: String?
    @Option(help: "New venue (temporary types): start, unix seconds.") var start: String?
    @Option(help: "New venue (temporary types): end, unix seconds.") var end: String?

    func run() async throws {
        var fields = [String: String]()
        fields["description"] = description
        fields["address"] = address
        fields["type"] = type
        fields["length"] = length
        fields["start"] = start
        fields["end"] = end
        try await options.send(ControlRequest(command: "staff-command", text: entry, fields: fields))
    }
}

struct SimEnrol: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrol", abstract: "Enrol emulated card N (in staff mode).")
    @OptionGroup var options: SimulatorOptions
    @Option(help: "The card's number.") var card: Int
    @Flag(help: "Enrol it as a staff card of this kiosk (it then opens staff mode).") var staff = false
    @Option(help: "The new holder's answer to “may this kiosk check your stays against warnings?”: yes or no.")
    var matching: String?
    @Option(help: "The new holder's PIN (4 to 6 digits), typed twice on the keypad; needs --matching.") var pin: String?
    func run() async throws {
        if let matching, !["yes", "no"].contains(matching) { throw ValidationError("--matching takes yes or no") }
        if pin != nil, matching == nil { throw ValidationError("--pin needs --matching (the question asked first)") }
        var fields = [String: String]()
        fields["matching"] = matching
        fields["pin"] = pin
        try await options.send(
            ControlRequest(command: staff ? "enrol-staff" : "enrol", card: card, fields: fields.isEmpty ? nil : fields))
    }
}

struct SimChoose: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "choose",
        abstract: "Touch a choice on the screen, by its id (`kiosk simulate screen` lists them), e.g. session, done.")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The choice's id.") var id: String
    func run() async throws { try await options.send(ControlRequest(command: "choose", text: id)) }
}

struct SimButton: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "button",
        abstract:
            "Press one of the two physical buttons: next (moves to the next choice) or choose (chooses it); hold "
            + "(either held for two seconds) says the screen aloud.")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "next, choose or hold") var button: String
    func run() async throws { try await options.send(ControlRequest(command: "navigate", button: button)) }
}

struct SimType: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type", abstract: "Type on the screen's keypad (a PIN, a verification code), then OK.")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The characters.") var text: String
    @Flag(help: "Do not press OK after the characters.") var noOK = false
    func run() async throws { try await options.send(ControlRequest(command: "type", text: text, flag: !noOK)) }
}

struct SimScreen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen", abstract: "What the screen shows now: text, list and choices (with their ids).")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "screen")) }
}

struct SimTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap", abstract: "Tap emulated card N (it stays on the reader until the next tap or `remove`).")
    @OptionGroup var options: SimulatorOptions
    @Option(help: "The card's number.") var card: Int?
    @Flag(help: "Tap a bank card instead (not a kiosk card).") var foreign = false
    @Flag(help: "Tap diary card N (a DESFire card of the region, docs/diary-card.md) instead of kiosk card N.")
    var diary = false
    @Option(
        help:
            "Where diary cards' memories are kept (diary-card-N.json), shared by simulated kiosks: the card walks between them (default: the kiosk's own simulation directory)."
    )
    var cardsDir: String?
    func run() async throws {
        if foreign {
            try await options.send(ControlRequest(command: "tap-foreign"))
        } else {
            guard let card else { throw ValidationError("say which card: --card N, or --foreign") }
            if diary {
                try await options.send(
                    ControlRequest(command: "tap-diary", card: card, path: cardsDir.map(absolutePath)))
            } else {
                try await options.send(ControlRequest(command: "tap", card: card))
            }
        }
    }
}

/// A file or folder named on the command line, as the kiosk (whose working directory is another) must find it.
func absolutePath(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

struct SimMakeDiaryCard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-diary-card",
        abstract: "Make new diary card N a diary card of the kiosk's region, as field staff do (docs/region.md).")
    @OptionGroup var options: SimulatorOptions
    @Option(help: "The card's number.") var card: Int
    @Option(help: "Where diary cards' memories are kept (as for `tap --diary`).") var cardsDir: String?
    @Option(help: "May the kiosks match its stays against warnings: yes or no (default: not answered).")
    var matching: String?
    @Option(help: "Its holder's language: en, de, fr or it.") var language: String?
    func run() async throws {
        var fields = [String: String]()
        if let matching {
            guard ["yes", "no"].contains(matching) else { throw ValidationError("--matching is yes or no") }
            fields["matching"] = matching
        }
        if let language {
            guard Language(rawValue: language) != nil else { throw ValidationError("--language is en, de, fr or it") }
            fields["language"] = language
        }
        try await options.send(
            ControlRequest(command: "make-diary-card", card: card, path: cardsDir.map(absolutePath), fields: fields))
    }
}

struct SimRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take the card off the reader.")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "remove")) }
}

struct SimShowCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-code", abstract: "Show a QR code to the camera: its text, or an image file (PNG/PGM).")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The code's text, or the path of an image.") var code: String
    func run() async throws {
        if FileManager.default.fileExists(atPath: code) {
            try await options.send(ControlRequest(command: "show-code", path: absolutePath(code)))
        } else {
            try await options.send(ControlRequest(command: "show-code", text: code))
        }
    }
}

struct SimPress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "press", abstract: "Press a button: confirm or cancel.")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "confirm or cancel") var button: String
    func run() async throws { try await options.send(ControlRequest(command: "press", button: button)) }
}

struct SimAdvance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advance", abstract: "Move the simulated time forward, e.g. 90m, 8h, 15d, 30s.")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "How far.") var duration: String
    func run() async throws {
        guard let seconds = Self.seconds(duration) else {
            throw ValidationError("durations look like 30s, 90m, 8h or 15d")
        }
        try await options.send(ControlRequest(command: "advance", seconds: seconds))
    }

    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last, let factor = units[unit], let value = Double(text.dropLast()), value > 0 else {
            return nil
        }
        return value * factor
    }
}

struct SimClock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock", abstract: "Mark the clock synchronized or not (as after a power cut).")
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "synchronized or unsynchronized") var state: String
    func run() async throws {
        guard state == "synchronized" || state == "unsynchronized" else {
            throw ValidationError("say synchronized or unsynchronized")
        }
        try await options.send(ControlRequest(command: "clock", flag: state == "synchronized"))
    }
}

struct SimLights: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lights", abstract: "The lights and sounds shown so far.")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "lights"), dataOnly: true) }
}

struct SimReceipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts", abstract: "The receipts printed so far (files in the state directory).")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "receipts"), dataOnly: true) }
}

/// Writes one line to standard error.
func stderrLine(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

struct SimSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Fetch warnings from the configured authority now.")
    @OptionGroup var options: SimulatorOptions
    func run() async throws { try await options.send(ControlRequest(command: "sync")) }
}

struct SimLoadWarnings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load-warnings",
        abstract: "Load warnings packages from a folder (a mounted USB stick), verified like downloads.",
        discussion: """
            The folder holds a copy of what the authority publishes: CKPW/1 (index.json, index.json.sig and the \
            packages beside them) and/or CWA hourly packages (cwa/twp/country/DE/hour/…). Every package must be signed \
            with the key configured for its format (warnings.publicKey, warnings.cwaPublicKey); others are refused. \
            Works against a board's kiosk too: --state-dir /var/lib/kiosk.
            """)
    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The folder (e.g. /media/usb).") var directory: String
    func run() async throws {
        try await options.send(ControlRequest(command: "load-warnings", path: absolutePath(directory)))
    }
}

struct SimReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Card N's holder shares stays after a positive test, answering the consent questions in order.",
        discussion: """
            The answers are those `kiosk simulate console` asks for, e.g.: --answer 1 --answer done --answer symptoms \
            --answer print --answer yes. Missing answers end the conversation with nothing sent.
            """)
    @OptionGroup var options: SimulatorOptions
    @Option(help: "The card's number.") var card: Int
    @Option(name: .customLong("answer"), help: "The next answer (repeat for each question).") var answers: [String] = []
    func run() async throws { try await options.send(ControlRequest(command: "report", card: card, answers: answers)) }
}
