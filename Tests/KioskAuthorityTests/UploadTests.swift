import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Logging
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Uploads from the kiosk (libcurl, `KioskHTTP`) to the authority's server (Hummingbird) on loopback, and publishing.
@Suite struct UploadTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_700_000_000

    func makePublisher() throws -> (WarningPublisher, String, ECDSAPrivateKey) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authority-\(UUID().uuidString)").path
        let key = try ECDSAPrivateKey()
        return (
            try WarningPublisher(stateDirectory: root + "/state", publishDirectory: root + "/www", signer: key), root,
            key
        )
    }

    func batch(venue: UInt8 = 0x44, count: Int = 3) throws -> (ReportBatch, [[UInt8]]) {
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: venue, count: 32), crypto: crypto)
        let sealed = try (0..<count).map {
            try CKPR.seal(
                PresenceReport(startIntervalNumber: 2_833_000 + UInt32($0) * 144, period: 6, transmissionRiskLevel: 7),
                keys: keys)
        }
        return (try ReportBatch.assemble(sealed, crypto: crypto), sealed)
    }

    func withServer(_ publisher: WarningPublisher, _ body: @escaping @Sendable (String) async throws -> Void)
        async throws
    {
        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "test"), now: { [now] in now })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body("http://127.0.0.1:\(port)")
        }
    }

    @Test func uploadWithAValidCodeIsAcceptedOnceAndPublishedShuffledAndSigned() async throws {
        let (publisher, root, key) = try makePublisher()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let code = try await publisher.issueCode(now: now)
        let (upload, real) = try batch()
        try await withServer(publisher) { base in
            let uploader = ReportUploader(endpoint: base + "/v1/reports")
            try await uploader.upload(upload, verificationCode: code.lowercased())
            await #expect(throws: UploadError.wrongCode) { try await uploader.upload(upload, verificationCode: code) }
        }
        #expect(try await publisher.pendingCount() == upload.records.count)

        let published = try #require(try await publisher.publish(now: now + 3600))
        #expect(try await publisher.pendingCount() == 0)
        #expect(try await publisher.publish(now: now + 7200) == nil)
        let www = root + "/www/"
        let packageBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + published.file)))
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + published.signature)))
        let package = try WarningPackage.verified(bytes: packageBytes, signature: signature, verifier: key.publicKey())
        // The upload, mixed with made-up batches up to the minimum mix (MinimumMixTests).
        #expect(Set(package.records).isSuperset(of: upload.records))
        #expect(package.records.count == WarningPublisher.minimumMix * upload.records.count)
        #expect(Set(real).isSubset(of: Set(package.records)))
        let indexBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + WarningIndexFile.name)))
        let indexSignature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: www + WarningIndexFile.signatureName)))
        #expect(try key.publicKey().isValidSignature(indexSignature, for: indexBytes))
        let index = try JSONDecoder().decode(WarningIndexFile.self, from: Data(indexBytes))
        #expect(index.packages == [published])
    }

    @Test func recordsOfOneUploadDoNotStayTogether() async throws {
        let (publisher, root, _) = try makePublisher()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Several uploads pooled: across publishes, one upload's records are not always adjacent in upload order.
        var adjacentEveryTime = true
        for round in 0..<4 {
            var uploads = [[[UInt8]]]()
            for venue in 0..<4 {
                let (b, _) = try batch(venue: UInt8(venue + round * 4), count: 7)
                uploads.append(b.records)
                try await publisher.acceptFromTestCentre(b)
            }
            let published = try #require(try await publisher.publish(now: now + Int64(round)))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + published.file)))
            let records = try WarningPackage(unverifiedBytes: bytes).records
            if records != uploads.flatMap({ $0 }) { adjacentEveryTime = false }
        }
        #expect(!adjacentEveryTime)
    }

    @Test func expiredUnknownAndMalformedCodesAreRefusedWithClearMessages() async throws {
        let (publisher, root, _) = try makePublisher()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let expired = try await publisher.issueCode(now: now - 10 * 86_400, lifetime: 86_400)
        let (upload, _) = try batch()
        try await withServer(publisher) { base in
            let uploader = ReportUploader(endpoint: base + "/v1/reports")
            await #expect(throws: UploadError.wrongCode) {
                try await uploader.upload(upload, verificationCode: expired)
            }
            await #expect(throws: UploadError.wrongCode) {
                try await uploader.upload(upload, verificationCode: "ZZZZZ-ZZZZZ")
            }
            await #expect(throws: UploadError.malformedCode) {
                try await uploader.upload(upload, verificationCode: "no!")
            }
        }
        #expect(try await publisher.pendingCount() == 0)
        #expect(UploadError.wrongCode.description.contains("verification code"))
    }

    @Test func unreachableAuthorityIsReported() async throws {
        let (upload, _) = try batch()
        // A port nobody listens on.
        let uploader = ReportUploader(endpoint: "http://127.0.0.1:9/v1/reports", timeout: .seconds(5))
        await #expect(throws: UploadError.unreachable) {
            try await uploader.upload(upload, verificationCode: "ABCDE-FGHJK")
        }
        await #expect(throws: UploadError.notConfigured) {
            try await ReportUploader(endpoint: "").upload(upload, verificationCode: "ABCDE-FGHJK")
        }
    }

    @Test func silentAuthorityTimesOut() async throws {
        // A socket that listens but never answers: the kernel completes the connection, nobody reads it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let (upload, _) = try batch()
        let uploader = ReportUploader(endpoint: "http://127.0.0.1:\(port)/v1/reports", timeout: .milliseconds(500))
        await #expect(throws: UploadError.timeout) {
            try await uploader.upload(upload, verificationCode: "ABCDE-FGHJK")
        }
    }

    @Test func tracerWarningsAreSealedPerDayWithLevelFive() async throws {
        let (publisher, root, key) = try makePublisher()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let venue = [UInt8](repeating: 0x77, count: 32)
        let day: Int64 = 19_000
        // 22:00 → 02:00 next day: two records.
        let count = try await publisher.addTracerWarning(
            locationId: venue, start: day * 86_400 + 22 * 3600, end: day * 86_400 + 26 * 3600)
        #expect(count == 2)
        let published = try #require(try await publisher.publish(now: day * 86_400 + 30 * 3600))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + published.file)))
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/www/" + published.signature)))
        let package = try WarningPackage.verified(bytes: bytes, signature: signature, verifier: key.publicKey())
        let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
        let first = try CKPR.open(
            package.records.first { (try? CKPR.open($0, day: UInt32(day), keys: keys)) != nil }!, day: UInt32(day),
            keys: keys)
        #expect(first.transmissionRiskLevel == 5)
        #expect(first.period == 12)
        await #expect(throws: AcceptError.invalidWarning) {
            try await publisher.addTracerWarning(locationId: [1], start: 0, end: 1)
        }
    }
}
