import Foundation
import KioskCamera
import KioskCore
import KioskDaemon
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The whole loop, end to end through the real binaries: cards A and B overlap at a venue, C comes later; A reports
/// (upload with a verification code, or a printed receipt carried to the test centre); the authority publishes; the
/// kiosk syncs; B's next tap shows the warning, C's and A's do not. A package with a bad signature changes nothing.
@Suite(.serialized) struct WarningLoopTests {
    enum Carry: String, CaseIterable, Sendable { case upload, receipt }

    struct Run {
        let status: Int32
        let output: String
    }

    static func kiosk(_ arguments: [String]) throws -> Run {
        try run("kiosk", arguments)
    }

    /// `kiosk-authority arguments…`, the health authority's command.
    static func authority(_ arguments: [String]) throws -> Run {
        try run("kiosk-authority", arguments)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable(executable))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// `kiosk-authority serve --port 0`, and the port it printed.
    static func serve(_ directory: String) async throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable("kiosk-authority"))
        process.arguments = ["serve", "--dir", directory, "--port", "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        for _ in 0..<200 {
            let data = pipe.fileHandleForReading.availableData
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let port = Int(text[range].dropFirst("127.0.0.1:".count).dropLast()) ?? 0
                return (process, port)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw ServeFailed(output: text)
    }

    struct ServeFailed: Error { let output: String }

    @Test(arguments: Carry.allCases) func overlappingVisitorIsWarnedOthersAreNot(carry: Carry) async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let initialized = try Self.authority(["init", "--dir", authority])
        #expect(initialized.status == 0)
        let publicKey = initialized.output
        #expect(publicKey.contains("BEGIN PUBLIC KEY"))
        let code = try Self.authority(["issue-code", "--dir", authority]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let (server, port) = try await Self.serve(authority)
        defer {
            server.terminate()
            server.waitUntilExit()
        }

        // The kiosk, configured with the authority's address and key; A (1) and B (2) together for an hour, C (3) later.
        let (kiosk, venueCode) = try await CWAWarningLoopTests.visitedKiosk(
            root: root, warnings: ["baseURL": "http://127.0.0.1:\(port)/warnings", "publicKey": publicKey],
            reports: ["uploadURL": "http://127.0.0.1:\(port)/v1/reports", "exportDirectory": NSNull()])

        // Nothing published yet: syncing changes nothing.
        let empty = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(empty.ok, "\(empty.lines)")

        // A tests positive and shares the stay.
        switch carry {
        case .upload:
            let report = try await kiosk.send(
                ControlRequest(
                    command: "report", card: 1,
                    answers: ["1", "done", "symptoms", "upload \(code)", "ok", "yes"]))
            #expect(report.ok, "\(report.lines)")
        case .receipt:
            let report = try await kiosk.send(
                ControlRequest(
                    command: "report", card: 1,
                    answers: ["1", "done", "symptoms", "print", "ok", "yes"]))
            #expect(report.ok, "\(report.lines)")
            // The test centre scans the receipt's QR codes.
            let receipts = try await kiosk.send(ControlRequest(command: "receipts"))
            let png = try #require(
                receipts.lines.last { $0.hasPrefix("Receipt ") }.map { String($0.split(separator: " ").last!) })
            let texts = try ZBarImageScanner().scan(try ImageLoader.load(path: png)).map(\.text).filter {
                $0.hasPrefix("CKPB1:")
            }
            #expect(!texts.isEmpty)
            let accepted = try Self.authority(["accept", "--dir", authority] + texts)
            #expect(accepted.status == 0, "\(accepted.output)")
        }
        let published = try Self.authority(["publish", "--dir", authority])
        #expect(published.status == 0, "\(published.output)")

        let sync = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(sync.ok, "\(sync.lines)")
        #expect(sync.lines.joined().contains("kept"), "\(sync.lines)")

        // B is told at the next tap; C and A are not.
        let tapB = try await kiosk.send(ControlRequest(command: "tap", card: 2))
        #expect(tapB.toldNews, "\(tapB.lines)")
        #expect(!tapB.steps.contains { $0.type == "printed" }, "\(tapB.lines)")
        // B, card still on the reader, reads it in their session and prints the slip.
        _ = try await kiosk.send(ControlRequest(command: "choose", text: "session"))
        let warning = try await kiosk.send(ControlRequest(command: "choose", text: "warning"))
        #expect(warning.lines.contains { $0.contains("tested positive") }, "\(warning.lines)")
        let slip = try await kiosk.send(ControlRequest(command: "choose", text: "print-slip"))
        #expect(slip.steps.contains { $0.type == "printed" && $0.kind == "warningSlip" }, "\(slip.lines)")
        let tapC = try await kiosk.send(ControlRequest(command: "tap", card: 3))
        #expect(!tapC.toldNews, "\(tapC.lines)")
        let tapA = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        #expect(!tapA.toldNews, "\(tapA.lines)")

        // A package with a bad signature: refused, reported, nothing changes.
        let tracer = try Self.authority([
            "warn-venue", "--dir", authority, "--code", venueCode,
            "--from", Self.text(Date().addingTimeInterval(-86_400)), "--to",
            Self.text(Date().addingTimeInterval(86_400 * 2)),
        ])
        #expect(tracer.status == 0, "\(tracer.output)")
        #expect(try Self.authority(["publish", "--dir", authority]).status == 0)
        let www = authority + "/www"
        // The newest CKPW/1 package (an upload's CrowdNotifier decoys publish crowdnotifier-v3.bin beside it).
        let newest = try FileManager.default.contentsOfDirectory(atPath: www).filter {
            $0.hasPrefix("ckpw-") && $0.hasSuffix(".bin")
        }.sorted().last
        let file = www + "/" + (try #require(newest))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 1] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let badSync = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(!badSync.ok)
        #expect(badSync.lines.contains { $0.contains("refused") }, "\(badSync.lines)")
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        let tapCAgain = try await kiosk.send(ControlRequest(command: "tap", card: 3))
        #expect(!tapCAgain.toldNews, "\(tapCAgain.lines)")
        #expect(kiosk.stop() == 0)
    }

    static func text(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
