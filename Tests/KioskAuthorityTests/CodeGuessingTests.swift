import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskLogTesting
import KioskOpenSSL
import Logging
import NIOCore
import Synchronization
import Testing

/// Guessing verification codes at the upload endpoint is bounded per client and overall, and the log gets one line
/// per minute of counts, never a line per guess.
@Suite struct CodeGuessingTests {
    @Test func aClientGuessingCodesIsStoppedAndTheLogCountsInsteadOfListing() async throws {
        let crypto = OpenSSLCrypto()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("guess-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let publisher = try WarningPublisher(
            stateDirectory: root + "/state", publishDirectory: root + "/www", signer: try ECDSAPrivateKey())
        let code = try await publisher.issueCode(now: 1_700_000_000)
        let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x21, count: 32), crypto: crypto)
        let batch = try ReportBatch.assemble(
            [
                try CKPR.seal(
                    PresenceReport(startIntervalNumber: 2_833_000, period: 6, transmissionRiskLevel: 7), keys: keys)
            ],
            crypto: crypto)
        let clock = Mutex<Int64>(1_700_000_000)
        let log = CapturedLog()
        let logger = log.logger(label: "authority")
        let limiter = CodeGuessLimiter(perClient: 5, overall: 50)
        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: logger, now: { clock.withLock { $0 } }, limiter: limiter)
        try await app.test(.live) { client in
            func upload(_ guess: String) async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: "/v1/reports", method: .post,
                    headers: [HTTPField.Name(ReportUploader.codeHeader)!: guess],
                    body: ByteBuffer(bytes: batch.bytes)
                ) { $0.status }
            }
            // Five wrong guesses are refused as wrong; the sixth is not even checked, nor is the right code now.
            for guess in 0..<5 {
                let status = try await upload("WRONG-\(guess)")
                #expect(status == .forbidden)
            }
            #expect(try await upload("WRONG-5") == .tooManyRequests)
            #expect(try await upload(code) == .tooManyRequests)
            #expect(try await publisher.pendingCount() == 0)
            // A minute later the client may try again, and the right code is taken.
            clock.withLock { $0 += CodeGuessLimiter.window }
            #expect(try await upload(code) == .created)
        }
        let logged = log.lines
        #expect(!logged.contains { $0.contains("WRONG") || $0.contains(code) })
        let counts = logged.filter { $0.hasPrefix("Verification codes in the last minute") }
        #expect(counts.count == 1)
        #expect(
            counts.first?.hasPrefix("Verification codes in the last minute: 5 wrong, 2 not checked (too many tries)")
                == true)
        #expect(!logged.contains { $0.contains("Upload refused") })
    }

    @Test func everyoneTogetherIsBoundedToo() async {
        let limiter = CodeGuessLimiter(perClient: 100, overall: 3)
        for client in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
            #expect(await limiter.admit(client: client, now: 100).allowed)
            await limiter.wrongCode(client: client, now: 100)
        }
        #expect(await !limiter.admit(client: "10.0.0.4", now: 110).allowed)
        let next = await limiter.admit(client: "10.0.0.4", now: 160)
        #expect(next.allowed)
        #expect(next.summary == "Verification codes in the last minute: 3 wrong, 1 not checked (too many tries)")
    }
}
