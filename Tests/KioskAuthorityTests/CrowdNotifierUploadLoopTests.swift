import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import KioskSodium
import Logging
import Testing

/// SwissCovid's server-based CrowdNotifier through the share flow: a positive visitor's consented stay at a SwissCovid
/// venue leaves in one upload with one verification code (the batch, CWA's payload and the `UserUploadPayload`); the
/// authority turns the entries into problematic events; another kiosk downloads them over HTTP and warns only the
/// stay that was at that venue in those hours. A stick or a receipt reaches the same events through
/// `kiosk-authority accept`.
@Suite struct CrowdNotifierUploadLoopTests {
    let crypto = OpenSSLCrypto()
    let box = SodiumSecretBox()
    let now: Int64 = 1_764_000_000

    @Test func anUploadedSwissCovidStayWarnsTheOthersWhoWereThereThenOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cn-up-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let publisher = try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: key)
        let code = try await publisher.issueCode(now: now)
        let venue = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 100), crypto: crypto)
        let otherVenue = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 100), crypto: crypto)
        let stayStart = now - 30 * 3600 - now % 3600 + 15 * 60  // hh:15, 30 hours ago
        let stay = ReportableStay(
            id: "positive", venueName: "Caffè Aurora", locationId: try crypto.sha256([1]), start: stayStart,
            end: stayStart + 90 * 60, crowdNotifier: venue)
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [stay], now: now, symptoms: .symptomsWithoutDate, output: .upload(verificationCode: code))
        #expect(preview.hourPartCount == 2)

        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { [now] in now })
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let delivery = ReportDelivery(uploader: ReportUploader(endpoint: base + "/v1/reports"))
            // A payload that does not read is refused before the code is spent.
            await #expect(throws: UploadError.refused) {
                try await ReportUploader(endpoint: base + "/v1/reports").upload(
                    try ReportSealer.batch(for: preview, crypto: crypto), cwaSubmission: [],
                    crowdNotifierUpload: [0xFF, 0xFF], verificationCode: code)
            }
            let line = try await delivery.sendConsented(preview, crypto: crypto)
            #expect(line.hasPrefix("Sent:"))
            let published = try await publisher.publishCrowdNotifier(now: now + 60)
            // Every entry becomes an event, decoys included (their identities are random).
            #expect(published[.v3] == ReportBatch.paddedCount(forReal: 2))

            // Another kiosk downloads the events and matches its own stays.
            let kiosk = root + "/kiosk-b"
            try FileManager.default.createDirectory(atPath: kiosk, withIntermediateDirectories: true)
            let events = CrowdNotifierWarningsClient(
                baseURL: base + "/warnings", verifier: try key.publicKey(), stateDirectory: kiosk)
            let hours = CrowdNotifierVenueKeys.hours(from: now - 3 * 86_400, to: now)
            let interesting = Set(
                CrowdNotifierMatcher.identities(keys: venue, hours: hours, crypto: crypto)
                    + CrowdNotifierMatcher.identities(keys: otherVenue, hours: hours, crypto: crypto))
            let sync = try await events.sync(interestingIdentities: interesting)
            #expect(sync.rejected.isEmpty, "\(sync.rejected)")
            #expect(sync.eventsKept == 2)
            let together = MatchableStay(
                id: "together", locationId: [], start: stayStart + 3600, end: stayStart + 2 * 3600,
                crowdNotifier: venue)
            let nextDay = MatchableStay(
                id: "next day", locationId: [], start: stayStart + 86_400, end: stayStart + 86_400 + 3600,
                crowdNotifier: venue)
            let elsewhere = MatchableStay(
                id: "elsewhere", locationId: [], start: stayStart, end: stayStart + 3600, crowdNotifier: otherVenue)
            let result = CrowdNotifierMatcher.match(
                stays: [together, nextDay, elsewhere], index: await events.index, crypto: crypto, box: box)
            #expect(result.matches.map(\.stayId) == ["together"])
            #expect(result.matches.first?.overlapMinutes == 30)
        }
    }

    /// On a stick: the `.crowdnotifier-upload.pb` file beside the batch; `ReceivedUpload` refuses a three-part body
    /// whose payload does not read, and reads one that does into its entries.
    @Test func theExportWritesThePayloadAndTheAuthorityReadsIt() async throws {
        let stick = FileManager.default.temporaryDirectory.appendingPathComponent("cn-stick-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: stick) }
        let venue = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 100), crypto: crypto)
        let start = now - 86_400
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [
                ReportableStay(
                    id: "s", venueName: "Bibliothek", locationId: try crypto.sha256([2]), start: start,
                    end: start + 1800, crowdNotifier: venue)
            ], now: now, output: .export)
        let line = try await ReportDelivery(exportDirectory: stick).sendConsented(preview, crypto: crypto)
        let files = try FileManager.default.contentsOfDirectory(atPath: stick)
        let upload = try #require(files.first { $0.hasSuffix(ReportExporter.crowdNotifierUploadSuffix) })
        #expect(line.contains(upload))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stick + "/" + upload)))
        let entries = try CrowdNotifierUploadPayload.entries(in: bytes)
        #expect(entries.count == 16)
        let real = try CrowdNotifierUploadEntry.entries(
            keys: venue, startMs: start * 1000, endMs: (start + 1800) * 1000, crypto: crypto)
        #expect(real.count == 1 && entries.contains(real[0]))
        // Nothing on the stick names the venue.
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: stick + "/" + file))
            #expect(data.range(of: Data("Bibliothek".utf8)) == nil)
        }

        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let body = ReportUploader.submission(batch, cwa: [], crowdNotifier: bytes)
        let received = try #require(
            ReceivedUpload(body: body, contentType: ReportUploader.threePartContentType + "; charset=binary"))
        #expect(received.crowdNotifierEntries == entries)
        #expect(received.batch == batch)
        #expect(
            ReceivedUpload(
                body: ReportUploader.submission(batch, cwa: [], crowdNotifier: [0x0A, 0x01]),
                contentType: ReportUploader.threePartContentType) == nil)
        // The two-part form still reads, without entries.
        let twoPart = try #require(
            ReceivedUpload(
                body: ReportUploader.submission(batch, cwa: []), contentType: ReportUploader.submissionContentType))
        #expect(twoPart.crowdNotifierEntries == nil)
    }
}
