import Foundation
import KioskCore
import KioskDaemon
import Testing

/// End-to-end: staff cards through the control socket, and `venue.code` at start, on the real `kiosk run --simulate`.
@Suite(.serialized) struct SimulatedKioskStartTests {
    /// A CWA venue code URL (seed `seed`).
    static func venueURL(seed: UInt8) -> String {
        let fields = CWAVenueEncoder.Fields(
            description: "Community hall", address: "Main street 1", type: 3,
            defaultCheckInLengthInMinutes: 120)
        return CWAVenueEncoder.url(
            payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: seed, count: 16)))
    }

    /// Runs `kiosk run --simulate` expecting it not to start; returns its exit status and output.
    static func failedStart(stateDirectory: String, environment: [String: String]) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable())
        process.arguments = ["run", "--simulate", "--state-dir", stateDirectory, "--log-level", "info"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func aStaffCardEnrolledThroughTheControlSocketOpensStaffMode() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var kiosk = try await SimulatedKiosk(stateDirectory: directory)

        // Staff mode closed: no staff card can be enrolled.
        let closed = try await kiosk.send(ControlRequest(command: "enrol-staff", card: 7))
        #expect(!closed.steps.contains { $0.type == "enrolled" }, "\(closed.lines)")

        let staff = try await kiosk.send(ControlRequest(command: "staff"))
        #expect(staff.ok, "\(staff.lines)")
        let enrol = try await kiosk.send(ControlRequest(command: "enrol-staff", card: 7))
        #expect(enrol.ok && enrol.steps.contains { $0.type == "enrolled" }, "\(enrol.lines)")
        #expect(enrol.titles.contains("Staff card enrolled"), "\(enrol.lines)")
        #expect(!enrol.steps.contains { $0.type == "printed" })
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        var status = try await kiosk.status()
        #expect(status.mode == "visitor" && status.staffCards == 1)

        // Tapping it opens staff mode; tapping it again closes it.
        let open = try await kiosk.send(ControlRequest(command: "tap", card: 7))
        #expect(open.titles == ["Staff mode"], "\(open.lines)")
        #expect(open.patterns == ["accepted"])
        #expect(try await kiosk.status().mode == "staff")
        let close = try await kiosk.send(ControlRequest(command: "tap", card: 7))
        #expect(close.titles == ["Staff mode closed"], "\(close.lines)")
        #expect(try await kiosk.status().mode == "visitor")

        // The printed code of a staff card never opens staff mode.
        let forged = try CardSecret(kind: .staff, entropy: [UInt8](repeating: 5, count: 16))
        let shown = try await kiosk.send(ControlRequest(command: "show-code", text: forged.printedText))
        #expect(shown.patterns == ["refused"], "\(shown.lines)")
        #expect(try await kiosk.status().mode == "visitor")

        // After a restart the card still opens staff mode.
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
        kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let again = try await kiosk.send(ControlRequest(command: "tap", card: 7))
        #expect(again.titles == ["Staff mode"], "\(again.lines)")
        status = try await kiosk.status()
        #expect(status.mode == "staff" && status.staffCards == 1)

        // Wiping forgets it.
        let wipe = try await kiosk.send(ControlRequest(command: "staff-command", text: "wipe-confirm"))
        #expect(wipe.ok, "\(wipe.lines)")
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let refused = try await kiosk.send(ControlRequest(command: "tap", card: 7))
        #expect(refused.titles == ["Not a staff card of this kiosk"], "\(refused.lines)")
        #expect(refused.patterns == ["refused"])
        status = try await kiosk.status()
        #expect(status.mode == "visitor" && status.staffCards == 0)
        #expect(kiosk.stop() == 0)
    }

    @Test func theConfiguredVenueIsBoundAtStart() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let venue = Self.venueURL(seed: 7)
        var kiosk = try await SimulatedKiosk(stateDirectory: directory, environment: ["KIOSK_VENUE_CODE": venue])
        var status = try await kiosk.status()
        #expect(status.venueBound && status.venueFormat == "cwa")
        let fingerprint = try #require(status.venueFingerprint)
        #expect(!kiosk.output.contains(venue))

        // A visitor checks in.
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let enrol = try await kiosk.send(ControlRequest(command: "enrol", card: 1))
        #expect(enrol.ok, "\(enrol.lines)")
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        let tap = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(tap.tapOutcome == "checkedIn", "\(tap.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        #expect(kiosk.stop() == 0, "\(kiosk.output)")

        // The same venue again: nothing changes (the visitor is still counted).
        kiosk = try await SimulatedKiosk(stateDirectory: directory, environment: ["KIOSK_VENUE_CODE": venue])
        status = try await kiosk.status()
        #expect(status.venueBound && status.venueFingerprint == fingerprint)
        #expect(status.openCheckIns == 1)
        #expect(kiosk.output.contains("The configured venue is the one this kiosk is bound to"), "\(kiosk.output)")
        #expect(kiosk.stop() == 0)

        // Another venue while the visitor may still be here: the kiosk does not start.
        let other = Self.venueURL(seed: 8)
        let refused = try Self.failedStart(stateDirectory: directory, environment: ["KIOSK_VENUE_CODE": other])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(
            refused.output.contains("venue.code") && refused.output.contains("still checked in"), "\(refused.output)")
        #expect(!refused.output.contains(other))

        // Once the stay has ended by itself, the other venue replaces it.
        kiosk = try await SimulatedKiosk(stateDirectory: directory)
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 3 * 3600))
        #expect(try await kiosk.status().openCheckIns == 0)
        #expect(kiosk.stop() == 0)
        kiosk = try await SimulatedKiosk(stateDirectory: directory, environment: ["KIOSK_VENUE_CODE": other])
        status = try await kiosk.status()
        #expect(status.venueBound && status.venueFingerprint != fingerprint)
        #expect(kiosk.stop() == 0)
    }

    @Test func aConfiguredVenueCodeThatDoesNotParseStopsTheStart() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A venue code URL whose payload is cut short.
        let payload = "CAESEwgBEgdGcmlzZXVy"
        let result = try Self.failedStart(
            stateDirectory: directory,
            environment: ["KIOSK_VENUE_CODE": "https://e.coronawarn.app?v=1#" + payload])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("venue.code cannot be bound"), "\(result.output)")
        #expect(!result.output.contains(payload))
    }
}

@Suite struct DaemonSettingsFromConfigurationTests {
    @Test(arguments: ["timesyncd", "adjtimex", "auto"])
    func clockSourceAndVenueCodeReachTheDaemon(_ source: String) throws {
        let configuration = try KioskConfiguration.parse(
            json: #"{"clock": {"source": "\#(source)"}}"#,
            environment: ["KIOSK_VENUE_CODE": SimulatedKioskStartTests.venueURL(seed: 3)])
        let settings = DaemonSettings(configuration, secrets: ConfigurationSecrets(), stateDirectory: "/tmp/unused")
        #expect(settings.clockSource.rawValue == source)
        #expect(settings.venueCode == SimulatedKioskStartTests.venueURL(seed: 3))
        #expect(DaemonSettings(KioskConfiguration(), secrets: ConfigurationSecrets()).venueCode == nil)
    }

    /// `venue.timeZone` reaches the station (every visitor text with a time); left out, the board's own zone.
    @Test func theVenuesTimeZoneReachesTheStation() throws {
        let configuration = try KioskConfiguration.parse(json: #"{"venue": {"timeZone": "Pacific/Auckland"}}"#)
        let settings = DaemonSettings(configuration, secrets: ConfigurationSecrets(), stateDirectory: "/tmp/unused")
        #expect(settings.station.timeZone.identifier == "Pacific/Auckland")
        let unset = DaemonSettings(KioskConfiguration(), secrets: ConfigurationSecrets(), stateDirectory: "/tmp/unused")
        #expect(unset.station.timeZone.identifier == nil && unset.station.timeZone.timeZone == TimeZone.current)
    }
}
