import Foundation
import KioskCamera
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// `kiosk simulate console` end to end: the built binary, a store with check-ins made through `CheckInDesk`, answers piped in.
@Suite struct ReportCommandTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_764_000_000  // 2025-11-24 16:00 UTC
    let venueId = [UInt8](repeating: 0x5A, count: 32)

    /// A state directory with one card's stay: 3 days ago, 13:00–14:30 UTC at a bakery.
    struct Kiosk {
        let root: String
        var stateDir: String { root + "/state" }
        var exportDir: String { root + "/stick" }
        let card: CardSecret
        let stayStart: Int64
        let stayEnd: Int64

        func remove() { try? FileManager.default.removeItem(atPath: root) }

        func exported() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: exportDir)) ?? []).sorted()
        }
    }

    func makeKiosk(crowdNotifier: CrowdNotifierVenueKeys? = nil) throws -> Kiosk {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-report-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root + "/stick", withIntermediateDirectories: true)
        // A simulated kiosk's state directory: the console opens no other.
        try FileManager.default.createDirectory(atPath: root + "/state/simulation", withIntermediateDirectories: true)
        let store = try SQLiteCheckInStore(directory: root + "/state")
        let desk = CheckInDesk(store: store, crypto: crypto)
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let venue = StayVenue(
            locationId: venueId, description: "Bakery Rose", address: "Main Street 1",
            autoCheckout: AutoCheckoutRule(maximumStay: 4 * 3600), crowdNotifier: crowdNotifier)
        let start = (now / 86_400 - 3) * 86_400 + 13 * 3600
        let end = start + 90 * 60
        for time in [start, end] {
            let outcome = desk.tap(
                card, at: venue,
                clock: ClockReading(now: Date(timeIntervalSince1970: TimeInterval(time)), isSynchronized: true))
            if case .refused(let why) = outcome { Issue.record("tap refused: \(why)") }
        }
        return Kiosk(root: root, card: card, stayStart: start, stayEnd: end)
    }

    func report(
        _ kiosk: Kiosk, _ extra: [String] = [], card: Bool = true, answers: [String], endWithNewline: Bool = true
    ) throws -> CommandRunner.Result {
        var arguments = [
            "simulate", "console", "--state-dir", kiosk.stateDir, "--export-dir", kiosk.exportDir, "--now", String(now),
        ]
        if card { arguments += ["--card", kiosk.card.printedText] }
        return try CommandRunner.run(
            arguments + extra, input: answers.joined(separator: "\n") + (endWithNewline ? "\n" : ""))
    }

    /// The reports that should leave for the kiosk's stay with `symptoms`.
    func expectedReports(_ kiosk: Kiosk, symptoms: SymptomIndication) -> [PresenceReport] {
        StayPreparation.reports(stayStart: kiosk.stayStart, stayEnd: kiosk.stayEnd, reportTime: now, symptoms: symptoms)
    }

    func opened(_ batch: ReportBatch) throws -> [PresenceReport] {
        let keys = try CKPR.deriveKeys(locationId: venueId, crypto: crypto)
        var reports = [PresenceReport]()
        for record in batch.records {
            for day in (now / 86_400 - 15)...(now / 86_400) {
                if let report = try? CKPR.open(record, day: UInt32(day), keys: keys) { reports.append(report) }
            }
        }
        return reports
    }

    @Test func exportWritesFilesThatReopenWithTheVenuesLocationId() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let onset = TimeText.date(unixSeconds: now - 4 * 86_400)
        let result = try report(kiosk, answers: ["1", "done", "onset \(onset)", "export", "ok", "yes"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // The conversation showed the stay (name and window), the disclosure and the preview before the question.
        #expect(
            result.stdout.contains(
                "[ ] 1. Bakery Rose, Main Street 1 — \(TimeText.dateTime(unixSeconds: kiosk.stayStart))–"))
        let disclosure = try #require(result.stdout.range(of: "can reveal who you are"))
        let question = try #require(result.stdout.range(of: "Share these reports? Type yes or no:"))
        #expect(disclosure.upperBound < question.lowerBound)
        #expect(result.stdout.contains("Yes, share") && result.stdout.contains("No, do not share"))
        #expect(result.stdout.contains("Written: 1 report"))

        let names = kiosk.exported()
        // The batch, its text, the CWA submission, the CrowdNotifier upload (decoys only here), the read-me.
        #expect(names.count == 5)
        let batchName = try #require(names.first { $0.hasSuffix(".ckpb") })
        let batch = try ReportBatch(
            bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: kiosk.exportDir + "/" + batchName))))
        let textName = try #require(names.first { $0.hasSuffix(".txt") && !$0.contains("read-me") })
        let text = try String(contentsOfFile: kiosk.exportDir + "/" + textName, encoding: .utf8)
        #expect(try ReportBatch(text: text.trimmingCharacters(in: .whitespacesAndNewlines)) == batch)
        let expected = expectedReports(kiosk, symptoms: .symptomOnset(day: now / 86_400 - 4))
        #expect(expected.count == 1)
        #expect(try opened(batch) == expected)
        // The preview the holder saw names exactly that window, and how strongly it counts in words.
        let report = try #require(expected.first)
        let weight = Catalog.english[Preview.weight(ofLevel: report.transmissionRiskLevel)]
        #expect(
            result.stdout.contains(
                "\(TimeText.day(report.day)) \(TimeText.intervalWindow(report)) UTC. \(weight)"), "\(result.stdout)")
        // The stick has the date and the files, not the window or level the holder saw on screen.
        let readMe = try String(
            contentsOfFile: kiosk.exportDir + "/" + #require(names.first { $0.contains("read-me") }), encoding: .utf8)
        #expect(
            !readMe.contains("Bakery") && !readMe.contains("risk") && !readMe.contains(TimeText.intervalWindow(report)))
    }

    /// A stay at a SwissCovid venue (13:00–14:30 UTC), shared from the console: the preview shows its two parts of
    /// hours for SwissCovid's server, and the stick's `UserUploadPayload` holds exactly those entries among decoys.
    @Test func aSwissCovidStayIsSharedForSwissCovidsServerToo() throws {
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let kiosk = try makeKiosk(crowdNotifier: keys)
        defer { kiosk.remove() }
        let result = try report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "yes"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout.contains(
                "Bakery Rose, Main Street 1, \(TimeText.date(unixSeconds: kiosk.stayStart)), 13:00–14:00, 14:00–14:30 UTC: "
                    + "also sent for the warning apps SwissCovid and NotifyMe"), "\(result.stdout)")
        #expect(result.stdout.contains("for SwissCovid's server"))
        let name = try #require(kiosk.exported().first { $0.hasSuffix(".crowdnotifier-upload.pb") })
        let entries = try CrowdNotifierUploadPayload.entries(
            in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: kiosk.exportDir + "/" + name))))
        let real = try CrowdNotifierUploadEntry.entries(
            keys: keys, startMs: kiosk.stayStart * 1000, endMs: kiosk.stayEnd * 1000, crypto: crypto)
        #expect(real.count == 2 && entries.count == 16)
        #expect(real.allSatisfy { entries.contains($0) })
    }

    @Test func decliningWritesNothing() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let result = try report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "no"])
        #expect(result.status == 2)
        #expect(result.stdout.contains("Nothing was shared"))
        #expect(kiosk.exported().isEmpty)
    }

    @Test(arguments: 0..<6)
    func endOfInputMidFlowWritesNothing(_ answered: Int) throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let script = ["1", "done", "symptoms", "export", "ok", "yes"]
        let result = try report(kiosk, answers: Array(script.prefix(answered)), endWithNewline: answered > 0)
        #expect(result.status == 1)
        #expect(result.stdout.contains("Stopped. Nothing was shared"))
        #expect(kiosk.exported().isEmpty)
    }

    @Test func badAnswersAreAskedAgainWithAMessage() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let result = try report(
            kiosk, card: false,
            answers: [
                "KC1-NOT-A-CARD", kiosk.card.printedText,
                "done", "9", "1", "done",
                "tomorrow", "week",
                "print", "export /no/such/stick", "export",
                "", "ok",
                "", "perhaps", "yes",
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for message in [
            "That card code was not accepted", "Nothing is selected yet", "“9” is not a stay number",
            "“tomorrow” is not one of the answers", "No receipt printer is set up",
            "There is no folder at /no/such/stick",
            "Type ok once you have read this", "Please answer yes or no: there is no default.",
        ] {
            #expect(result.stdout.contains("! " + message), "missing: \(message)")
        }
        // The typed card code is never echoed in a message.
        #expect(!result.stdout.contains(kiosk.card.printedText))
        #expect(kiosk.exported().count == 5)
    }

    @Test func printedReceiptDecodesBackIntoTheBatch() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let printer = try PipePrinter(path: kiosk.root + "/lp0")
        defer { printer.stop() }
        let result = try report(
            kiosk, ["--printer", printer.path, "--code-page", "cp858"],
            answers: ["1", "done", "symptoms", "print", "ok", "yes"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let bytes = printer.received()
        #expect(bytes.starts(with: [0x1B, 0x40, 0x1B, 0x74, 19]), "ESC t 19: the code page asked for")
        let rendering = try ESCPOSInterpreter.render(bytes, paper: .mm58)
        let scanner = try ZBarImageScanner()
        let codes = try scanner.scan(
            GreyImage(width: rendering.width, height: rendering.height, pixels: rendering.pixels))
        let parts = try codes.map { try ReportBatch(text: $0.text) }
        #expect(parts.flatMap(\.records).count == 16)
        let batch = try ReportBatch(records: parts.flatMap(\.records))
        #expect(try opened(batch) == expectedReports(kiosk, symptoms: .symptomsWithoutDate))
        #expect(!rendering.lines.contains { $0.text.contains("Bakery") })
        #expect(kiosk.exported().isEmpty)
    }

    @Test func aMissingPrinterOffersAnotherWayAndAsksAgain() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let result = try report(
            kiosk, ["--printer", kiosk.root + "/no-printer"],
            answers: ["1", "done", "symptoms", "print", "ok", "yes", "export", "ok", "yes"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("The receipt could not be printed"))
        #expect(result.stdout.contains("retry"))
        // Consent was asked again for the export.
        #expect(result.stdout.components(separatedBy: "Share these reports? Type yes or no:").count == 3)
        #expect(kiosk.exported().count == 5)
        #expect(!FileManager.default.fileExists(atPath: kiosk.root + "/no-printer"))
    }

    /// On a board there is no text path to a card's stays: `kiosk report` is gone, the simulation's console opens
    /// only a simulated kiosk's state directory, and never a card with a PIN.
    @Test func noConsoleReadsABoardsCardsOrACardWithAPIN() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let gone = try CommandRunner.run(["report", "--state-dir", kiosk.stateDir, "--card", kiosk.card.printedText])
        #expect(gone.status != 0 && !gone.stdout.contains("Bakery"))

        // A board's state directory (no simulation folder): refused before any stay is read.
        try FileManager.default.removeItem(atPath: kiosk.stateDir + "/simulation")
        let board = try report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "yes"])
        #expect(board.status == 64)
        #expect(board.stderr.contains("not a simulated kiosk's state directory"))
        #expect(!board.stdout.contains("Bakery") && kiosk.exported().isEmpty)
        // Nor does a simulated kiosk start on it (and a board's daemon refuses a simulated kiosk's).
        let simulated = try CommandRunner.run(["run", "--simulate", "--state-dir", kiosk.stateDir])
        #expect(simulated.status == 2 && simulated.stderr.contains("is not a simulated kiosk's"), "\(simulated.stderr)")

        // A card with a PIN: its stays are not listed.
        try FileManager.default.createDirectory(
            atPath: kiosk.stateDir + "/simulation", withIntermediateDirectories: true)
        let store = try SQLiteCheckInStore(directory: kiosk.stateDir)
        try CheckInDesk(store: store, crypto: crypto).setPIN("2468", of: kiosk.card)
        let guarded = try report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "yes"])
        #expect(guarded.status == 1)
        #expect(guarded.stdout.contains("protected by a PIN"))
        #expect(!guarded.stdout.contains("Bakery") && kiosk.exported().isEmpty)
    }

    @Test func badOptionsAreRefusedClearly() throws {
        let kiosk = try makeKiosk()
        defer { kiosk.remove() }
        let wrongCard = try CommandRunner.run([
            "simulate", "console", "--state-dir", kiosk.stateDir, "--card", "KC1-0000",
        ])
        #expect(wrongCard.status == 64)
        #expect(wrongCard.stderr.contains("--card"))
        let wrongCodePage = try CommandRunner.run([
            "simulate", "console", "--state-dir", kiosk.stateDir, "--code-page", "utf8",
        ])
        #expect(wrongCodePage.status == 64)
        #expect(wrongCodePage.stderr.contains("--code-page is cp1252 or cp858."))
        let noStore = try CommandRunner.run(["simulate", "console", "--state-dir", kiosk.root + "/nothing-here"])
        #expect(noStore.status == 64)
        #expect(noStore.stderr.contains("no check-in store"))
        #expect(!FileManager.default.fileExists(atPath: kiosk.root + "/nothing-here"))
    }
}
