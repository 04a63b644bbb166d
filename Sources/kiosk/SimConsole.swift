import ArgumentParser
import Dispatch
import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskPrinter
import KioskStore

/// `kiosk simulate console`: the consent conversation as text, on a simulated kiosk's state directory, for tests and
/// demonstrations. On a board there is no such path: a card's stays are shown and shared only in its holder's session
/// on the kiosk's own screen, after their PIN. Questions go to standard output, answers come from standard input.
struct SimConsole: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "A simulated kiosk's card holder shares stays after a positive test, as text.",
        discussion: """
            Only for a simulated kiosk's state directory (one `kiosk run --simulate` made), and only for a card \
            without a PIN: on a board, stays are shown and shared only in the holder's session on the kiosk's \
            screen. Asks for the card's printed code (unless --card is given), lists the card's stays of the last \
            14 days with none selected, asks when symptoms began and how the reports should leave (print, export, \
            upload), tells what sharing risks, shows exactly what will leave the kiosk and asks yes or no. Type q \
            (or end the input, Ctrl-D) at any question to stop: nothing is then written, printed or sent.

            Exit status: 0 when the reports left the kiosk, 1 when the conversation was stopped or the output \
            failed, 2 when the holder said no, 3 when there was nothing to report, 64 for bad options or a state \
            directory this console may not open.
            """
    )

    @Option(help: "The simulated kiosk's state directory (holds the check-in store).")
    var stateDir = Simulate.defaultStateDirectory

    @Option(help: "The card's printed code (KC1-…); asked for when absent.")
    var card: String?

    @Option(
        help:
            "The receipt printer's device (/dev/usb/lp0, a serial port); a plain file is refused (it would keep the receipt)."
    )
    var printer: String?

    @Option(help: "The paper width of the printer: 58 or 80 (mm).")
    var paper = 58

    @Option(help: "The printer's code page: cp1252 (Windows-1252) or cp858 (for printers without WPC1252).")
    var codePage = PrinterCodePage.cp1252.rawValue

    @Option(help: "The folder exports go to when none is named (the mounted USB stick).")
    var exportDir: String?

    @Option(help: "The health authority's address (e.g. https://authority.example); uploads go to <URL>/v1/reports.")
    var authority: String?

    @Option(help: .hidden)
    var now: Int64?

    func validate() throws {
        guard paper == 58 || paper == 80 else { throw ValidationError("--paper is 58 or 80.") }
        guard PrinterCodePage(rawValue: codePage) != nil else {
            throw ValidationError(
                "--code-page is \(PrinterCodePage.allCases.map(\.rawValue).joined(separator: " or ")).")
        }
        if let authority, !(authority.hasPrefix("https://") || authority.hasPrefix("http://")) {
            throw ValidationError("--authority must be an http:// or https:// address.")
        }
        if let card {
            do { _ = try CardSecret(printedText: card) } catch {
                throw ValidationError("--card: \(error).")
            }
        }
        if let now, now < 0 { throw ValidationError("--now is UNIX seconds.") }
    }

    func run() async throws {
        let crypto = OpenSSLCrypto()
        let storePath = stateDir + "/" + SQLiteCheckInStore.fileName
        guard FileManager.default.fileExists(atPath: storePath) else {
            Console.error("There is no check-in store in \(stateDir): check --state-dir.")
            throw ExitCode(64)
        }
        guard Simulate.isSimulatedStateDirectory(stateDir) else {
            Console.error(
                "\(stateDir) is not a simulated kiosk's state directory. On a board, a card's stays are shown and "
                    + "shared only in its holder's session on the kiosk's screen, after their PIN.")
            throw ExitCode(64)
        }
        let store: SQLiteCheckInStore
        do { store = try SQLiteCheckInStore(directory: stateDir) } catch {
            Console.error("The check-in store cannot be opened: \(error)")
            throw ExitCode(1)
        }
        let now = self.now ?? Int64(Date().timeIntervalSince1970)
        let desk = CheckInDesk(store: store, crypto: crypto)
        let reading = ClockReading(now: Date(timeIntervalSince1970: TimeInterval(now)), isSynchronized: true)
        let delivery = ReportDelivery(
            printer: printer.map { AttendedPrinter(device: PrinterDevice(path: $0)) },
            paper: paper == 80 ? .mm80 : .mm58, codePage: PrinterCodePage(rawValue: codePage) ?? .cp1252,
            uploader: authority.map { ReportUploader(endpoint: Self.uploadEndpoint($0)) },
            exportDirectory: exportDir)
        var conversation = ReportConversation(now: now, delivery: delivery, crypto: crypto) {
            card throws(StayLoadError) in
            try desk.reportableStaysWithoutPIN(of: card, clock: reading)
        }
        let secret = try card.map { try CardSecret(printedText: $0) }
        let input = LineReader()
        let ending = await conversation.run(card: secret) { prompt in
            Console.show(prompt)
            return await input.next()
        }
        Console.write(ending.message + "\n")
        if let secret, !conversation.deliveredStayIDs.isEmpty {
            // The holder's own report must not warn them at their next tap.
            _ = try? desk.markReported(conversation.deliveredStayIDs, of: secret)
        }
        switch ending.outcome {
        case .delivered: return
        case .declined: throw ExitCode(2)
        case .nothingToReport: throw ExitCode(3)
        case .aborted, .failed: throw ExitCode(1)
        }
    }

    /// `<URL>/v1/reports`, unless the address already names the upload path.
    static func uploadEndpoint(_ address: String) -> String {
        if address.hasSuffix("/v1/reports") { return address }
        return (address.hasSuffix("/") ? String(address.dropLast()) : address) + "/v1/reports"
    }
}

/// Writing prompts to standard output, unbuffered, so a terminal or a script sees each question before it answers.
enum Console {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func show(_ prompt: ConversationPrompt) {
        var text = "\n"
        if let problem = prompt.problem {
            text += "! \(problem)\n"
        }
        if prompt.problem == nil || prompt.kind == .staySelection {
            for line in prompt.lines { text += line + "\n" }
        }
        let width = prompt.choices.map(\.answer.count).max() ?? 0
        for choice in prompt.choices {
            text +=
                "  " + choice.answer.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + choice.label + "\n"
        }
        text += prompt.question + " "
        write(text)
    }
}

/// Reads standard input line by line on its own thread (a blocking `read` never runs on the cooperative pool).
final class LineReader: Sendable {
    private let queue = DispatchQueue(label: "kiosk-console-input")

    /// The next line without its line break, or nil at the end of input.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: readLine(strippingNewline: true))
            }
        }
    }
}
