public import KioskCore
public import KioskStation
internal import Foundation
internal import KioskOpenSSL
internal import KioskReporting
internal import KioskSystem
internal import Logging
internal import ServiceLifecycle
internal import Synchronization

/// The kiosk's warnings: fetched from the configured authority (signed packages only), kept when they could concern
/// this kiosk's venue, and matched against a card's stays when the card taps (the only moment they are readable).
public final class DaemonWarnings: WarningSource {
    let client: WarningsClient
    let crypto: OpenSSLCrypto
    let clock: any ClockSource
    let parameters: PresenceTracingParameters
    private let lastSync = Mutex<String>("never")

    init(client: WarningsClient, crypto: OpenSSLCrypto, clock: any ClockSource,
         parameters: PresenceTracingParameters = .cwaProduction) {
        self.client = client
        self.crypto = crypto
        self.clock = clock
        self.parameters = parameters
    }

    public func match(_ stays: [MatchableStay]) async -> ExposureResult? {
        let index = await client.index
        guard index.count > 0 else { return nil }
        let now = Int64(clock.read().now.timeIntervalSince1970)
        let result = WarningMatcher.match(stays: stays, index: index, now: now, parameters: parameters, crypto: crypto)
        return result.matches.isEmpty ? nil : result
    }

    /// The CKPR/1 tags of `venues` on every day a stay there could still be held.
    func interestingTags(venues: [[UInt8]]) -> Set<[UInt8]> {
        let today = Int64(clock.read().now.timeIntervalSince1970) / 86_400
        var tags = Set<[UInt8]>()
        for venue in venues {
            if let list = try? WarningMatcher.tags(locationId: venue, days: (today - 15) ... today, crypto: crypto) {
                tags.formUnion(list)
            }
        }
        return tags
    }

    /// Fetches what is new; returns lines for a person (no record content).
    func sync(venues: [[UInt8]]) async -> (ok: Bool, lines: [String]) {
        let tags = interestingTags(venues: venues)
        do {
            let report = try await client.sync(interestingTags: tags)
            try await client.retain(tags: tags)
            var lines = [report.indexUnchanged
                ? "Warnings: nothing new."
                : "Warnings: \(report.packagesFetched) new package(s), \(report.recordsKept) record(s) kept for this venue."]
            lines += report.rejected.map { "Warnings: refused \($0)" }
            lastSync.withLock { $0 = lines[0] }
            return (report.rejected.isEmpty, lines)
        } catch .server(404) {
            // A fresh authority (or CDN) has no index yet: nothing to fetch, nothing wrong.
            let line = "Warnings: the authority has published nothing yet."
            lastSync.withLock { $0 = line }
            return (true, [line])
        } catch {
            let line = "Warnings not updated: \(error)"
            lastSync.withLock { $0 = line }
            return (false, [line])
        }
    }

    var lastSyncSummary: String { lastSync.withLock { $0 } }

    /// Opens the warnings client from the settings, or nil when no authority is configured.
    static func make(settings: DaemonSettings, crypto: OpenSSLCrypto, clock: any ClockSource, logger: Logger) throws(DaemonError) -> DaemonWarnings? {
        guard let baseURL = settings.warningsBaseURL else { return nil }
        guard let pem = settings.warningsPublicKeyPEM else {
            throw .warnings("warnings.baseURL is set but the authority's public key is missing (warnings.publicKey or the credential authority-public-key.pem)")
        }
        let key: ECDSAPublicKey
        do { key = try ECDSAPublicKey(pem: pem) } catch { throw .warnings("the authority's public key cannot be read: \(error)") }
        let directory = (settings.stateDirectory as NSString).appendingPathComponent("warnings")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .warnings("\(directory) cannot be created")
        }
        let client = WarningsClient(baseURL: baseURL, verifier: key, stateDirectory: directory)
        return DaemonWarnings(client: client, crypto: crypto, clock: clock)
    }
}

/// Syncs warnings at start and then every interval, backing off after failures.
struct WarningsService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let warnings = daemon.warnings else { return await waitForShutdown() }
        var failures = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let result = await daemon.syncWarnings()
            failures = result.ok ? 0 : failures + 1
            daemon.devices.set("warnings", result.ok ? "ok" : "failing: \(warnings.lastSyncSummary)")
            let wait: Duration = failures == 0
                ? daemon.settings.warningsSyncInterval
                : .seconds(WarningsClient.backoff(afterFailures: failures))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
        }
    }
}

extension KioskDaemon {
    /// Fetches warnings now (the timer, or `kiosk simulate sync`).
    func syncWarnings() async -> (ok: Bool, lines: [String]) {
        guard let warnings else { return (false, ["No warnings authority is configured (warnings.baseURL)."]) }
        let state = await runner.state
        let venues = [state.venue?.locationId].compactMap { $0 }
        guard !venues.isEmpty else { return (true, ["Warnings: the kiosk has no venue yet, nothing to fetch."]) }
        return await warnings.sync(venues: venues)
    }
}
