import Foundation
import KioskCore
import KioskDaemon
import Testing

@Suite struct ConfigurationLoaderTests {
    /// A temporary directory with a configuration file and a credentials directory.
    final class Scratch {
        let root = NSTemporaryDirectory() + "kiosk-config-\(UUID().uuidString)"
        var file: String { root + "/kiosk.json" }
        var credentials: String { root + "/credentials" }

        init(json: String) throws {
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        }

        func credential(_ name: String, _ text: String, mode: Int = 0o400) throws {
            let path = credentials + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static let boardFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("board/config/kiosk.json").path

    @Test func loadsFileEnvironmentAndCredentials() throws {
        let scratch = try Scratch(json: #"{"nfc": {"connection": "pn532_uart:/dev/ttyS0"}}"#)
        try scratch.credential("staff-code", "a-long-enough-staff-code\n")
        let loader = ConfigurationLoader(
            path: scratch.file,
            environment: [
                "KIOSK_NFC_CONNECTION": "pn532_uart:/dev/ttyUSB0",
                "CREDENTIALS_DIRECTORY": scratch.credentials,
            ])
        #expect(loader.credentialsDirectory == scratch.credentials)
        var loaded = try loader.load()
        #expect(loaded.configuration.nfc?.connection == "pn532_uart:/dev/ttyUSB0")
        #expect(loaded.secrets.staffCode == Array("a-long-enough-staff-code".utf8))
        loaded.secrets = ConfigurationSecrets()
    }

    @Test func committedBoardFileLoadsWithCredentials() throws {
        let scratch = try Scratch(json: "{}")
        try scratch.credential("staff-code", "0123456789abcdef0123")
        let loaded = try ConfigurationLoader(
            path: Self.boardFile, environment: [:], credentialsDirectory: scratch.credentials
        ).load()
        #expect(loaded.configuration.receiptPrinter?.path == "/dev/kiosk-printer")
        #expect(loaded.secrets.staffCode?.count == 20)
    }

    @Test func missingFileIsAClearProblem() {
        let loader = ConfigurationLoader(path: "/nonexistent/kiosk.json", environment: [:])
        #expect(
            throws: ConfigurationError(problems: [
                ConfigurationProblem(
                    path: "", message: "cannot read /nonexistent/kiosk.json: No such file or directory")
            ])
        ) { try loader.loadConfiguration() }
    }

    @Test func directoryIsNotAFile() throws {
        let scratch = try Scratch(json: "{}")
        let loader = ConfigurationLoader(path: scratch.credentials, environment: [:])
        #expect(
            throws: ConfigurationError(problems: [
                ConfigurationProblem(path: "", message: "cannot read \(scratch.credentials): not a regular file")
            ])
        ) { try loader.loadConfiguration() }
    }

    @Test func fileProblemsComeAllAtOnce() throws {
        let scratch = try Scratch(json: #"{"camera": {"width": 10}, "metrics": {"listen": "0.0.0.0:80"}}"#)
        do {
            _ = try ConfigurationLoader(path: scratch.file, environment: ["KIOSK_CLOCK_SOURCE": "gps"]).load()
            Issue.record("accepted")
        } catch {
            #expect(
                error.problems.map(\.path) == [
                    "camera.width", "clock.source (from KIOSK_CLOCK_SOURCE)", "metrics.listen",
                ])
        }
    }

    @Test func missingCredentialIsNamed() throws {
        let scratch = try Scratch(json: #"{"warnings": {"baseURL": "https://warnings.example/w"}}"#)
        try scratch.credential("staff-code", "0123456789abcdef0123")
        let loader = ConfigurationLoader(
            path: scratch.file, environment: ["CREDENTIALS_DIRECTORY": scratch.credentials])
        #expect(
            throws: ConfigurationError(problems: [
                ConfigurationProblem(
                    path: "credential authority-public-key.pem",
                    message:
                        "missing (needed by warnings.publicKey); systemd: LoadCredential=authority-public-key.pem:/etc/kiosk/credentials/authority-public-key.pem"
                )
            ])
        ) { try loader.load() }
    }

    @Test func noCredentialsDirectoryIsNamed() throws {
        let scratch = try Scratch(json: "{}")
        let loader = ConfigurationLoader(path: scratch.file, environment: ["CREDENTIALS_DIRECTORY": ""])
        #expect(loader.credentialsDirectory == nil)
        #expect(loader.readCredential("staff-code") == .noCredentialsDirectory)
        #expect(throws: ConfigurationError.self) { try loader.load() }
    }

    @Test func unreadableCredentialSaysWhyWithoutContent() throws {
        guard getuid() != 0 else {
            // Root reads a mode-000 file anyway: check the reason text path with a directory instead.
            let scratch = try Scratch(json: "{}")
            try FileManager.default.createDirectory(
                atPath: scratch.credentials + "/staff-code", withIntermediateDirectories: true)
            let loader = ConfigurationLoader(
                path: scratch.file, environment: [:], credentialsDirectory: scratch.credentials)
            #expect(loader.readCredential("staff-code") == .unreadable(reason: "not a regular file"))
            return
        }
        let scratch = try Scratch(json: "{}")
        try scratch.credential("staff-code", "0123456789abcdef0123", mode: 0)
        let loader = ConfigurationLoader(
            path: scratch.file, environment: [:], credentialsDirectory: scratch.credentials)
        #expect(loader.readCredential("staff-code") == .unreadable(reason: "Permission denied"))
    }

    @Test func oversizedCredentialIsRefused() throws {
        let scratch = try Scratch(json: "{}")
        try scratch.credential(
            "staff-code", String(repeating: "x", count: ConfigurationLoader.maximumCredentialSize + 1))
        let loader = ConfigurationLoader(
            path: scratch.file, environment: [:], credentialsDirectory: scratch.credentials)
        #expect(
            loader.readCredential("staff-code")
                == .unreadable(reason: "larger than \(ConfigurationLoader.maximumCredentialSize) bytes"))
    }
}
