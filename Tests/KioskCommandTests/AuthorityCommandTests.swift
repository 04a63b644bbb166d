import Foundation
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskStore
import Testing

/// `kiosk-authority …` end to end through the built binary, in a temporary directory.
@Suite struct AuthorityCommandTests {
    let crypto = OpenSSLCrypto()

    func temporaryRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-authority-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    /// A batch of `count` real reports for `venue`, as a kiosk exports it.
    func batch(venue: [UInt8], count: Int = 3) throws -> ReportBatch {
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let sealed = try (0..<count).map {
            try CKPR.seal(
                PresenceReport(startIntervalNumber: 2_940_000 + UInt32($0) * 144, period: 6, transmissionRiskLevel: 6),
                keys: keys)
        }
        return try ReportBatch.assemble(sealed, crypto: crypto)
    }

    /// `init`; returns the printed public key.
    func initialize(_ dir: String) throws -> ECDSAPublicKey {
        let result = try CommandRunner.authority(["init", "--dir", dir])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(!result.stdout.contains("PRIVATE"))
        return try ECDSAPublicKey(pem: result.stdout)
    }

    /// A temporary root with an authority initialized in `root/authority`, and the authority's public key.
    func initializedRoot() throws -> (root: String, key: ECDSAPublicKey) {
        let root = try temporaryRoot()
        return (root, try initialize(root + "/authority"))
    }

    /// A CWA venue (from CWA's test vectors) the warning tests name.
    static let venueCode =
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"

    /// The newest published package, verified with `key`.
    func published(_ dir: String, key: ECDSAPublicKey) throws -> WarningPackage {
        let www = dir + "/www/"
        let indexBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + WarningIndexFile.name)))
        let indexSignature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + WarningIndexFile.signatureName)))
        #expect(key.isValidSignature(indexSignature, for: indexBytes))
        let index = try JSONDecoder().decode(WarningIndexFile.self, from: Data(indexBytes))
        let entry = try #require(index.packages.last)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + entry.file)))
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + entry.signature)))
        return try WarningPackage.verified(bytes: bytes, signature: signature, verifier: key)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func initIssueAcceptPublishGivesAPackageThatVerifiesWithThePrintedKey() throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let key = try initialize(dir)
        #expect(try mode(dir) == 0o700)
        #expect(try mode(dir + "/signing-key.pem") == 0o600)
        // A second init would replace the key every kiosk trusts: refused.
        let again = try CommandRunner.authority(["init", "--dir", dir])
        #expect(again.status != 0)
        #expect(again.stderr.contains("already holds a signing key"))

        let issued = try CommandRunner.authority(["issue-code", "--dir", dir, "--valid-for", "24h"])
        #expect(issued.status == 0)
        let code = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 11 && ReportUploader.normalizedCode(code) != nil)
        #expect(issued.stderr.contains("valid until"))
        #expect(try mode(dir + "/state") == 0o700)
        // Only the code's hash is kept.
        let codes = try String(contentsOfFile: dir + "/state/codes.json", encoding: .utf8)
        #expect(!codes.contains(code) && !codes.contains(code.replacingOccurrences(of: "-", with: "")))

        // A receipt of two codes, scanned at the test centre, and an exported file.
        let scanned = try batch(venue: [UInt8](repeating: 0x31, count: 32), count: 5)
        let parts = ReportSealer.parts(of: scanned, recordsPerPart: 8)
        #expect(parts.count == 2)
        let accepted = try CommandRunner.authority(["accept", "--dir", dir] + parts.map(\.text))
        #expect(accepted.status == 0, "stderr: \(accepted.stderr)")
        #expect(accepted.stdout.contains("Accepted 16 records"))
        let exported = try batch(venue: [UInt8](repeating: 0x32, count: 32))
        try Data(exported.bytes).write(to: URL(fileURLWithPath: root + "/export.ckpb"))
        let fromFile = try CommandRunner.authority(["accept", "--dir", dir, root + "/export.ckpb"])
        #expect(fromFile.status == 0, "stderr: \(fromFile.stderr)")

        let publish = try CommandRunner.authority(["publish", "--dir", dir])
        #expect(publish.status == 0, "stderr: \(publish.stderr)")
        // Two people's contributions, and one made-up batch so that the package mixes three.
        #expect(publish.stdout.contains("Published package 1: 48 records"))
        let package = try published(dir, key: key)
        #expect(Set(package.records).isSuperset(of: scanned.records + exported.records))
        #expect(
            package.records.count == scanned.records.count + exported.records.count
                + ReportBatch.paddedCount(forReal: 0))
        let nothing = try CommandRunner.authority(["publish", "--dir", dir])
        #expect(nothing.stdout.contains("Nothing pending"))
    }

    @Test func unreadableInputsAreRefusedAndNothingIsAccepted() throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        _ = try initialize(dir)
        let good = try batch(venue: [UInt8](repeating: 1, count: 32)).text
        let cut = String(good.dropLast(5))
        let result = try CommandRunner.authority(["accept", "--dir", dir, good, cut])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Argument 2"))
        #expect(!result.stderr.contains(cut))
        let notSetUp = try CommandRunner.authority(["accept", "--dir", root + "/elsewhere", good])
        #expect(notSetUp.stderr.contains("authority init"))
        let publish = try CommandRunner.authority(["publish", "--dir", dir])
        #expect(publish.stdout.contains("Nothing pending"))
    }

    @Test func venueWarningsBecomeRecordsTheVenuesKiosksCanOpen() throws {
        let (root, key) = try initializedRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let url = Self.venueCode
        let venue = try #require(try VenueCodeParser.parse(url, crypto: crypto).locationId)
        let day = Int64(Date().timeIntervalSince1970) / 86_400 - 2
        let from = TimeText.date(unixSeconds: day * 86_400) + " 22:00"
        let to = TimeText.date(unixSeconds: (day + 1) * 86_400) + " 01:05"
        let warned = try CommandRunner.authority([
            "warn-venue", "--dir", dir, "--code", url, "--from", from, "--to", to,
        ])
        #expect(warned.status == 0, "stderr: \(warned.stderr)")
        #expect(warned.stdout.contains("2 records"))
        let byId = try CommandRunner.authority([
            "warn-venue", "--dir", dir, "--location-id", Hex.encode(venue),
            "--from", String(day * 86_400 + 3600), "--to", String(day * 86_400 + 7200), "--risk", "8",
        ])
        #expect(byId.status == 0, "stderr: \(byId.stderr)")

        #expect(try CommandRunner.authority(["publish", "--dir", dir]).status == 0)
        let package = try published(dir, key: key)
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        var opened = [PresenceReport]()
        for record in package.records {
            for candidate in [day, day + 1] {
                if let report = try? CKPR.open(record, day: UInt32(candidate), keys: keys) { opened.append(report) }
            }
        }
        let sorted = opened.sorted { $0.startIntervalNumber < $1.startIntervalNumber }
        #expect(sorted.map(\.transmissionRiskLevel) == [8, 5, 5])
        #expect(sorted.map(\.period) == [6, 12, 7])  // 01:00–02:00; 22:00–24:00; 00:00–01:10

        for bad in [
            ["--from", to, "--to", from], ["--from", "yesterday", "--to", to], ["--location-id", "abcd"],
            ["--risk", "9"],
        ] {
            var arguments = ["warn-venue", "--dir", dir, "--code", url, "--from", from, "--to", to]
            if bad.first == "--location-id" { arguments = ["warn-venue", "--dir", dir, "--from", from, "--to", to] }
            let refused = try CommandRunner.run(arguments + bad)
            #expect(refused.status == 64, "accepted \(bad)")
        }
        let notVenue = try CommandRunner.authority([
            "warn-venue", "--dir", dir, "--code", "https://example.org/", "--from", from, "--to", to,
        ])
        #expect(notVenue.status == 2)
        #expect(notVenue.stderr.contains("Not a usable venue code"))
    }

    @Test func cwaVenueWarningsAreSignedWithTheAuthorityKeyAndServedAsHourlyPackages() async throws {
        let (root, key) = try initializedRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let url = Self.venueCode
        let venue = try #require(try VenueCodeParser.parse(url, crypto: crypto).locationId)
        let day = Int64(Date().timeIntervalSince1970) / 86_400 - 1
        // The same window in both spellings the command takes.
        let from = TimeText.date(unixSeconds: day * 86_400) + " 18:00"
        let to = TimeText.date(unixSeconds: day * 86_400) + "T20:30:00+01:00"
        let warned = try CommandRunner.authority([
            "warn-venue-cwa", "--dir", dir, "--code", url, "--from", from, "--to", to, "--publish",
        ])
        #expect(warned.status == 0, "stderr: \(warned.stderr)")
        #expect(warned.stdout.contains("Published hour"))
        let refused = try CommandRunner.authority([
            "warn-venue-cwa", "--dir", dir, "--code", url, "--from", to, "--to", from,
        ])
        #expect(refused.status == 64)

        let server = try CommandRunner.Background(
            ["serve", "--dir", dir, "--port", "0"], executable: "kiosk-authority")
        defer { server.stop() }
        let banner = try server.waitForOutput(containing: "Serving on http://127.0.0.1:")
        let address = try #require(
            banner.split(separator: "\n").first { $0.contains("Serving on") }?
                .split(separator: " ").first { $0.hasPrefix("http://") }
        ).dropLast()
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: false)
        let client = CWAWarningsClient(
            baseURL: String(address) + "/cwa/twp/country/DE", verifier: key, stateDirectory: root + "/kiosk")
        let report = try await client.sync(interestingHashes: [try crypto.sha256(venue)])
        #expect(report.rejected.isEmpty, "\(report.rejected)")
        #expect(report.hoursFetched == 1)
        #expect(report.recordsKept == 1)
        // 18:00 to 19:30 UTC: nine ten-minute intervals at the default host-warning risk level.
        let stay = MatchableStay(
            id: "s", locationId: venue, start: day * 86_400 + 18 * 3600, end: day * 86_400 + 19 * 3600)
        let result = WarningMatcher.match(
            stays: [stay], cwa: await client.warnings, now: Int64(Date().timeIntervalSince1970), crypto: crypto)
        #expect(result.matches.map(\.overlapMinutes) == [60])
        #expect(result.matches.map(\.transmissionRiskLevel) == [TransmissionRisk.hostWarningLevel])
    }

    @Test func servedUploadsTakeEachCodeOnceAndTheKioskReportsThroughIt() async throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/authority"
        let key = try initialize(dir)
        let code = try CommandRunner.authority(["issue-code", "--dir", dir]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let kioskCode = try CommandRunner.authority(["issue-code", "--dir", dir]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)

        let server = try CommandRunner.Background(
            ["serve", "--dir", dir, "--port", "0"], executable: "kiosk-authority")
        defer { server.stop() }
        let banner = try server.waitForOutput(containing: "Serving on http://127.0.0.1:")
        let address = try #require(
            banner.split(separator: "\n").first { $0.contains("Serving on") }?
                .split(separator: " ").first { $0.hasPrefix("http://") }
        ).dropLast()  // drop the trailing "/"
        let uploader = ReportUploader(endpoint: String(address) + "/v1/reports", timeout: .seconds(30))
        let upload = try batch(venue: [UInt8](repeating: 0x44, count: 32))
        try await uploader.upload(upload, verificationCode: code)
        await #expect(throws: UploadError.wrongCode) { try await uploader.upload(upload, verificationCode: code) }
        await #expect(throws: UploadError.wrongCode) {
            try await uploader.upload(upload, verificationCode: "ZZZZZ-ZZZZZ")
        }

        // A simulated kiosk's console uploads through the same server.
        let kiosk = try ReportCommandTests().makeKiosk()
        defer { kiosk.remove() }
        let now = ReportCommandTests().now
        let reported = try CommandRunner.run(
            [
                "simulate", "console", "--state-dir", kiosk.stateDir, "--card", kiosk.card.printedText, "--authority",
                String(address), "--now", String(now),
            ],
            input: ["1", "done", "symptoms", "upload ABCDE-FGHJK", "ok", "yes", "upload \(kioskCode)", "ok", "yes"]
                .joined(separator: "\n") + "\n")
        #expect(reported.status == 0, "stderr: \(reported.stderr)")
        // The made-up code was refused, and the holder chose to upload again with the right one.
        #expect(reported.stdout.contains(UploadError.wrongCode.description))
        #expect(reported.stdout.contains("Sent: 1 report reached the health authority."))
        // No request is logged with an address, and refused codes are counted, not logged one by one (two uploads
        // were accepted; three codes were refused).
        let uploadLines = server.output.split(separator: "\n").filter { $0.contains("Upload") }
        #expect(uploadLines.count == 2 && uploadLines.allSatisfy { $0.contains("Upload accepted") })
        #expect(!uploadLines.contains { $0.contains("127.0.0.1") || $0.contains(code) || $0.contains(kioskCode) })

        #expect(try CommandRunner.authority(["publish", "--dir", dir]).status == 0)
        let package = try published(dir, key: key)
        // The two uploads, and one made-up batch so that the package mixes three contributions.
        #expect(package.records.count == upload.records.count + 2 * ReportBatch.paddedCount(forReal: 1))
        #expect(Set(upload.records).isSubset(of: Set(package.records)))
        let keys = try CKPR.deriveKeys(locationId: ReportCommandTests().venueId, crypto: crypto)
        let fromKiosk = package.records.compactMap { record in
            ((now / 86_400 - 4)...(now / 86_400)).lazy.compactMap {
                try? CKPR.open(record, day: UInt32($0), keys: keys)
            }.first
        }
        #expect(
            fromKiosk
                == StayPreparation.reports(
                    stayStart: kiosk.stayStart, stayEnd: kiosk.stayEnd, reportTime: now, symptoms: .symptomsWithoutDate)
        )
    }
}
