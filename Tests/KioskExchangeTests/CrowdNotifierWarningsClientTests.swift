import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSodium
import Testing

/// The CrowdNotifier events client reading a copy of the authority's folder (a USB stick): only signed files under
/// the configured key, only the venue's identities kept, a newer list replaces the old one, an older one is refused.
@Suite struct CrowdNotifierWarningsClientTests {
    let crypto = OpenSSLCrypto()
    let box = SodiumSecretBox()

    func keys(_ seed: UInt8) throws -> CrowdNotifierVenueKeys {
        try CrowdNotifierVenueKeys.v3(payload: [UInt8](repeating: seed, count: 40), crypto: crypto)
    }

    func write(
        _ events: [CrowdNotifierEvent], createdAt: UInt64, signer: ECDSAPrivateKey, to folder: String
    ) throws {
        let bytes = try CrowdNotifierEventPackage(form: .v3, createdAt: createdAt, events: events).bytes()
        let name = folder + "/" + CrowdNotifierEventPackage.fileName(.v3)
        try Data(bytes).write(to: URL(fileURLWithPath: name))
        try Data(try signer.signature(for: bytes)).write(to: URL(fileURLWithPath: name + ".sig"))
    }

    func event(_ keys: CrowdNotifierVenueKeys, hour: Int64) throws -> CrowdNotifierEvent {
        try CrowdNotifierEvent.sealV3(
            keys: keys, hour: hour, start: hour * 3600, end: hour * 3600 + 1800,
            nonce: try crypto.randomBytes(count: 24), crypto: crypto, box: box)
    }

    @Test func aStickIsReadWithTheSameChecksAsADownload() async throws {
        let state = try TemporaryDirectory()
        let stick = try TemporaryDirectory()
        defer {
            state.remove()
            stick.remove()
        }
        let authority = try ECDSAPrivateKey()
        let client = CrowdNotifierWarningsClient(
            baseURL: "http://127.0.0.1:9/warnings", verifier: try authority.publicKey(), stateDirectory: state.path)
        await #expect(throws: WarningsSyncError.noMedium) {
            try await client.sync(interestingIdentities: [], fromDirectory: stick.path)
        }
        let ours = try keys(1)
        let theirs = try keys(2)
        let hour: Int64 = 497_222
        let interesting = Set(
            CrowdNotifierMatcher.identities(keys: ours, hours: (hour - 2)...(hour + 2), crypto: crypto))
        try write(
            [try event(ours, hour: hour), try event(theirs, hour: hour), try event(ours, hour: hour + 10)],
            createdAt: 100, signer: authority, to: stick.path)
        let first = try await client.sync(interestingIdentities: interesting, fromDirectory: stick.path)
        #expect(first.filesTaken == 1 && first.eventsKept == 1 && first.rejected.isEmpty)
        #expect(await client.index.count == 1)

        // Another authority's signature: refused, the kept event stays.
        try write([try event(ours, hour: hour - 1)], createdAt: 200, signer: try ECDSAPrivateKey(), to: stick.path)
        let foreign = try await client.sync(interestingIdentities: interesting, fromDirectory: stick.path)
        #expect(foreign.rejected.count == 1 && foreign.filesTaken == 0)
        #expect(await client.index.events(identity: try ours.identity(hour: hour, crypto: crypto)).count == 1)

        // An older list replayed: refused. A newer one replaces the kept events.
        try write([], createdAt: 50, signer: authority, to: stick.path)
        let older = try await client.sync(interestingIdentities: interesting, fromDirectory: stick.path)
        #expect(older.rejected.count == 1)
        #expect(await client.index.count == 1)
        try write(
            [try event(ours, hour: hour + 1), try event(ours, hour: hour + 2)], createdAt: 300, signer: authority,
            to: stick.path)
        let newer = try await client.sync(interestingIdentities: interesting, fromDirectory: stick.path)
        #expect(newer.eventsKept == 2)
        #expect(await client.index.events(identity: try ours.identity(hour: hour, crypto: crypto)).isEmpty)

        // What was kept survives a restart; retaining fewer identities drops the rest.
        let reopened = CrowdNotifierWarningsClient(
            baseURL: "http://127.0.0.1:9/warnings", verifier: try authority.publicKey(), stateDirectory: state.path)
        #expect(await reopened.index.count == 2)
        try await reopened.retain(identities: [try ours.identity(hour: hour + 1, crypto: crypto)])
        #expect(await reopened.index.count == 1)
    }

    /// NotifyMe's v3 backend file is read beside the others, and a state written before that form was known still
    /// loads with what it kept.
    @Test func notifyMesV3FileIsReadAndAnOlderStateStillLoads() async throws {
        let state = try TemporaryDirectory()
        let stick = try TemporaryDirectory()
        defer {
            state.remove()
            stick.remove()
        }
        let authority = try ECDSAPrivateKey()
        let ours = try keys(5)
        let hour: Int64 = 497_222
        let event = try CrowdNotifierEvent.sealNotifyMeV3(
            keys: ours, hour: hour, start: hour * 3600, end: hour * 3600 + 600,
            nonce: try crypto.randomBytes(count: 24), crypto: crypto, box: box)
        let bytes = try CrowdNotifierEventPackage(form: .notifyMeV3, createdAt: 10, events: [event]).bytes()
        let name = stick.path + "/" + CrowdNotifierEventPackage.fileName(.notifyMeV3)
        try Data(bytes).write(to: URL(fileURLWithPath: name))
        try Data(try authority.signature(for: bytes)).write(to: URL(fileURLWithPath: name + ".sig"))
        #expect(CrowdNotifierWarningsClient.holdsEvents(stick.path))
        let client = CrowdNotifierWarningsClient(
            baseURL: "http://127.0.0.1:9/warnings", verifier: try authority.publicKey(), stateDirectory: state.path)
        let report = try await client.sync(
            interestingIdentities: [try ours.identity(hour: hour, crypto: crypto)], fromDirectory: stick.path)
        #expect(report.filesTaken == 1 && report.eventsKept == 1 && report.rejected.isEmpty)
        #expect(await client.index.events(identity: event.identity) == [event])

        // The state file as a kiosk wrote it before: no notifyMeV3 key.
        let v3Only = #"{"v2":{"events":[]},"v3":{"createdAt":7,"events":[]}}"#
        try Data(v3Only.utf8).write(to: URL(fileURLWithPath: state.path + "/crowdnotifier.json"))
        let reopened = CrowdNotifierWarningsClient(
            baseURL: "http://127.0.0.1:9/warnings", verifier: try authority.publicKey(), stateDirectory: state.path)
        #expect(await reopened.state.v3.createdAt == 7)
        let notifyMe = await reopened.state.notifyMeV3
        #expect(notifyMe.events.isEmpty && notifyMe.createdAt == nil)
    }
}
