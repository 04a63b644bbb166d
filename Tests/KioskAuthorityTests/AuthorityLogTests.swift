import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskLogTesting
import KioskOpenSSL
import Logging
import Synchronization
import Testing

/// The authority's server logs no IP address, port, verification code or record (the specification's server
/// requirement 2), even at the most detailed level.
@Suite struct AuthorityLogTests {
    @Test func uploadsLeaveNoAddressCodeOrRecordInTheLog() async throws {
        let crypto = OpenSSLCrypto()
        let now: Int64 = 1_700_000_000
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authority-log-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let publisher = try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: try ECDSAPrivateKey())
        let code = try await publisher.issueCode(now: now)
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x5A, count: 32), crypto: crypto)
        let sealed = try CKPR.seal(
            PresenceReport(startIntervalNumber: 2_833_000, period: 6, transmissionRiskLevel: 7), keys: keys)
        let batch = try ReportBatch.assemble([sealed], crypto: crypto)

        let log = CapturedLog()
        let logger = log.logger(label: "authority")
        let app = AuthorityServer.makeApplication(publisher: publisher, port: 0, logger: logger, now: { now })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let uploader = ReportUploader(endpoint: "http://127.0.0.1:\(port)/v1/reports")
            try await uploader.upload(batch, verificationCode: code)
            await #expect(throws: UploadError.self) { try await uploader.upload(batch, verificationCode: code) }
        }
        let logged = log.lines
        #expect(logged.contains { $0.contains("Upload accepted") }, "control: the server logged: \(logged)")
        let hexRecord = sealed.map { String($0, radix: 16) }.joined()
        for line in logged {
            #expect(!line.contains("127.0.0.1") && !line.contains("::1"), "\(line)")
            #expect(!line.contains(code) && !line.contains(code.lowercased()), "the code is in: \(line)")
            #expect(!line.contains(hexRecord))
        }
    }
}
