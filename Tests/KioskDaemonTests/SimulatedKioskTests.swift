import Foundation
import GRDB
import KioskCamera
import KioskCore
import KioskDaemon
import KioskOpenSSL
import KioskPrinter
import Testing

/// End-to-end: the real `kiosk run --simulate` process (real libnfc talking to the PN532 emulator, real libzbar,
/// real SQLite), driven through its control socket like `kiosk simulate`.
@Suite(.serialized) struct SimulatedKioskTests {
    /// A CWA venue code with a 2-hour default stay, shown to the camera as an image.
    /// The metric names in the first column of docs/daemon.md's metrics table.
    static func documentedMetrics() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/daemon.md"), encoding: .utf8)
        var names = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("| `kiosk_") {
            let cell = line.split(separator: "|")[0]
            for part in cell.split(separator: "`") where part.hasPrefix("kiosk_") {
                names.insert(String(part.prefix { $0.isLetter || $0 == "_" }))
            }
        }
        return names
    }

    static func venuePoster(in directory: String) throws -> (url: String, image: String) {
        let fields = CWAVenueEncoder.Fields(
            description: "Community hall", address: "Main street 1", type: 3,
            defaultCheckInLengthInMinutes: 120)
        let url = CWAVenueEncoder.url(
            payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 7, count: 16)))
        let matrix = try QREncoder.matrix(for: url)
        let scale = 4
        let quiet = 4
        let side = (matrix.size + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<matrix.size {
            for x in 0..<matrix.size where matrix[x, y] {
                for dy in 0..<scale {
                    for dx in 0..<scale { pixels[((y + quiet) * scale + dy) * side + (x + quiet) * scale + dx] = 0 }
                }
            }
        }
        let path = directory + "/venue.pgm"
        try Data(Array("P5\n\(side) \(side)\n255\n".utf8) + pixels).write(to: URL(fileURLWithPath: path))
        return (url, path)
    }

    /// Every sealed stay in the database, read with SQLite directly (as someone holding the kiosk's disk would).
    static func sealedStays(in directory: String) throws -> [[UInt8]] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: directory + "/checkins.sqlite", configuration: configuration)
        return try queue.read { database in
            try Data.fetchAll(database, sql: "SELECT sealed FROM stay").map { [UInt8]($0) }
        }
    }

    /// Whether any 16-byte piece of `needles` is still in a file of `directory`.
    static func leftovers(_ needles: [[UInt8]], in directory: String) throws -> [String] {
        var found = [String]()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name.hasPrefix("checkins.sqlite") {
            let contents = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            for needle in needles {
                var offset = 0
                while offset + 16 <= needle.count {
                    let piece = Array(needle[offset..<offset + 16])
                    if contents.firstRange(of: piece) != nil { found.append(name) }
                    offset += 16
                }
            }
        }
        return found
    }

    /// What the kiosk refuses is not "ok" (so `kiosk simulate` exits 1, as docs/daemon.md says): a code that is
    /// no check-in code, a tap the unbound kiosk cannot record; a stored tap is.
    @Test func refusedTapsAndCodesAreNotOK() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let code = try await kiosk.send(ControlRequest(command: "show-code", text: "HELLO-WORLD"))
        #expect(!code.ok, "\(code.lines)")
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let enrol = try await kiosk.send(ControlRequest(command: "enrol", card: 1))
        #expect(enrol.ok, "\(enrol.lines)")
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let unbound = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(!unbound.ok, "\(unbound.lines)")

        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let poster = try Self.venuePoster(in: directory)
        #expect(try await kiosk.send(ControlRequest(command: "show-code", path: poster.image)).ok)
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let stored = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(stored.ok && stored.tapOutcome == "checkedIn", "\(stored.lines)")
    }

    /// Speech on the simulated kiosk: holding a button says the screen with the real espeak-ng, written as a WAV
    /// file and its text under the simulation folder; the next screen interrupts and is said too; in French once
    /// French is chosen.
    @Test func aHeldButtonSaysTheScreenIntoTheSimulationsSpeechFolder() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let held = try await kiosk.send(ControlRequest(command: "navigate", button: "hold"))
        #expect(held.ok, "\(held.lines)")
        let said = held.steps.filter { $0.type == "spoke" }
        #expect(said.count == 1 && said.first?.kind == "en")
        let chosen = try await kiosk.send(ControlRequest(command: "choose", text: "language"))
        #expect(chosen.steps.contains { $0.type == "spoke" && ($0.body ?? "").contains("Français") })
        let french = try await kiosk.send(ControlRequest(command: "choose", text: "language:fr"))
        let frenchSaid = try #require(french.steps.last { $0.type == "spoke" })
        #expect(frenchSaid.kind == "fr")
        let speech = directory + "/simulation/speech"
        var files = [String]()
        // Each recording is written on the speaker's own thread: a bound only a hang could miss.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            files = ((try? FileManager.default.contentsOfDirectory(atPath: speech)) ?? []).sorted()
            if files.filter({ $0.hasSuffix(".txt") }).count >= 3 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(files.contains("0001.wav") && files.contains("0001.txt"), "\(files)")
        let first = try String(contentsOfFile: speech + "/0001.txt", encoding: .utf8)
        #expect(first.hasPrefix("en\n"))
        #expect(first.contains(said.first?.body ?? "-"))
        let third = try String(contentsOfFile: speech + "/0003.txt", encoding: .utf8)
        #expect(third.hasPrefix("fr\n") && third.contains(frenchSaid.body ?? "-"))
        let wav = try Data(contentsOf: URL(fileURLWithPath: speech + "/0001.wav"))
        #expect(wav.count > 20_000 && wav.prefix(4) == Data("RIFF".utf8))
    }

    /// Speech only when asked: the idle kiosk has not loaded espeak-ng (nor the sound libraries it brings); a held
    /// button loads it to say the screen; once the person who asked has left (their time ran out), it is unloaded
    /// again (all but PulseAudio's libraries, which cannot be). Read from the kiosk process's own memory map.
    @Test func espeakIsLoadedOnlyWhileAPersonAsksForSpeech() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let maps = "/proc/\(kiosk.process.processIdentifier)/maps"
        func mapped() throws -> Set<String> {
            // Read to the end: a /proc file says it is empty, and a reader that trusts its size stops early.
            let handle = try #require(FileHandle(forReadingAtPath: maps))
            defer { try? handle.close() }
            let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
            return Set(
                ["libespeak-ng", "libpcaudio", "libsonic", "libpulse", "libasound"].filter { text.contains($0) })
        }
        let idle = try mapped()
        #expect(idle.isEmpty, "loaded at idle: \(idle)")
        let held = try await kiosk.send(ControlRequest(command: "navigate", button: "hold"))
        #expect(held.steps.contains { $0.type == "spoke" }, "\(held.lines)")
        // The recording is made on the speaker's own thread: wait for it (a bound only a hang could miss).
        let speech = directory + "/simulation/speech/0001.wav"
        var deadline = ContinuousClock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: speech), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let speaking = try mapped()
        #expect(
            speaking.contains("libespeak-ng"),
            "\(speaking) \((try? FileManager.default.contentsOfDirectory(atPath: directory + "/simulation/speech")) ?? [])"
        )
        // The person does nothing more: their time runs out, the station stops speech, espeak-ng goes.
        let later = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        #expect(later.ok, "\(later.lines)")
        deadline = ContinuousClock.now + .seconds(120)
        while try mapped().contains("libespeak-ng"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // PulseAudio's client libraries, which espeak-ng's libpcaudio brings, are built never to be unloaded
        // (`-z nodelete`): they stay once loaded. espeak-ng itself, libpcaudio, libsonic and alsa-lib go.
        let left = try mapped().subtracting(["libpulse"])
        #expect(left.isEmpty, "still loaded: \(left)")
        // Asked again, it comes back.
        let again = try await kiosk.send(ControlRequest(command: "navigate", button: "hold"))
        #expect(again.steps.contains { $0.type == "spoke" }, "\(again.lines)")
        deadline = ContinuousClock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: directory + "/simulation/speech/0002.wav"),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/simulation/speech/0002.wav"))
    }

    /// A blind visitor who reads French, on the real simulated kiosk with the two buttons and speech only: asks
    /// for speech, chooses French and every later choice by listening, opens the session with the card, hears the
    /// stays, shares two with consent and has them printed. Each utterance is the screen it was said on (or its
    /// selected choice); the real espeak-ng's French recordings are in the speech folder; the receipt that came out
    /// reads in French (its text decoded from the printer's bytes) and its QR codes are the two reports' batch.
    @Test func aBlindVisitorInFrenchSharesTwoStaysAndTheReceiptReadsInFrench() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let poster = try Self.venuePoster(in: directory)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        #expect(try await kiosk.send(ControlRequest(command: "show-code", path: poster.image)).ok)
        var enrol = ControlRequest(command: "enrol", card: 1)
        enrol.fields = ["matching": "no"]
        #expect(try await kiosk.send(enrol).ok)
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        // Three stays, all ended, on one day (06:00 UTC on: none crosses midnight, so each is one record).
        let now = try await kiosk.status().time.timeIntervalSince1970
        let toMorning = (86_400 + 6 * 3600 - now.truncatingRemainder(dividingBy: 86_400))
            .truncatingRemainder(dividingBy: 86_400)
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: max(toMorning, 1)))
        for _ in 0..<3 {
            _ = try await kiosk.send(ControlRequest(command: "tap", card: 1))
            _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
            _ = try await kiosk.send(ControlRequest(command: "tap", card: 1))
            _ = try await kiosk.send(ControlRequest(command: "remove"))
            _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 1800))
        }

        var transcript = [(said: String, language: String, screen: ScreenModel)]()
        func press(_ button: String) async throws {
            let answer = try await kiosk.send(ControlRequest(command: "navigate", button: button))
            #expect(answer.ok, "\(answer.lines)")
            let screen = try JSONDecoder().decode(ScreenModel.self, from: Data((answer.data ?? "").utf8))
            for step in answer.steps where step.type == "spoke" {
                transcript.append((step.body ?? "", step.kind ?? "", screen))
            }
        }
        /// "Next" until the voice names `label`, then "choose".
        func pick(_ label: String) async throws {
            for _ in 0..<40 {
                try await press("next")
                if transcript.last?.said.hasSuffix(": \(label).") == true {
                    try await press("choose")
                    return
                }
            }
            Issue.record("never heard \(label)")
            throw CancellationError()
        }
        let french = Catalog.of(.fr)
        try await press("hold")
        try await pick("Language")
        try await pick("Français")
        try await pick(french[.stationMyCheckIns])
        _ = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        try await press("hold")  // the session's screen, heard
        let home = try #require(transcript.last)
        // The 7-inch panel's text size leaves room for one stay a page: which one is said, and the next page is a
        // choice like any other.
        #expect(home.screen.isPrivate && home.language == "fr" && home.screen.items.count == 1)
        #expect(home.said.contains("Séjour 1 sur 3"), "\(home.said)")
        for item in home.screen.items { #expect(home.said.contains(item)) }
        try await pick(french[.sessionShare])
        let toggles = try #require(transcript.last?.screen.choices.filter { $0.id.hasPrefix("toggle:") })
        try await pick(toggles[0].label)
        try await pick(french[.sessionNextPage])
        let again = try #require(transcript.last?.screen.choices.filter { $0.id.hasPrefix("toggle:") })
        #expect(again.count == 1 && again[0].id != toggles[0].id)
        try await pick(again[0].label)
        try await pick(french[.sessionShareContinue])
        try await pick(french[.sessionSymptomsNone])
        try await pick(french[.sessionOutputPrint])
        try await pick(french[.sessionShareContinue])
        let printedBefore = try await Self.receipts(kiosk).count
        try await pick(french[.consentYes])
        let sent = try #require(transcript.last)
        #expect(sent.said.contains(french[.receiptReportHandOver]), "what the receipt says is heard")

        // The transcript: from French on, every utterance is French and is its screen, or its selected choice.
        let firstFrench = try #require(transcript.firstIndex { $0.language == "fr" })
        for entry in transcript[firstFrench...] {
            #expect(entry.language == "fr")
            let whole = CheckInMachine.spokenText(of: entry.screen)
            let choice = entry.screen.selected.map { CheckInMachine.spokenChoice(of: entry.screen, at: $0) }
            #expect(entry.said == whole || entry.said == choice, "\(entry.said)")
        }
        // The receipt: French text decoded from the printed bytes, and the reports' QR codes.
        let receipts = try await Self.receipts(kiosk)
        #expect(receipts.count == printedBefore + 1)
        let receipt = try #require(receipts.last)
        let text = receipt.lines.joined(separator: " ")  // lines wrapped to the paper's width
        #expect(text.contains(french[.receiptReportTitle]) && text.contains(french[.receiptReportHandOver]), "\(text)")
        #expect(text.contains("é") && text.contains("’"), "accents printed as written")
        let codes = try ZBarImageScanner().scan(try ImageLoader.load(path: receipt.png)).map(\.text)
        #expect(!codes.isEmpty)
        #expect(codes.allSatisfy { $0.hasPrefix("CKPB1:") }, "\(codes)")
        // Exactly the two consented reports open under the venue's keys (the rest is padding).
        let crypto = OpenSSLCrypto()
        let venue = try VenueCodeParser().parse(poster.url, crypto: crypto)
        let keys = try CKPR.deriveKeys(locationId: try #require(venue.locationId), crypto: crypto)
        let today = UInt32(Date().timeIntervalSince1970 / 86_400)
        var opened = [PresenceReport]()
        for code in codes {
            for record in try ReportBatch(text: code).records {
                opened += (today - 2...today + 3).compactMap { try? CKPR.open(record, day: $0, keys: keys) }
            }
        }
        #expect(opened.count == 2, "\(opened)")
        // The voice: French recordings by the real espeak-ng.
        let speech = directory + "/simulation/speech"
        var frenchFiles = 0
        // espeak-ng writes each recording on the speaker's own thread: wait for them all (a bound only a hang could
        // miss; a loaded machine synthesizes 40 utterances in far more than a quiet one's few seconds).
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: speech)) ?? []).filter {
                $0.hasSuffix(".txt")
            }
            frenchFiles =
                names.filter {
                    (try? String(contentsOfFile: speech + "/" + $0, encoding: .utf8))?.hasPrefix("fr\n") == true
                }.count
            if frenchFiles >= transcript.count - firstFrench { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(frenchFiles == transcript.count - firstFrench)
    }

    static func receipts(_ kiosk: SimulatedKiosk) async throws -> [RecordedReceipt] {
        let answer = try await kiosk.send(ControlRequest(command: "receipts"))
        guard let data = answer.data else { return [] }
        return try JSONDecoder().decode([RecordedReceipt].self, from: Data(data.utf8))
    }

    /// A huge `advance` is refused with a message; the kiosk keeps answering, and so does a kiosk started again.
    @Test func aHugeAdvanceIsRefusedAndTheKioskKeepsRunning() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let refused = try await kiosk.send(ControlRequest(command: "advance", seconds: 1e300))
        #expect(!refused.ok)
        #expect(refused.lines.joined().contains("at most 100 years"), "\(refused.lines)")
        let fine = try await kiosk.send(ControlRequest(command: "advance", seconds: 15 * 86_400))
        #expect(fine.ok, "\(fine.lines)")
        #expect(try await kiosk.status().ready)
    }

    @Test func aDayAtAVenue() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let poster = try Self.venuePoster(in: directory)

        // Not set up: a tap is refused, nothing stored.
        var status = try await kiosk.status()
        #expect(status.ready && status.simulated && !status.venueBound)

        // Staff binds the venue by showing its poster to the camera.
        let staff = try await kiosk.send(ControlRequest(command: "staff"))
        #expect(staff.ok, "\(staff.lines)")
        let bind = try await kiosk.send(ControlRequest(command: "show-code", path: poster.image))
        #expect(bind.ok, "\(bind.lines)")
        status = try await kiosk.status()
        #expect(status.venueBound && status.venueFormat == "cwa")

        // Staff enrols three cards.
        for card in 1...3 {
            let enrol = try await kiosk.send(ControlRequest(command: "enrol", card: card))
            #expect(enrol.ok && enrol.steps.contains { $0.type == "enrolled" }, "card \(card): \(enrol.lines)")
        }
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let metricsAddress = try #require(try await kiosk.status().metricsAddress)
        let metricsPort = try #require(Int(metricsAddress.split(separator: ":").last ?? ""))
        let beforeTaps = try await LoopbackHTTP.get(port: metricsPort, "/metrics").body

        // Three visitors check in.
        for card in 1...3 {
            let tap = try await kiosk.send(ControlRequest(command: "tap", card: card))
            #expect(tap.tapOutcome == "checkedIn", "card \(card): \(tap.lines)")
            #expect(tap.patterns.contains("accepted"))
        }
        status = try await kiosk.status()
        #expect(status.openCheckIns == 3)
        // The metrics endpoint (Prometheus text, loopback) does not move at a tap: counts appear per whole day.
        let metrics = try await LoopbackHTTP.get(port: metricsPort, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body == beforeTaps, "\(metrics.body)")
        // Exactly the metrics docs/daemon.md lists, each with what it reveals; none about warnings.
        let exposed = Set(
            metrics.body.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
                .map { String($0.split(separator: " ")[2]) })
        #expect(exposed == (try Self.documentedMetrics()))
        #expect(!exposed.contains { $0.contains("warning") })
        #expect(try await LoopbackHTTP.get(port: metricsPort, "/other").status == 404)
        // A name someone else controls (DNS rebinding) reads no metrics.
        let rebound = try await LoopbackHTTP.request(
            port: metricsPort, path: "/metrics", host: "attacker.example:\(metricsPort)")
        #expect(rebound.status == 421 && !rebound.body.contains("kiosk_"))

        // An hour later two check out; the third forgets.
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        for card in 1...2 {
            let tap = try await kiosk.send(ControlRequest(command: "tap", card: card))
            #expect(tap.tapOutcome == "checkedOut", "card \(card): \(tap.lines)")
            #expect(tap.patterns.contains("checkedOut"))
        }
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        status = try await kiosk.status()
        #expect(status.openCheckIns == 1)
        // The venue's 2-hour rule checks the third out.
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 2 * 3600))
        status = try await kiosk.status()
        #expect(status.openCheckIns == 0)
        #expect(status.storedStays == 3)

        // A code that is not a check-in code, and a bank card: refused with the right message and light.
        let bad = try await kiosk.send(ControlRequest(command: "show-code", text: "https://example.org/menu"))
        #expect(bad.patterns == ["error"])
        #expect(bad.titles.first?.lowercased().contains("not a check-in code") == true, "\(bad.lines)")
        let bank = try await kiosk.send(ControlRequest(command: "tap-foreign"))
        #expect(bank.patterns == ["refused"], "\(bank.lines)")
        #expect(bank.tapOutcome == nil)
        // A venue code outside staff mode: a hint, nothing stored.
        let venueAgain = try await kiosk.send(ControlRequest(command: "show-code", text: poster.url))
        #expect(venueAgain.tapOutcome == nil && !venueAgain.titles.isEmpty)
        status = try await kiosk.status()
        #expect(status.storedStays == 3)

        // Fifteen days later every stay is gone, and no byte of them is left in the database files.
        let sealed = try Self.sealedStays(in: directory)
        #expect(sealed.count == 3)
        let advance = try await kiosk.send(ControlRequest(command: "advance", seconds: 15 * 86_400))
        #expect(advance.ok)
        status = try await kiosk.status()
        #expect(status.storedStays == 0)
        #expect(try Self.leftovers(sealed, in: directory).isEmpty)
        // The day's counts appear once it is over (the days went by with no scrape: they count as one).
        let daily = try await LoopbackHTTP.get(port: metricsPort, "/metrics").body
        #expect(daily.contains("\nkiosk_check_ins_previous_day 3\n"), "\(daily)")
        #expect(daily.contains("\nkiosk_check_outs_previous_day 2\n"), "\(daily)")
        #expect(daily.contains("kiosk_refusals_previous_day{reason=\"foreignCard\"} 1"), "\(daily)")

        // The card still works: a new check-in.
        let again = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(again.tapOutcome == "checkedIn", "\(again.lines)")

        // The lights and receipts are recorded; SIGTERM stops it cleanly.
        let lights = try await kiosk.send(ControlRequest(command: "lights"))
        #expect(lights.ok && (lights.data ?? "").contains("accepted"))
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
        #expect(!FileManager.default.fileExists(atPath: KioskDaemon.controlSocketPath(stateDirectory: directory)))
    }

    @Test func clockNotSynchronizedRecordsNothing() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let poster = try Self.venuePoster(in: directory)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        _ = try await kiosk.send(ControlRequest(command: "show-code", path: poster.image))
        _ = try await kiosk.send(ControlRequest(command: "enrol", card: 1))
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let clock = try await kiosk.send(ControlRequest(command: "clock", flag: false))
        #expect(clock.patterns == ["clockNotSet"], "\(clock.lines)")
        #expect(try await kiosk.status().clockSynchronized == false)
        let tap = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(tap.tapOutcome != "checkedIn")
        #expect(tap.patterns.contains("clockNotSet"), "\(tap.lines)")
        #expect(try await kiosk.status().storedStays == 0)
        _ = try await kiosk.send(ControlRequest(command: "clock", flag: true))
        let later = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(later.tapOutcome == "checkedIn", "\(later.lines)")
        #expect(kiosk.stop() == 0)
    }

    /// Whoever sees the kiosk ready can stop it: SIGTERM right after the first answer ends it cleanly (exit 0), never
    /// by the signal's default action.
    @Test func sigtermAsSoonAsItAnswersStopsItCleanly() async throws {
        for _ in 0..<3 {
            let directory = try SimulatedKiosk.makeStateDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let kiosk = try await SimulatedKiosk(stateDirectory: directory)
            #expect(kiosk.stop() == 0, "\(kiosk.output)")
        }
    }

    /// Taps in a burst, SIGKILL at a random moment, restart: every acknowledged check-in is there.
    @Test func sigkillMidBurstLosesNoAcknowledgedTap() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let poster = try Self.venuePoster(in: directory)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        _ = try await kiosk.send(ControlRequest(command: "show-code", path: poster.image))
        for card in 1...4 { _ = try await kiosk.send(ControlRequest(command: "enrol", card: card)) }
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))

        var acknowledgedCheckIns = 0
        for round in 0..<3 {
            let killAfter = Int.random(in: 3...12)
            var taps = 0
            while true {
                let card = taps % 4 + 1
                taps += 1
                if taps == killAfter {
                    // Kill while this tap is in flight.
                    let current = kiosk
                    let pending = Task { try? await current.send(ControlRequest(command: "tap", card: card)) }
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
                    kiosk.killHard()
                    if let late = await pending.value, late.tapOutcome == "checkedIn" { acknowledgedCheckIns += 1 }
                    break
                }
                let tap = try await kiosk.send(ControlRequest(command: "tap", card: card))
                if tap.tapOutcome == "checkedIn" { acknowledgedCheckIns += 1 }
                _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3 * 3600))
            }
            kiosk = try await SimulatedKiosk(stateDirectory: directory)
            let stored = try await kiosk.status().storedStays ?? -1
            // Each check-in made one stay; a tap that was killed before its answer may or may not be there.
            #expect(
                stored >= acknowledgedCheckIns && stored <= acknowledgedCheckIns + 1,
                "round \(round): \(stored) stored, \(acknowledgedCheckIns) acknowledged")
            acknowledgedCheckIns = stored
        }
        #expect(kiosk.stop() == 0)
    }
}
