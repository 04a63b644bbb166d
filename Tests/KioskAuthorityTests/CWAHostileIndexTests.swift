import Foundation
import Hummingbird
import HummingbirdTesting
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL
import Synchronization
import Testing

/// A hostile CWA server: the hour index is not signed, so it may list anything. Listed future hours cannot hide the
/// real one, and what one sync writes is bounded in total, per hour and by the free space of the state directory.
@Suite struct CWAHostileIndexTests {
    /// Bytes the hostile server sent.
    final class Counter: Sendable {
        private let bytes = Mutex(0)
        func add(_ count: Int) { bytes.withLock { $0 += count } }
        var total: Int { bytes.withLock { $0 } }
    }

    let crypto = OpenSSLCrypto()
    let venue = [UInt8](repeating: 0x44, count: 32)
    let day: Int64 = 19_500
    var base: Int64 { day * 86_400 }

    /// Serves the real hour's zip and, for every other listed hour, `junk` bytes; counts the junk bytes served.
    static func serve(
        index: [UInt32], real: (hour: UInt32, zip: [UInt8]), junk: Int, served: Counter,
        _ body: @escaping @Sendable (_ base: String) async throws -> Void
    ) async throws {
        let list = Array("[\(index.map(String.init).joined(separator: ","))]".utf8)
        let router = Router()
        router.get("/cwa/hour") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: list))) }
        router.get("/cwa/hour/:hour") { _, context in
            let hour = context.parameters.get("hour", as: UInt32.self)
            if hour == real.hour {
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: real.zip)))
            }
            served.add(junk)
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0x50, count: junk)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))/cwa")
        }
    }

    func realHour(root: String, key: ECDSAPrivateKey) async throws -> (hour: UInt32, zip: [UInt8]) {
        let publisher = try CWAHourlyPublisher(
            stateDirectory: root + "/cwa-state", publishDirectory: root + "/cwa", signer: key)
        try await publisher.addHostWarning(locationId: venue, start: base + 10 * 3600, end: base + 11 * 3600)
        let published = try #require(try await publisher.publish(now: base + 12 * 3600))
        return (published.hour, [UInt8](try Data(contentsOf: URL(fileURLWithPath: published.path))))
    }

    @Test func listedFutureHoursNeitherHideTheRealHourNorWriteWithoutBound() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cwa-hostile-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let real = try await realHour(root: root, key: key)
        let now = Int64(real.hour) * 3600 + 1800
        let nowHour = UInt32(now / 3600)
        // The real hour, the next one (may be published a little early), and 504 hours of the coming weeks.
        let index = [real.hour - 1, real.hour, nowHour + 1] + Array((nowHour + 2)...(nowHour + 505))
        let served = Counter()
        try await Self.serve(index: index, real: real, junk: 256 * 1024, served: served) { base in
            let client = CWAWarningsClient(
                baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk",
                maximumArchiveSize: 1024 * 1024, maximumBytesPerSync: 4 * 1024 * 1024, now: { now })
            let report = try await client.sync(interestingHashes: [try crypto.sha256(venue)])
            #expect(report.recordsKept == 1, "the real hour was fetched")
            #expect(await client.state.seenHours.contains(real.hour))
            // Hours after the next one are not even asked for; the two junk hours before it are refused.
            #expect(served.total == 2 * 256 * 1024)
            #expect(await !client.state.seenHours.contains { $0 > nowHour + 1 })
        }
    }

    @Test func oneSyncWritesAtMostItsBudget() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cwa-budget-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let key = try ECDSAPrivateKey()
        let real = try await realHour(root: root, key: key)
        let now = Int64(real.hour) * 3600 + 1800
        // Three hundred past hours of junk, each just under the per-hour bound, then the real hour (the newest).
        let index = Array((real.hour - 300)...real.hour)
        let served = Counter()
        let junk = 900 * 1024
        try await Self.serve(index: index, real: real, junk: junk, served: served) { base in
            let client = CWAWarningsClient(
                baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk",
                maximumArchiveSize: 1024 * 1024, maximumBytesPerSync: 4 * 1024 * 1024, now: { now })
            let first = try await client.sync(interestingHashes: [try crypto.sha256(venue)])
            #expect(served.total <= 4 * 1024 * 1024, "more than the sync's budget was written")
            #expect(first.rejected.contains { $0.contains("next sync") })
            // The newest hours come first: the real hour is not left behind the junk.
            #expect(first.recordsKept == 1)
        }
        // Too little free space in the state directory: nothing is downloaded at all.
        let tight = Counter()
        try await Self.serve(index: index, real: real, junk: junk, served: tight) { base in
            let client = CWAWarningsClient(
                baseURL: base, verifier: try key.publicKey(), stateDirectory: root + "/kiosk-full",
                maximumArchiveSize: 1024 * 1024, now: { now }, freeBytes: { _ in 100 * 1024 })
            try FileManager.default.createDirectory(atPath: root + "/kiosk-full", withIntermediateDirectories: true)
            let report = try await client.sync(interestingHashes: [try crypto.sha256(venue)])
            #expect(tight.total == 0)
            #expect(report.hoursFetched == 0)
            #expect(report.rejected.contains { $0.contains("free") })
        }
    }
}
