import Foundation
import GRDB
import KioskCore
import KioskDaemon
import Testing

/// Corona-Warn-App hourly packages end to end through the real binaries, and packages staff bring on a USB stick:
/// `kiosk-authority warn-venue-cwa --publish` (and `warn-venue` + `publish` for CKPW/1) write the authority's `www/`;
/// the kiosk takes it from `kiosk-authority serve` or from a copy of it in a folder. Cards 1 and 2 overlap the
/// warned window, card 3 comes hours later.
@Suite(.serialized) struct CWAWarningLoopTests {
    typealias Loop = WarningLoopTests

    /// A simulated kiosk with `warnings` configured, bound to the test venue, cards 1…3 enrolled; cards 1 and 2
    /// stayed together from `start` + 10 minutes for an hour, card 3 five hours later. Returns the kiosk and the
    /// venue's code.
    static func visitedKiosk(
        root: String, warnings: [String: Any],
        reports: [String: Any] = ["exportDirectory": NSNull()]
    ) async throws -> (SimulatedKiosk, String) {
        let configuration: [String: Any] = [
            "warnings": warnings,
            "reports": reports,
            "metrics": ["listen": NSNull()],
        ]
        let configPath = root + "/kiosk.json"
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configPath))
        let kiosk = try await SimulatedKiosk(stateDirectory: root + "/k", extraArguments: ["--config", configPath])
        let poster = try SimulatedKioskTests.venuePoster(in: root)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let bound = try await kiosk.send(ControlRequest(command: "show-code", text: poster.url))
        #expect(bound.ok, "\(bound.lines)")
        // Card 4's holder said no to matching at enrolment: it stays with cards 1 and 2 and is never warned.
        for card in 1...4 {
            let enrolled = try await kiosk.send(
                ControlRequest(command: "enrol", card: card, fields: ["matching": card == 4 ? "no" : "yes"]))
            #expect(enrolled.ok, "\(enrolled.lines)")
        }
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 600))
        for card in [1, 2, 4] {
            #expect(try await kiosk.send(ControlRequest(command: "tap", card: card)).tapOutcome == "checkedIn")
        }
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        for card in [1, 2, 4] {
            #expect(try await kiosk.send(ControlRequest(command: "tap", card: card)).tapOutcome == "checkedOut")
        }
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 4 * 3600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 3)).tapOutcome == "checkedIn")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 3)).tapOutcome == "checkedOut")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        return (kiosk, poster.url)
    }

    /// `kiosk-authority init`; returns the public key it printed.
    static func authority(_ directory: String) throws -> String {
        let initialized = try Loop.authority(["init", "--dir", directory])
        #expect(initialized.status == 0)
        #expect(initialized.output.contains("BEGIN PUBLIC KEY"))
        return initialized.output
    }

    /// Taps `card` (after the debounce time) and tells whether the warning was shown.
    static func warned(_ kiosk: SimulatedKiosk, card: Int) async throws -> Bool {
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap = try await kiosk.send(ControlRequest(command: "tap", card: card))
        #expect(tap.tapOutcome != nil, "\(tap.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        return tap.toldNews
    }

    /// The tags of the warning records in the saved station state, read from the database as the kiosk saved it.
    static func warningTags(in directory: String) throws -> Set<[UInt8]> {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: directory + "/checkins.sqlite", configuration: configuration)
        let json = try queue.read { database in
            try Data.fetchOne(database, sql: "SELECT value FROM setting WHERE key = 'station.state'")
        }
        guard let json else { return [] }
        let state = try JSONDecoder().decode(StationState.self, from: json)
        return Set(state.warnings.map(\.tag))
    }

    /// The files of `directory` (and its folders) that hold one of `tags`, as raw bytes or as the saved state writes it
    /// (JSON numbers).
    static func filesHolding(_ tags: Set<[UInt8]>, in directory: String) throws -> [String] {
        var found = [String]()
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        for name in files {
            var isFolder: ObjCBool = false
            let path = directory + "/" + name
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            let contents = [UInt8](data)
            for tag in tags {
                let asJSON = Array(tag.map { String($0) }.joined(separator: ",").utf8)
                if contents.firstRange(of: tag) != nil || contents.firstRange(of: asJSON) != nil { found.append(name) }
            }
        }
        return found
    }

    /// The hour zips under `www/cwa/twp/country/DE/hour/`.
    static func hourZips(_ www: String) throws -> [String] {
        let hours = www + "/cwa/twp/country/DE/hour"
        return try FileManager.default.contentsOfDirectory(atPath: hours).filter { UInt32($0) != nil }.sorted()
            .map { hours + "/" + $0 + "/index" }
    }

    /// Flips one byte of a file.
    static func flip(_ path: String, at offset: (Int) -> Int) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[offset(bytes.count)] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Flips a byte inside the first entry's data of a zip (past the local header and the name).
    static func flipFirstEntry(_ path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        let extraLength = Int(bytes[28]) | Int(bytes[29]) << 8
        try flip(path) { _ in 30 + nameLength + extraLength + 2 }
    }

    static func copy(_ source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    @Test func cwaVenueWarningFromTheServedAuthorityReachesOnlyTheOverlappingCard() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let publicKey = try Self.authority(authority)
        let (server, port) = try await Loop.serve(authority)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let start = Date()
        // Only the CWA source is configured.
        let (kiosk, venue) = try await Self.visitedKiosk(
            root: root,
            warnings: [
                "cwaBaseURL": "http://127.0.0.1:\(port)/cwa/twp/country/DE", "cwaPublicKey": publicKey,
            ])

        let empty = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(empty.ok, "\(empty.lines)")
        #expect(empty.lines.allSatisfy { $0.hasPrefix("Warnings (CWA)") }, "\(empty.lines)")

        // A contact tracer warns about the venue from before the kiosk started until two hours later.
        let warned = try Loop.authority([
            "warn-venue-cwa", "--dir", authority, "--code", venue,
            "--from", Loop.text(start.addingTimeInterval(-600)), "--to", Loop.text(start.addingTimeInterval(7200)),
            "--publish",
        ])
        #expect(warned.status == 0, "\(warned.output)")
        let sync = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(sync.ok, "\(sync.lines)")
        #expect(sync.lines == ["Warnings (CWA): 1 new hour(s), 1 record(s) kept for this venue."], "\(sync.lines)")
        // Nothing about the venue or the window in any line.
        #expect(!sync.lines.joined().contains(Loop.text(start.addingTimeInterval(-600))))

        #expect(try await Self.warned(kiosk, card: 2))
        #expect(try await Self.warned(kiosk, card: 3) == false)
        // UI-5, through the real station and store: the card whose holder said no overlapped too, and is not matched.
        #expect(try await Self.warned(kiosk, card: 4) == false)

        // UI-4B: card 2's holder deletes everything; the record of their warning goes too, and no byte of its tag is
        // left in any file of the state directory.
        let before = try Self.warningTags(in: kiosk.stateDirectory)
        #expect(!before.isEmpty)
        #expect(!(try Self.filesHolding(before, in: kiosk.stateDirectory)).isEmpty, "control: the search finds them")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        _ = try await kiosk.send(ControlRequest(command: "tap", card: 2))
        for choice in ["session", "delete", "delete-all", "delete"] {
            let chosen = try await kiosk.send(ControlRequest(command: "choose", text: choice))
            #expect(chosen.ok, "\(choice): \(chosen.lines)")
        }
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        let gone = before.subtracting(try Self.warningTags(in: kiosk.stateDirectory))
        #expect(!gone.isEmpty, "card 2's warning record is still in the station state")
        #expect(try Self.filesHolding(gone, in: kiosk.stateDirectory).isEmpty)

        // A CKPW/1 package covering card 3 on a stick: no CKPW/1 key is configured, so it is not read.
        let tracer = try Loop.authority([
            "warn-venue", "--dir", authority, "--code", venue,
            "--from", Loop.text(start.addingTimeInterval(-600)), "--to", Loop.text(start.addingTimeInterval(86_400)),
        ])
        #expect(tracer.status == 0, "\(tracer.output)")
        #expect(try Loop.authority(["publish", "--dir", authority]).status == 0)
        let stick = root + "/stick"
        try Self.copy(authority + "/www", to: stick)
        let loaded = try await kiosk.send(ControlRequest(command: "load-warnings", path: stick))
        #expect(!loaded.ok)
        #expect(
            loaded.lines.contains { $0.hasPrefix("Warnings (CKPW/1)") && $0.contains("no key is configured") },
            "\(loaded.lines)")
        #expect(loaded.lines.contains("Warnings (CWA) from the folder: nothing new."), "\(loaded.lines)")
        #expect(try await Self.warned(kiosk, card: 3) == false)
        #expect(kiosk.stop() == 0)
    }

    @Test func packagesFromAUSBStickAreVerifiedLikeDownloads() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let publicKey = try Self.authority(authority)
        let start = Date()
        // Both formats configured; the servers are not reachable (the kiosk is offline).
        let (kiosk, venue) = try await Self.visitedKiosk(
            root: root,
            warnings: [
                "baseURL": "http://127.0.0.1:9/warnings", "publicKey": publicKey,
                "cwaBaseURL": "http://127.0.0.1:9/cwa/twp/country/DE", "cwaPublicKey": publicKey,
            ])
        let window = [
            "--from", Loop.text(start.addingTimeInterval(-600)), "--to", Loop.text(start.addingTimeInterval(7200)),
        ]
        #expect(
            try Loop.authority(["warn-venue-cwa", "--dir", authority, "--code", venue, "--publish"] + window).status
                == 0)
        #expect(try Loop.authority(["warn-venue", "--dir", authority, "--code", venue] + window).status == 0)
        #expect(try Loop.authority(["publish", "--dir", authority]).status == 0)
        let www = authority + "/www"
        let zip = try #require(try Self.hourZips(www).first)
        let package =
            www + "/"
            + (try #require(try FileManager.default.contentsOfDirectory(atPath: www).first { $0.hasSuffix(".bin") }))

        // No stick, an empty stick: a clear message, nothing changes.
        let missing = try await kiosk.send(ControlRequest(command: "load-warnings", path: root + "/no-such-stick"))
        #expect(!missing.ok)
        #expect(
            missing.lines == [
                "Warnings not loaded: \(root)/no-such-stick is not a folder that can be read (is the USB stick plugged in and mounted?)."
            ])
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        let empty = try await kiosk.send(ControlRequest(command: "load-warnings", path: stick))
        #expect(!empty.ok)
        #expect(empty.lines == ["Warnings not loaded: \(stick) is empty."])

        // The authority's www/ on the stick, one byte changed in each package: both refused, nothing kept.
        try Self.copy(www, to: stick)
        let stickZip = stick + zip.dropFirst(www.count)
        let stickPackage = stick + package.dropFirst(www.count)
        try Self.flipFirstEntry(stickZip)
        try Self.flip(stickPackage) { $0 - 1 }
        let tampered = try await kiosk.send(ControlRequest(command: "load-warnings", path: stick))
        #expect(!tampered.ok)
        #expect(tampered.lines.contains { $0.hasPrefix("Warnings (CKPW/1): refused package 1:") }, "\(tampered.lines)")
        #expect(tampered.lines.contains { $0.hasPrefix("Warnings (CWA): refused hour ") }, "\(tampered.lines)")
        #expect(
            tampered.lines.contains(
                "Warnings (CKPW/1) from the folder: 0 package(s) loaded, 0 record(s) kept for this venue."),
            "\(tampered.lines)")
        #expect(try await Self.warned(kiosk, card: 2) == false)

        // The CWA package restored: it is loaded (through `kiosk simulate load-warnings`), and the overlapping card
        // is warned; the CKPW/1 package is still refused.
        try Self.copy(zip, to: stickZip)
        let cwa = try Loop.kiosk(["simulate", "load-warnings", stick, "--state-dir", kiosk.stateDirectory])
        #expect(cwa.status == 1, "\(cwa.output)")
        #expect(
            cwa.output.contains(
                "Warnings (CWA) from the folder: 1 hourly package(s) loaded, 1 record(s) kept for this venue."),
            "\(cwa.output)")
        #expect(cwa.output.contains("Warnings (CKPW/1): refused package 1:"), "\(cwa.output)")
        #expect(try await Self.warned(kiosk, card: 2))
        #expect(try await Self.warned(kiosk, card: 3) == false)

        // The CKPW/1 package restored: loaded; the CWA hour, seen already, is not read again.
        try Self.copy(package, to: stickPackage)
        let both = try Loop.kiosk(["simulate", "load-warnings", stick, "--state-dir", kiosk.stateDirectory])
        #expect(both.status == 0, "\(both.output)")
        #expect(both.output.contains("Warnings (CKPW/1) from the folder: 1 package(s) loaded"), "\(both.output)")
        #expect(both.output.contains("Warnings (CWA) from the folder: nothing new."), "\(both.output)")
        #expect(try await Self.warned(kiosk, card: 1))
        #expect(try await Self.warned(kiosk, card: 3) == false)
        // Nothing about the venue in the kiosk's log.
        #expect(!kiosk.output.contains(venue))
        #expect(kiosk.stop() == 0)
    }

    @Test func anUnreadableCWAKeyStopsTheKioskNamingTheKey() throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The shape of a PEM public key, but not a key.
        let configuration: [String: Any] = [
            "warnings": [
                "cwaBaseURL": "http://127.0.0.1:9/cwa/twp/country/DE",
                "cwaPublicKey": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
            ],
            "metrics": ["listen": NSNull()],
        ]
        let configPath = root + "/kiosk.json"
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable())
        process.arguments = ["run", "--simulate", "--state-dir", root + "/k", "--config", configPath]
        let pipe = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let error = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 2)
        #expect(error.contains("warnings.cwaPublicKey"), "\(error)")
    }
}
