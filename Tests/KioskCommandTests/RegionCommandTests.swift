import Foundation
import Testing

/// `kiosk region …` run as field staff run it, against tokens of a real SoftHSM2 (Debian's softhsm2) in a directory
/// of each test's own (`SOFTHSM2_CONF` handed to the command).
@Suite struct RegionCommandTests {
    static let module = "/usr/lib/softhsm/libsofthsm2.so"
    static let utility = "/usr/bin/softhsm2-util"
    static let pin = "246810"
    static let officerPIN = "87654321"
    static let components = ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", "1122334455667788 99aabbccddeeff00"]

    struct NotInstalled: Error, CustomStringConvertible {
        var description: String {
            "SoftHSM2 is not installed: install Debian's softhsm2 (`apt-get install softhsm2`; `board/kiosk-dev test`"
                + " installs it)"
        }
    }

    /// A SoftHSM2 directory with tokens, the PIN files, two custodians' component files and a configuration.
    struct Tokens {
        let directory: String
        let environment: [String: String]

        init(_ labels: [String]) throws {
            guard FileManager.default.fileExists(atPath: RegionCommandTests.utility),
                FileManager.default.fileExists(atPath: RegionCommandTests.module)
            else { throw NotInstalled() }
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-region-\(UUID())").path
            try FileManager.default.createDirectory(
                atPath: directory + "/tokens", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: directory + "/credentials", withIntermediateDirectories: true)
            let configuration = directory + "/softhsm2.conf"
            try "directories.tokendir = \(directory)/tokens\nobjectstore.backend = file\nlog.level = ERROR\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            environment = ["SOFTHSM2_CONF": configuration]
            for label in labels {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: RegionCommandTests.utility)
                process.arguments = [
                    "--init-token", "--free", "--label", label, "--so-pin", RegionCommandTests.officerPIN, "--pin",
                    RegionCommandTests.pin,
                ]
                process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "softhsm2-util --init-token \(label)")
            }
            try "\(RegionCommandTests.pin)\n".write(toFile: pinFile, atomically: true, encoding: .utf8)
            try "\(RegionCommandTests.pin)\n".write(
                toFile: directory + "/credentials/region-pin", atomically: true, encoding: .utf8)
            try "\(RegionCommandTests.officerPIN)\n".write(toFile: officerPINFile, atomically: true, encoding: .utf8)
            for (index, component) in RegionCommandTests.components.enumerated() {
                try (component + "\n").write(toFile: componentFile(index), atomically: true, encoding: .utf8)
            }
        }

        var pinFile: String { directory + "/pin" }
        var officerPINFile: String { directory + "/so-pin" }
        func componentFile(_ index: Int) -> String { directory + "/component-\(index)" }

        /// `--module`, `--token` and `--pin-file` for `token`, and `--region` when given.
        func options(_ token: String, region: String? = "Ticino") -> [String] {
            ["--module", RegionCommandTests.module, "--token", token, "--pin-file", pinFile]
                + (region.map { ["--region", $0] } ?? [])
        }

        func run(_ arguments: [String]) throws -> CommandRunner.Result {
            let result = try CommandRunner.run(["region"] + arguments, environment: environment)
            // Nothing a region command says holds a component or the wrapping key.
            let said = (result.stdout + result.stderr).lowercased()
            for component in RegionCommandTests.components {
                #expect(!said.contains(component.filter { $0 != " " }))
            }
            return result
        }

        func installWrappingKey(_ token: String) throws {
            // The security officer gives neither the user's PIN nor the region's name.
            let result = try run(
                ["install-wrapping-key", "--module", RegionCommandTests.module, "--token", token] + [
                    "--component", componentFile(0), "--component", componentFile(1), "--so-pin-file", officerPINFile,
                ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Wrapping key region-wrap installed on token '\(token)' from 2 components"))
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test func aRegionIsSetUpCopiedRotatedAndRetired() throws {
        let tokens = try Tokens(["kiosk-a", "kiosk-b"])
        defer { tokens.remove() }
        try tokens.installWrappingKey("kiosk-a")
        try tokens.installWrappingKey("kiosk-b")

        let set = try tokens.run(["init"] + tokens.options("kiosk-a"))
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdout.contains("Region 'Ticino' set up on token 'kiosk-a': card key generation 1 (region-card-g1)"))

        let file = tokens.directory + "/region.keys"
        let exported = try tokens.run(["export", "--to", file] + tokens.options("kiosk-a"))
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("Wrote \(file): region 'Ticino', card key generations 1 and the day key of"))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("kiosk-region-keys 1\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let imported = try tokens.run(["import", file] + tokens.options("kiosk-b"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("into token 'kiosk-b' of region 'Ticino': generations added 1, kept none"))

        let statusA = try tokens.run(["status"] + tokens.options("kiosk-a"))
        let statusB = try tokens.run(["status"] + tokens.options("kiosk-b"))
        #expect(statusA.status == 0 && statusB.status == 0)
        #expect(statusA.stdout.contains("card key generations: 1 (newest: 1)\n"))
        #expect(statusA.stdout.contains("wrapping key: installed\n"))
        let lines = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("region:") } }
        #expect(lines(statusA.stdout) == lines(statusB.stdout))

        let rotated = try tokens.run(["rotate"] + tokens.options("kiosk-a"))
        #expect(rotated.status == 0)
        #expect(rotated.stdout.hasPrefix("Generation 2 (region-card-g2) generated on token 'kiosk-a'."))
        let newest = try tokens.run(["retire", "--generation", "2"] + tokens.options("kiosk-a"))
        #expect(newest.status == 1)
        #expect(newest.stderr.contains("generation 2 is the newest, the one new cards get: rotate first"))
        let retired = try tokens.run(["retire", "--generation", "1"] + tokens.options("kiosk-a"))
        #expect(retired.status == 0)
        #expect(retired.stdout.contains("Generation 1 (region-card-g1) destroyed on token 'kiosk-a'"))
        let after = try tokens.run(["status"] + tokens.options("kiosk-a"))
        #expect(after.stdout.contains("card key generations: 2 (newest: 2)\n"))

        // The second kiosk takes generation 2 from a new export and keeps its own 1 until it retires it.
        let second = tokens.directory + "/region-2.keys"
        #expect(try tokens.run(["export", "--to", second] + tokens.options("kiosk-a")).status == 0)
        let again = try tokens.run(["import", second] + tokens.options("kiosk-b"))
        #expect(again.stdout.contains("generations added 2, kept none"), "\(again.stdout)")
        #expect(try tokens.run(["status"] + tokens.options("kiosk-b")).stdout.contains("generations: 1, 2 (newest: 2)"))
    }

    @Test func theConfigurationsRegionSectionNamesTheTokenAndItsPIN() throws {
        let tokens = try Tokens(["kiosk-region"])
        defer { tokens.remove() }
        let configuration = tokens.directory + "/kiosk.json"
        try #"{"region": {"name": "Ticino", "module": "\#(Self.module)"}}"#.write(
            toFile: configuration, atomically: true, encoding: .utf8)
        let options = ["--config", configuration, "--credentials", tokens.directory + "/credentials"]
        let set = try tokens.run(["init"] + options)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("Region 'Ticino' set up on token 'kiosk-region'"))
        #expect(set.stdout.contains("The token has no wrapping key yet"))
        let status = try tokens.run(["status"] + options)
        #expect(status.stdout.hasPrefix("region: Ticino (token 'kiosk-region', module \(Self.module))\n"))
        #expect(status.stdout.contains("wrapping key: not installed"))
        // Without the wrapping key nothing is exported.
        let export = try tokens.run(["export", "--to", tokens.directory + "/out"] + options)
        #expect(export.status == 1)
        #expect(export.stderr.contains("the token has no wrapping key (region-wrap)"))
        #expect(!FileManager.default.fileExists(atPath: tokens.directory + "/out"))
        // A configuration without the section, or with problems.
        try "{}".write(toFile: configuration, atomically: true, encoding: .utf8)
        let none = try tokens.run(["status", "--config", configuration])
        #expect(none.status == 1)
        #expect(none.stderr.contains("has no \"region\" section: add one (docs/configuration.md)"))
        try #"{"region": {"name": ""}}"#.write(toFile: configuration, atomically: true, encoding: .utf8)
        let bad = try tokens.run(["status", "--config", configuration])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("region.name: must not be empty"))
    }

    @Test func everyBadInputIsNamed() throws {
        let tokens = try Tokens(["kiosk-a", "kiosk-b"])
        defer { tokens.remove() }
        func expectFailure(_ arguments: [String], status: Int32, _ message: String) throws {
            let result = try tokens.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let a = tokens.options("kiosk-a")
        try expectFailure(
            ["install-wrapping-key", "--component", tokens.componentFile(0), "--so-pin-file", tokens.officerPINFile]
                + a, status: 64, "give two or more --component files")
        try expectFailure(
            [
                "install-wrapping-key", "--component", tokens.componentFile(0), "--component", tokens.componentFile(0),
                "--so-pin-file", tokens.officerPINFile,
            ] + a, status: 64, "the same --component file is given twice")
        try "not hexadecimal\n".write(toFile: tokens.directory + "/bad", atomically: true, encoding: .utf8)
        try expectFailure(
            [
                "install-wrapping-key", "--component", tokens.componentFile(0), "--component",
                tokens.directory + "/bad",
                "--so-pin-file", tokens.officerPINFile,
            ] + a, status: 1, "does not hold 32 hexadecimal digits")
        try expectFailure(
            [
                "install-wrapping-key", "--component", tokens.componentFile(0), "--component", tokens.componentFile(1),
                "--so-pin-file", tokens.pinFile,
            ] + a, status: 1, "CKR_PIN_INCORRECT")
        try expectFailure(
            ["init", "--region", String(repeating: "x", count: 21)] + tokens.options("kiosk-a", region: nil),
            status: 64, "--region is 21 bytes in UTF-8: at most 20")
        try expectFailure(["retire", "--generation", "0"] + a, status: 64, "--generation is 1 to 255, not 0")
        try expectFailure(["status"] + tokens.options("kiosk-z"), status: 1, "no PKCS #11 token labelled 'kiosk-z'")
        try "999999\n".write(toFile: tokens.directory + "/wrong-pin", atomically: true, encoding: .utf8)
        try expectFailure(
            [
                "status", "--module", Self.module, "--token", "kiosk-a", "--pin-file", tokens.directory + "/wrong-pin",
                "--region", "Ticino",
            ], status: 1, "CKR_PIN_INCORRECT")
        try expectFailure(
            [
                "status", "--module", "/nonexistent/module.so", "--token", "kiosk-a", "--pin-file", tokens.pinFile,
                "--region", "Ticino",
            ], status: 1, "could not be loaded")
        try expectFailure(
            ["status"] + a + ["--module", "libsofthsm2.so"], status: 64, "--module needs an absolute path")
        try expectFailure(["rotate"] + a, status: 1, "the token holds no region keys: run `kiosk region init`")
        try expectFailure(["export", "--to", tokens.directory + "/x"] + a, status: 1, "the token holds no region keys")
        #expect(try tokens.run(["init"] + a).status == 0)
        try expectFailure(["init"] + a, status: 1, "the token holds region keys already (generations 1 and a day key)")
        try expectFailure(["export", "--to", tokens.pinFile] + a, status: 64, "exists already")
        try expectFailure(["import", tokens.directory + "/none"] + a, status: 1, "cannot be read")
        try expectFailure(["import", tokens.directory + "/bad"] + a, status: 1, "is not a region key export: line 1:")
        // An export from kiosk-a of another region name is refused at kiosk-b.
        try tokens.installWrappingKey("kiosk-a")
        try tokens.installWrappingKey("kiosk-b")
        let file = tokens.directory + "/region.keys"
        #expect(try tokens.run(["export", "--to", file] + a).status == 0)
        try expectFailure(
            ["import", file] + tokens.options("kiosk-b", region: "Vaud"), status: 1,
            "the file is another region's keys")
        try expectFailure(
            [
                "install-wrapping-key", "--component", tokens.componentFile(0), "--component", tokens.componentFile(1),
                "--so-pin-file", tokens.officerPINFile,
            ] + a, status: 1, "has a wrapping key (region-wrap) already")
    }
}
