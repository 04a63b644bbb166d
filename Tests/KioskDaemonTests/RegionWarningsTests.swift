import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import Testing

@testable import KioskDaemon

/// `warnings.keepRegion`: packages loaded from a stick (the same path as a download) leave the region's records in
/// the kiosk, so a stay at another venue of the region matches through `matchRegion`; records past the maximum age,
/// and packages that are not signed by the configured key, leave nothing; a restarted kiosk has the region again.
@Suite struct RegionWarningsTests {
    struct FixedClock: ClockSource {
        let reading: ClockReading
        func read() -> ClockReading { reading }
    }

    let crypto = OpenSSLCrypto()
    /// The kiosk's own venue, and two other venues of the region.
    let kioskVenue = [UInt8](repeating: 0x11, count: 32)
    let venueX = [UInt8](repeating: 0x22, count: 32)
    let venueY = [UInt8](repeating: 0x33, count: 32)
    let day: Int64 = 20_400
    var now: Int64 { day * 86_400 + 14 * 3600 }

    /// A folder for the kiosk's state and one for the stick.
    static func folders() throws -> (root: String, state: String, stick: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString)").path
        for folder in [root + "/state", root + "/stick"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        return (root, root + "/state", root + "/stick")
    }

    /// The daemon's warnings as `kiosk run` makes them from its configuration: both sources, `keepRegion` as given,
    /// the authority's key.
    func makeWarnings(state: String, key: ECDSAPrivateKey, keepRegion: Bool, at time: Int64? = nil) throws
        -> DaemonWarnings
    {
        var configuration = KioskConfiguration()
        configuration.warnings.baseURL = "http://127.0.0.1:9/w"
        configuration.warnings.cwaBaseURL = "http://127.0.0.1:9/c/twp/country/DE"
        configuration.warnings.keepRegion = keepRegion
        var settings = DaemonSettings(configuration, secrets: ConfigurationSecrets(), stateDirectory: state)
        let pem = try key.publicKey().pemRepresentation
        settings.warningsPublicKeyPEM = pem
        settings.warningsCWAPublicKeyPEM = pem
        let date = Date(timeIntervalSince1970: TimeInterval(time ?? now))
        let made = try DaemonWarnings.make(
            settings: settings, crypto: crypto,
            clock: FixedClock(reading: ClockReading(now: date, isSynchronized: true, floor: date)),
            logger: Logger(label: "region-warnings-tests"))
        return try #require(made)
    }

    /// A CKPW/1 package (a loose `*.bin` with its `*.bin.sig`) warning about `venue` from 10:00 to 11:00 of `day`,
    /// made at `createdAt`, signed by `signer`.
    func writeCKPW(
        _ name: String, venue: [UInt8], day: Int64, createdAt: Int64, signer: ECDSAPrivateKey, in stick: String
    ) throws {
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let record = try CKPR.seal(
            PresenceReport(startIntervalNumber: UInt32(day * 144 + 60), period: 6, transmissionRiskLevel: 7),
            keys: keys)
        let package = try WarningPackage(createdAt: UInt64(createdAt), records: [record]).bytes
        try Data(package).write(to: URL(fileURLWithPath: stick + "/" + name))
        try Data(try signer.signature(for: package)).write(to: URL(fileURLWithPath: stick + "/" + name + ".sig"))
    }

    /// A CWA hour in the distribution layout (`hour/index`, `hour/<h>/index`) warning about `venue` from 10:00 to
    /// 11:00 of `day`, signed by `signer`.
    func writeCWA(venue: [UInt8], day: Int64, hour: Int64, signer: ECDSAPrivateKey, in stick: String) throws {
        let warning = CWATraceWarning(
            locationIdHash: try crypto.sha256(venue), startIntervalNumber: UInt32(day * 144 + 60), period: 6,
            transmissionRiskLevel: 5)
        let zip = try CWAHourlyPackage.make(
            CWATraceWarningPackage(hour: UInt32(hour), region: "DE", timeIntervalWarnings: [warning]), signer: signer)
        try FileManager.default.createDirectory(atPath: stick + "/hour/\(hour)", withIntermediateDirectories: true)
        try Data("[\(hour)]".utf8).write(to: URL(fileURLWithPath: stick + "/hour/index"))
        try Data(zip).write(to: URL(fileURLWithPath: stick + "/hour/\(hour)/index"))
    }

    /// A one-hour stay at `venue` from 10:00 of `day`.
    func stay(_ id: String, at venue: [UInt8], day: Int64) -> MatchableStay {
        MatchableStay(id: id, locationId: venue, start: day * 86_400 + 10 * 3600, end: day * 86_400 + 11 * 3600)
    }

    @Test func theConfigurationSwitchesItOnAndOff() throws {
        #expect(try KioskConfiguration.parse(json: "{}").warnings.keepRegion == false)
        #expect(try KioskConfiguration.parse(json: #"{"warnings": {"keepRegion": true}}"#).warnings.keepRegion)
        #expect(
            try KioskConfiguration.parse(json: "{}", environment: ["KIOSK_WARNINGS_KEEP_REGION": "yes"]).warnings
                .keepRegion)
        #expect(throws: ConfigurationError.self) {
            try KioskConfiguration.parse(json: #"{"warnings": {"keepRegion": "all"}}"#)
        }
    }

    @Test func aStayAtAnotherVenueMatchesOnlyWhenTheRegionIsKept() async throws {
        let (root, _, stick) = try Self.folders()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        try writeCKPW("ckpw-1.bin", venue: venueX, day: day, createdAt: now - 3600, signer: key, in: stick)
        try writeCWA(venue: venueY, day: day, hour: now / 3600 - 1, signer: key, in: stick)
        let stays = [stay("x", at: venueX, day: day), stay("y", at: venueY, day: day)]

        for keepRegion in [true, false] {
            let state = root + "/state-\(keepRegion)"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            let warnings = try makeWarnings(state: state, key: key, keepRegion: keepRegion)
            let loaded = await warnings.load(directory: stick, venues: [kioskVenue])
            #expect(loaded.ok, "\(loaded.lines)")
            // The kiosk's own venue's records: none, either way; `match` is as before.
            #expect(await warnings.match(stays) == nil)
            let result = try await warnings.matchRegion(stays)
            if keepRegion {
                let matched = try #require(result)
                #expect(Set(matched.matches.map(\.stayId)) == ["x", "y"])
                #expect(matched.matches.allSatisfy { $0.day == day && $0.overlapMinutes == 60 })
                #expect(loaded.lines.last == "Warnings (region): 1 CKPW/1 record(s), 1 CWA record(s) kept.")
            } else {
                #expect(result == nil)
                #expect(!FileManager.default.fileExists(atPath: state + "/warnings/" + RegionWarnings.fileName))
            }
        }
    }

    @Test func recordsPastTheMaximumAgeAreNotKept() async throws {
        let (root, state, stick) = try Self.folders()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        // Published 20 days ago, about a stay that day.
        let old = day - 20
        try writeCKPW(
            "ckpw-old.bin", venue: venueX, day: old, createdAt: old * 86_400 + 13 * 3600, signer: key, in: stick)
        try writeCWA(venue: venueY, day: old, hour: old * 24 + 13, signer: key, in: stick)
        // And a fresh one.
        try writeCKPW("ckpw-new.bin", venue: venueX, day: day, createdAt: now - 3600, signer: key, in: stick)
        let warnings = try makeWarnings(state: state, key: key, keepRegion: true)
        #expect(await warnings.load(directory: stick, venues: [kioskVenue]).ok)
        let index = try #require(warnings.region).index
        #expect(index.ckprRecordCount == 1)
        #expect(index.cwaWarningCount == 0)
        #expect(
            try await warnings.matchRegion([stay("old", at: venueX, day: old), stay("y", at: venueY, day: old)]) == nil)
        #expect(try await warnings.matchRegion([stay("new", at: venueX, day: day)]) != nil)

        // Fifteen days on, the fresh one is past the age too: gone at the next sync (which fails: no server), from
        // memory and from the file.
        let later = try makeWarnings(state: state, key: key, keepRegion: true, at: now + 15 * 86_400)
        #expect(await later.sync(venues: [kioskVenue]).ok == false)
        #expect(try #require(later.region).index.ckprRecordCount == 0)
        let restarted = try makeWarnings(state: state, key: key, keepRegion: true, at: now + 15 * 86_400)
        #expect(try #require(restarted.region).startedEmpty == false)
        #expect(try #require(restarted.region).index.ckprRecordCount == 0)
    }

    @Test func aPackageNotSignedByTheAuthorityAddsNothing() async throws {
        let (root, state, stick) = try Self.folders()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let forger = try ECDSAPrivateKey()
        try writeCKPW("ckpw-forged.bin", venue: venueX, day: day, createdAt: now - 3600, signer: forger, in: stick)
        try writeCWA(venue: venueY, day: day, hour: now / 3600 - 1, signer: forger, in: stick)
        // A package signed by the authority, changed after it was signed.
        try writeCKPW("ckpw-changed.bin", venue: venueX, day: day, createdAt: now - 3600, signer: key, in: stick)
        var changed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stick + "/ckpw-changed.bin")))
        changed[changed.count - 1] ^= 1
        try Data(changed).write(to: URL(fileURLWithPath: stick + "/ckpw-changed.bin"))

        let warnings = try makeWarnings(state: state, key: key, keepRegion: true)
        let loaded = await warnings.load(directory: stick, venues: [kioskVenue])
        #expect(loaded.ok == false)
        #expect(loaded.lines.filter { $0.contains("refused") }.count == 3, "\(loaded.lines)")
        let index = try #require(warnings.region).index
        #expect(index.ckprRecordCount == 0 && index.cwaWarningCount == 0 && index.cwaReportCount == 0)
        #expect(
            try await warnings.matchRegion([stay("x", at: venueX, day: day), stay("y", at: venueY, day: day)]) == nil)
    }

    @Test func aRegionFileCutShortIsNotTakenForNoWarning() async throws {
        let (root, state, stick) = try Self.folders()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        try writeCKPW("ckpw-1.bin", venue: venueX, day: day, createdAt: now - 3600, signer: key, in: stick)
        let warnings = try makeWarnings(state: state, key: key, keepRegion: true)
        #expect(await warnings.load(directory: stick, venues: [kioskVenue]).ok)
        let stays = [stay("x", at: venueX, day: day)]
        #expect(try await warnings.matchRegion(stays) != nil)
        // The records are read from the file at a lookup: cut short, the lookup throws instead of answering nil.
        let handle = try #require(FileHandle(forUpdatingAtPath: state + "/warnings/" + RegionWarnings.fileName))
        try handle.truncate(atOffset: 5)
        try handle.close()
        await #expect(throws: RegionWarningReadError.cutShort) { try await warnings.matchRegion(stays) }
    }

    @Test func aRestartedKioskHasTheRegionAgain() async throws {
        let (root, state, stick) = try Self.folders()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        try writeCKPW("ckpw-1.bin", venue: venueX, day: day, createdAt: now - 3600, signer: key, in: stick)
        try writeCWA(venue: venueY, day: day, hour: now / 3600 - 1, signer: key, in: stick)
        let stays = [stay("x", at: venueX, day: day), stay("y", at: venueY, day: day)]
        let first = try makeWarnings(state: state, key: key, keepRegion: true)
        #expect(await first.load(directory: stick, venues: [kioskVenue]).ok)
        let before = try #require(try await first.matchRegion(stays))

        // A new daemon on the same state directory, the stick gone: the stored index.
        let restarted = try makeWarnings(state: state, key: key, keepRegion: true)
        #expect(try #require(restarted.region).startedEmpty == false)
        #expect(try await restarted.matchRegion(stays) == before)

        // Without the stored index, the hours taken are forgotten, so that they are taken again.
        try FileManager.default.removeItem(atPath: state + "/warnings/" + RegionWarnings.fileName)
        let emptied = try makeWarnings(state: state, key: key, keepRegion: true)
        #expect(try #require(emptied.region).startedEmpty)
        #expect(await emptied.cwaClient?.state.seenHours.isEmpty == true)
        #expect(try await emptied.matchRegion(stays) == nil)
        #expect(await emptied.load(directory: stick, venues: [kioskVenue]).ok)
        #expect(try await emptied.matchRegion(stays) == before)

        // Switched off, the stored index is removed.
        _ = try makeWarnings(state: state, key: key, keepRegion: false)
        #expect(!FileManager.default.fileExists(atPath: state + "/warnings/" + RegionWarnings.fileName))
    }
}
