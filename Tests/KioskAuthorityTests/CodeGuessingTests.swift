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
    /// An authority in a folder of its own, one issued code, and a one-report batch to upload with it.
    struct Office {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("guess-\(UUID().uuidString)").path
        let publisher: WarningPublisher
        let code: String
        let batch: ReportBatch

        init() async throws {
            let crypto = OpenSSLCrypto()
            publisher = try WarningPublisher(
                stateDirectory: root + "/state", publishDirectory: root + "/www", signer: try ECDSAPrivateKey())
            code = try await publisher.issueCode(now: 1_700_000_000)
            let keys = try CKPR.deriveKeys(locationId: [UInt8](repeating: 0x21, count: 32), crypto: crypto)
            batch = try ReportBatch.assemble(
                [
                    try CKPR.seal(
                        PresenceReport(startIntervalNumber: 2_833_000, period: 6, transmissionRiskLevel: 7), keys: keys)
                ],
                crypto: crypto)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test func aClientGuessingCodesIsStoppedAndTheLogCountsInsteadOfListing() async throws {
        let office = try await Office()
        defer { office.remove() }
        let (publisher, code, batch) = (office.publisher, office.code, office.batch)
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

    /// Behind the documented nginx every connection comes from 127.0.0.1: the limit must count the client nginx names,
    /// and a holder's valid code must be taken however much others guessed.
    @Test func aValidCodeIsTakenBehindTheProxyWhateverOthersGuessed() async throws {
        let office = try await Office()
        defer { office.remove() }
        let (publisher, code, batch) = (office.publisher, office.code, office.batch)
        let limiter = CodeGuessLimiter(perClient: 5, overall: 12)
        let app = AuthorityServer.makeApplication(
            publisher: publisher, port: 0, logger: Logger(label: "authority"), now: { 1_700_000_000 },
            limiter: limiter, trustedProxies: ["127.0.0.1"])
        try await app.test(.live) { client in
            func upload(_ guess: String, from address: String) async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: "/v1/reports", method: .post,
                    headers: [
                        HTTPField.Name(ReportUploader.codeHeader)!: guess, HTTPField.Name("X-Real-IP")!: address,
                    ],
                    body: ByteBuffer(bytes: batch.bytes)
                ) { $0.status }
            }
            // Three guessers spend their own tries and everyone's.
            for guesser in ["203.0.113.9", "203.0.113.10", "203.0.113.11"] {
                for guess in 0..<5 { _ = try await upload("WRONG-\(guess)", from: guesser) }
                #expect(try await upload("WRONG-X", from: guesser) == .tooManyRequests)
            }
            #expect(try await upload("WRONG-Y", from: "2001:db8:1:2::7") == .forbidden)
            #expect(try await upload("WRONG-Z", from: "2001:db8:1:2::8") == .tooManyRequests)
            // The holder's valid code is checked and taken.
            #expect(try await upload(code, from: "198.51.100.7") == .created)
            #expect(try await publisher.pendingCount() > 0)
        }
    }

    @Test func theClientIsNamedByATrustedProxyOnly() {
        let proxy: Set<String> = ["127.0.0.1"]
        // A client cannot choose its address by sending the headers itself.
        #expect(
            CodeGuessLimiter.client(
                peer: "192.0.2.5", realIP: "10.9.9.9", forwardedFor: "10.8.8.8", trustedProxies: proxy)
                == "192.0.2.5")
        #expect(
            CodeGuessLimiter.client(peer: "127.0.0.1", realIP: "198.51.100.7", forwardedFor: nil, trustedProxies: [])
                == "127.0.0.1")
        #expect(
            CodeGuessLimiter.client(peer: "127.0.0.1", realIP: "198.51.100.7", forwardedFor: nil, trustedProxies: proxy)
                == "198.51.100.7")
        // X-Forwarded-For: the last entry is the one the proxy added; earlier ones the client wrote.
        #expect(
            CodeGuessLimiter.client(
                peer: "127.0.0.1", realIP: nil, forwardedFor: "10.1.1.1, 198.51.100.8", trustedProxies: proxy)
                == "198.51.100.8")
        // Not an address: the proxy's own counts.
        #expect(
            CodeGuessLimiter.client(peer: "127.0.0.1", realIP: "evil", forwardedFor: nil, trustedProxies: proxy)
                == "127.0.0.1")
        // One IPv6 network is one client.
        #expect(
            CodeGuessLimiter.client(peer: "2001:db8:1:2::7", realIP: nil, forwardedFor: nil, trustedProxies: [])
                == CodeGuessLimiter.client(
                    peer: "2001:db8:1:2:ffff::1", realIP: nil, forwardedFor: nil, trustedProxies: []))
    }

    @Test func everyoneTogetherIsBoundedButAFreshClientIsStillChecked() async {
        let limiter = CodeGuessLimiter(perClient: 100, overall: 3)
        for client in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
            #expect(await limiter.admit(client: client, now: 100).allowed)
        }
        // Past the overall bound, a client that guessed wrong waits for the next window…
        #expect(await !limiter.admit(client: "10.0.0.1", now: 110).allowed)
        // …while a client with nothing counted is checked (it may hold a valid code).
        #expect(await limiter.admit(client: "10.0.0.4", now: 110).allowed)
        #expect(await !limiter.admit(client: "10.0.0.4", now: 111).allowed)
        let next = await limiter.admit(client: "10.0.0.1", now: 160)
        #expect(next.allowed)
        #expect(next.summary == "Verification codes in the last minute: 4 wrong, 2 not checked (too many tries)")
    }

    @Test func aValidCodeDoesNotCountAsAGuess() async {
        let limiter = CodeGuessLimiter(perClient: 2, overall: 10)
        for _ in 0..<5 {
            #expect(await limiter.admit(client: "10.0.0.1", now: 100).allowed)
            await limiter.valid(client: "10.0.0.1", now: 100)
        }
    }
}
