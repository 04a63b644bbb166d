import Foundation
import KioskDaemon
import Testing

/// What the control socket can do around a card's holder: it never takes a card read the station would see, and it
/// never lists or shares a PIN-protected card's stays. On a board a card's stays are shown and shared only in its
/// holder's session on the kiosk's own screen, after their PIN.
@Suite(.serialized) struct OperatorPathsTests {
    @Test func aReportRequestNeverClaimsAVisitorsTapNorOpensACardWithAPIN() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("operator-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let kiosk = try await SimulatedKiosk(stateDirectory: root + "/k")
        defer { _ = kiosk.stop() }
        let poster = try SimulatedKioskTests.venuePoster(in: root)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        #expect(try await kiosk.send(ControlRequest(command: "show-code", text: poster.url)).ok)
        let plain = try await kiosk.send(ControlRequest(command: "enrol", card: 1, fields: ["matching": "yes"]))
        #expect(plain.ok, "\(plain.lines)")
        let guarded = try await kiosk.send(
            ControlRequest(command: "enrol", card: 2, fields: ["matching": "yes", "pin": "2468"]))
        #expect(guarded.ok, "\(guarded.lines)")
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "leave"))
        for card in [1, 2] {
            #expect(try await kiosk.send(ControlRequest(command: "tap", card: card)).tapOutcome == "checkedIn")
            _ = try await kiosk.send(ControlRequest(command: "remove"))
        }

        let receiptsBefore = try await kiosk.send(ControlRequest(command: "receipts")).lines
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 1800))

        // Without a card: refused at once, and the next visitor's tap is the station's (card 1 checks out).
        let claim = try await kiosk.send(ControlRequest(command: "report", answers: ["1", "done", "yes"]))
        #expect(!claim.ok)
        #expect(claim.lines.joined().contains("in their session on the kiosk's screen"), "\(claim.lines)")
        #expect(try await kiosk.send(ControlRequest(command: "tap", card: 1)).tapOutcome == "checkedOut")
        _ = try await kiosk.send(ControlRequest(command: "remove"))

        // A card with a PIN: no stay is listed, nothing leaves.
        let pinCard = try await kiosk.send(
            ControlRequest(command: "report", card: 2, answers: ["1", "done", "symptoms", "print", "ok", "yes"]))
        #expect(!pinCard.ok)
        #expect(pinCard.lines.joined().contains("protected by a PIN"), "\(pinCard.lines)")
        #expect(!pinCard.lines.joined().contains("Community hall"), "\(pinCard.lines)")
        #expect(try await kiosk.send(ControlRequest(command: "receipts")).lines == receiptsBefore)
    }
}
