import Foundation
import KioskDaemon
import Testing

/// CrowdNotifier problematic events end to end through the real binaries: a card checks in at a SwissCovid venue,
/// `kiosk-authority warn-venue --code <the SwissCovid code>` and `publish` write the signed events file, the kiosk
/// fetches it from `kiosk-authority serve`; the card's holder is told at the next tap and reads the warning in their
/// session; another card, there at another hour, sees nothing. The CKPW/1 files of the same warning are removed
/// from the authority's folder first, so the warning can only have come as CrowdNotifier events.
@Suite(.serialized) struct CrowdNotifierWarningLoopTests {
    typealias Loop = WarningLoopTests

    /// The SwissCovid code of the Android SDK's URL test (`Tests/Vectors/crowdnotifier`).
    static func swissCovidCode() throws -> String {
        struct File: Decodable { let payloadBase64Url: String }
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/crowdnotifier/transcribed/android-sdk-qr-url-parsing.json")
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: path))
        return "https://qr.swisscovid.ch?v=4#" + file.payloadBase64Url
    }

    /// A simulated kiosk with `warnings` configured, bound to the SwissCovid venue, cards 1 and 2 enrolled; card 1
    /// stayed from the kiosk's start + 10 minutes for an hour, card 2 five hours later.
    static func visitedKiosk(root: String, warnings: [String: Any]) async throws -> SimulatedKiosk {
        let configPath = root + "/kiosk.json"
        let configuration: [String: Any] = [
            "warnings": warnings, "reports": ["exportDirectory": NSNull()], "metrics": ["listen": NSNull()],
        ]
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configPath))
        let kiosk = try await SimulatedKiosk(stateDirectory: root + "/k", extraArguments: ["--config", configPath])
        let code = try swissCovidCode()
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let bound = try await kiosk.send(ControlRequest(command: "show-code", text: code))
        #expect(bound.ok, "\(bound.lines)")
        for card in [1, 2] {
            let enrolled = try await kiosk.send(
                ControlRequest(command: "enrol", card: card, fields: ["matching": "yes"]))
            #expect(enrolled.ok, "\(enrolled.lines)")
        }
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        // Card 1 from start + 10 minutes for an hour; card 2 five hours later.
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 1)).tapOutcome == "checkedIn")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 1)).tapOutcome == "checkedOut")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 4 * 3600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 2)).tapOutcome == "checkedIn")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3600))
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 2)).tapOutcome == "checkedOut")
        _ = try await kiosk.send(ControlRequest(command: "remove"))

        return kiosk
    }

    @Test func aSwissCovidVenuesProblematicEventReachesOnlyTheCardThatWasThereThen() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let publicKey = try CWAWarningLoopTests.authority(authority)
        let (server, port) = try await Loop.serve(authority)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let start = Date()
        let kiosk = try await Self.visitedKiosk(
            root: root, warnings: ["baseURL": "http://127.0.0.1:\(port)/warnings", "publicKey": publicKey])
        let code = try Self.swissCovidCode()

        let empty = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(empty.ok, "\(empty.lines)")
        #expect(empty.lines.contains("Warnings (CrowdNotifier): nothing new."), "\(empty.lines)")

        // The authority warns about the venue from 10 minutes before the kiosk started until two hours later.
        let warned = try Loop.authority([
            "warn-venue", "--dir", authority, "--code", code,
            "--from", Loop.text(start.addingTimeInterval(-600)), "--to", Loop.text(start.addingTimeInterval(7200)),
        ])
        #expect(warned.status == 0, "\(warned.output)")
        #expect(warned.output.contains("CrowdNotifier problematic event"), "\(warned.output)")
        let published = try Loop.authority(["publish", "--dir", authority])
        #expect(published.status == 0, "\(published.output)")
        #expect(published.output.contains("www/crowdnotifier-v3.bin"), "\(published.output)")
        let www = authority + "/www"
        for name in try FileManager.default.contentsOfDirectory(atPath: www)
        where name.hasPrefix("ckpw-") || name.hasPrefix("index.json") {
            try FileManager.default.removeItem(atPath: www + "/" + name)
        }

        let sync = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(sync.ok, "\(sync.lines)")
        let line = try #require(sync.lines.first { $0.hasPrefix("Warnings (CrowdNotifier)") }, "\(sync.lines)")
        #expect(line.hasPrefix("Warnings (CrowdNotifier): 1 new list(s), "), "\(sync.lines)")
        #expect(!line.contains(" 0 event(s)"), "\(sync.lines)")
        // Unchanged on the server: the next sync takes nothing (If-None-Match).
        let again = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(again.lines.contains("Warnings (CrowdNotifier): nothing new."), "\(again.lines)")

        // Card 1 is told at its next tap and reads the warning in its session; card 2 is not.
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap1 = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(tap1.toldNews, "\(tap1.lines)")
        _ = try await kiosk.send(ControlRequest(command: "choose", text: "session"))
        let warning = try await kiosk.send(ControlRequest(command: "choose", text: "warning"))
        #expect(warning.lines.contains { $0.contains("tested positive") }, "\(warning.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap2 = try await kiosk.send(ControlRequest(command: "tap", card: 2))
        #expect(tap2.tapOutcome != nil, "\(tap2.lines)")
        #expect(!tap2.toldNews, "\(tap2.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))

        // A changed byte in the published file (and one more byte, so that the server's ETag, which may be made of
        // the size and a time in seconds, changes too): refused, its signature no longer verifies; nothing changes.
        try CWAWarningLoopTests.flip(www + "/crowdnotifier-v3.bin") { $0 / 2 }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: www + "/crowdnotifier-v3.bin"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let bad = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(!bad.ok)
        #expect(bad.lines.contains { $0.hasPrefix("Warnings (CrowdNotifier): refused") }, "\(bad.lines)")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap2Again = try await kiosk.send(ControlRequest(command: "tap", card: 2))
        #expect(!tap2Again.toldNews, "\(tap2Again.lines)")
        #expect(kiosk.stop() == 0)
    }

    /// Without a network: the authority's published folder copied to a stick and loaded, with the same checks.
    @Test func theSameEventsFromAStick() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let publicKey = try CWAWarningLoopTests.authority(authority)
        let start = Date()
        // The base address is never reached: the events come from the stick only.
        let kiosk = try await Self.visitedKiosk(
            root: root, warnings: ["baseURL": "http://127.0.0.1:9/warnings", "publicKey": publicKey])
        let warned = try Loop.authority([
            "warn-venue", "--dir", authority, "--code", try Self.swissCovidCode(),
            "--from", Loop.text(start.addingTimeInterval(-600)), "--to", Loop.text(start.addingTimeInterval(7200)),
        ])
        #expect(warned.status == 0, "\(warned.output)")
        #expect(try Loop.authority(["publish", "--dir", authority]).status == 0)
        let stick = root + "/stick"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        for name in ["crowdnotifier-v3.bin", "crowdnotifier-v3.bin.sig"] {
            try FileManager.default.copyItem(atPath: authority + "/www/" + name, toPath: stick + "/" + name)
        }
        let loaded = try await kiosk.send(ControlRequest(command: "load-warnings", path: stick))
        #expect(loaded.ok, "\(loaded.lines)")
        #expect(
            loaded.lines.contains { $0.hasPrefix("Warnings (CrowdNotifier) from the folder: 1 new list(s), ") },
            "\(loaded.lines)")
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap1 = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(tap1.toldNews, "\(tap1.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let tap2 = try await kiosk.send(ControlRequest(command: "tap", card: 2))
        #expect(tap2.tapOutcome != nil && !tap2.toldNews, "\(tap2.lines)")
        #expect(kiosk.stop() == 0)
    }
}
