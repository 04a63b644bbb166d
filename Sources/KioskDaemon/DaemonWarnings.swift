internal import Foundation
public import KioskCore
internal import KioskExchange
internal import KioskOpenSSL
internal import KioskSodium
internal import Logging
internal import ServiceLifecycle
internal import Synchronization

/// The kiosk's warnings: fetched from the configured authorities — CKPW/1 packages (`warnings.baseURL`), Corona-Warn-App
/// hourly packages (`warnings.cwaBaseURL`), either or both — or loaded from a folder staff bring on a USB stick; signed
/// packages only, under the same configured keys either way. Records that could concern this kiosk's venue are kept,
/// and they are matched against a card's stays when the card taps (the only moment the stays are readable). With
/// `warnings.keepRegion` every valid CKPW/1 and CWA record of the region is kept too (`RegionWarnings`, fed by the
/// clients from the packages they accepted), for a diary card's stays at any venue of the region (`matchRegion`).
public final class DaemonWarnings: WarningSource {
    let client: WarningsClient?
    let cwaClient: CWAWarningsClient?
    /// CrowdNotifier problematic events (SwissCovid, NotifyMe), published beside the CKPW/1 index under its key.
    let crowdNotifierClient: CrowdNotifierWarningsClient?
    let crypto: OpenSSLCrypto
    let box = SodiumSecretBox()
    let clock: any ClockSource
    let parameters: PresenceTracingParameters
    /// The region of the CWA packages (`DE`), for finding them in a copy of the distribution layout.
    let cwaRegion: String
    /// The region's records (`warnings.keepRegion`), shared with the clients that feed it; nil when not kept.
    let region: RegionWarnings?
    private let lastSync = Mutex<String>("never")

    init(
        client: WarningsClient?, cwaClient: CWAWarningsClient? = nil,
        crowdNotifierClient: CrowdNotifierWarningsClient? = nil, crypto: OpenSSLCrypto, clock: any ClockSource,
        parameters: PresenceTracingParameters = .cwaProduction, cwaRegion: String = "DE", region: RegionWarnings? = nil
    ) {
        self.region = region
        self.client = client
        self.cwaClient = cwaClient
        self.crowdNotifierClient = crowdNotifierClient
        self.crypto = crypto
        self.clock = clock
        self.parameters = parameters
        self.cwaRegion = cwaRegion
    }

    public var holdsWarnings: Bool {
        get async {
            if let client, await client.index.count > 0 { return true }
            if let cwaClient, await cwaClient.warnings.count > 0 { return true }
            if let crowdNotifierClient, await crowdNotifierClient.index.count > 0 { return true }
            if let region {
                let index = region.index
                if index.ckprRecordCount > 0 || index.cwaWarningCount > 0 || index.cwaReportCount > 0 { return true }
            }
            return false
        }
    }

    /// The matches of both sources, as one result (risk per day over all of them).
    public func match(_ stays: [MatchableStay]) async -> ExposureResult? {
        let now = Int64(clock.read().now.timeIntervalSince1970)
        // The authority's published risk criteria (with its signed CKPW/1 index) govern both sources.
        let parameters = await client?.parameters ?? self.parameters
        var results = [ExposureResult]()
        if let client {
            let index = await client.index
            if index.count > 0 {
                results.append(
                    WarningMatcher.match(stays: stays, index: index, now: now, parameters: parameters, crypto: crypto))
            }
        }
        if let cwaClient {
            let kept = await cwaClient.warnings
            if kept.count > 0 {
                results.append(
                    WarningMatcher.match(stays: stays, cwa: kept, now: now, parameters: parameters, crypto: crypto))
            }
        }
        var result = WarningMatcher.combined(results, parameters: parameters)
        if let crowdNotifierClient {
            let index = await crowdNotifierClient.index
            if index.count > 0 {
                // Problematic events carry their own level (CrowdNotifierMatcher): joined, not weighed as CWA risk.
                result = result.merging(
                    CrowdNotifierMatcher.match(stays: stays, index: index, crypto: crypto, box: box))
            }
        }
        return result.matches.isEmpty ? nil : result
    }

    /// The matches of the region's records (CKPW/1 and CWA, `warnings.keepRegion`) for stays at any venue of the
    /// region — a diary card's — as one result, with the same rules as `match`: the authority's published risk
    /// criteria, a holder's own reports never warning them, nil when nothing matched. Nil too when the region's
    /// records are not kept. CrowdNotifier events are not kept for the region. Throws when the region's file could
    /// not be read (`RegionWarningIndex` reads the records a lookup finds from it): nothing was checked then, and
    /// nil would say that nothing matched.
    public func matchRegion(_ stays: [MatchableStay]) async throws(RegionWarningReadError) -> ExposureResult? {
        guard let region else { return nil }
        let now = Int64(clock.read().now.timeIntervalSince1970)
        let parameters = await client?.parameters ?? self.parameters
        let result = try WarningMatcher.match(
            stays: stays, region: region.index, now: now, parameters: parameters, crypto: crypto)
        return result.matches.isEmpty ? nil : result
    }

    /// The time the region's records are judged by: the latest the real time can be, as for the venue's records.
    static func regionTime(_ clock: any ClockSource) -> Int64 {
        let reading = clock.read()
        return Int64((reading.latest ?? reading.now).timeIntervalSince1970)
    }

    /// The identities of a CrowdNotifier venue for every hour a stay there could still be held.
    func interestingIdentities(crowdNotifier keys: [CrowdNotifierVenueKeys]) -> Set<[UInt8]> {
        let hour = Int64(clock.read().now.timeIntervalSince1970) / 3600
        var identities = Set<[UInt8]>()
        for venue in keys {
            identities.formUnion(
                CrowdNotifierMatcher.identities(keys: venue, hours: (hour - 16 * 24)...(hour + 1), crypto: crypto))
        }
        return identities
    }

    /// The CKPR/1 tags of `venues` on every day a stay there could still be held.
    func interestingTags(venues: [[UInt8]]) -> Set<[UInt8]> {
        let today = Int64(clock.read().now.timeIntervalSince1970) / 86_400
        var tags = Set<[UInt8]>()
        for venue in venues {
            if let list = try? WarningMatcher.tags(locationId: venue, days: (today - 15)...today, crypto: crypto) {
                tags.formUnion(list)
            }
        }
        return tags
    }

    /// Drops the kept records that can no longer concern a stay the kiosk holds, from memory and from
    /// `warnings.json` and `cwa-warnings.json`: judged on the latest the real time can be (`ClockReading.latest`, as
    /// its stays' expiry is), so nothing is kept longer than the stays it concerns. CKPW/1 records go with the days
    /// whose tags no stay can have any more (15 days back), CWA records 15 days after the window or hour they concern
    /// (`CWAWarningsClient.retain`). When the latest real time is unknown (a restart after an unknown time off), the
    /// stays have gone and so does every kept record.
    func prune(venues: [[UInt8]]) async {
        let reading = clock.read()
        guard !RetentionPolicy.awaitsSynchronization(reading) else { return }
        // With the latest real time unknown the stays have gone, and so has every venue's reason to keep records.
        let venues = reading.latest == nil ? [] : venues
        let lower = Int64((reading.latest ?? reading.now).timeIntervalSince1970)
        let upper = max(lower, Int64(reading.now.timeIntervalSince1970))
        if let client {
            var tags = Set<[UInt8]>()
            for venue in venues {
                if let list = try? WarningMatcher.tags(
                    locationId: venue, days: (lower / 86_400 - 15)...(upper / 86_400), crypto: crypto)
                {
                    tags.formUnion(list)
                }
            }
            try? await client.retain(tags: tags)
        }
        if let cwaClient {
            try? await cwaClient.retain(locationIdHashes: interestingHashes(venues: venues), now: lower)
        }
        // The region's records concern no stay of this kiosk: they go by their age alone.
        try? region?.prune(now: lower)
    }

    /// The CWA `locationIdHash`es of `venues` (SHA-256 of each `locationId`).
    func interestingHashes(venues: [[UInt8]]) -> Set<[UInt8]> {
        Set(venues.compactMap { try? crypto.sha256($0) })
    }

    /// Fetches what is new from every configured source; returns lines for a person, one or more per source (counts
    /// and reasons only, no record content).
    func sync(venues: [[UInt8]], crowdNotifier: [CrowdNotifierVenueKeys] = []) async -> (ok: Bool, lines: [String]) {
        // Whether or not the authority can be reached: a kiosk that stays offline lets old records go too.
        await prune(venues: venues)
        var ok = true
        var lines = [String]()
        if let crowdNotifierClient, !crowdNotifier.isEmpty {
            let result = await syncCrowdNotifier(crowdNotifierClient, venues: crowdNotifier, directory: nil)
            ok = ok && result.ok
            lines += result.lines
        }
        if let client {
            let result = await syncCKPW(client, venues: venues)
            ok = ok && result.ok
            lines += result.lines
        }
        if let cwaClient {
            let result = await syncCWA(cwaClient, venues: venues)
            ok = ok && result.ok
            lines += result.lines
        }
        // And what the fetch added or made obsolete.
        await prune(venues: venues)
        lines += regionLines
        let summary = lines.joined(separator: " ")
        lastSync.withLock { $0 = summary }
        return (ok, lines)
    }

    private func syncCKPW(_ client: WarningsClient, venues: [[UInt8]]) async -> (ok: Bool, lines: [String]) {
        let tags = interestingTags(venues: venues)
        do {
            let report = try await client.sync(interestingTags: tags)
            var lines = [
                report.indexUnchanged
                    ? "Warnings (CKPW/1): nothing new."
                    : "Warnings (CKPW/1): \(report.packagesFetched) new package(s), \(report.recordsKept) record(s) kept for this venue."
            ]
            lines += report.rejected.map { "Warnings (CKPW/1): refused \($0)" }
            return (report.rejected.isEmpty, lines)
        } catch .server(404) {
            // A fresh authority (or CDN) has no index yet: nothing to fetch, nothing wrong.
            return (true, ["Warnings (CKPW/1): the authority has published nothing yet."])
        } catch {
            return (false, ["Warnings (CKPW/1) not updated: \(error)"])
        }
    }

    private func syncCrowdNotifier(
        _ client: CrowdNotifierWarningsClient, venues: [CrowdNotifierVenueKeys], directory: String?
    ) async -> (ok: Bool, lines: [String]) {
        let identities = interestingIdentities(crowdNotifier: venues)
        let from = directory == nil ? "" : " from the folder"
        do {
            let report: CrowdNotifierWarningsClient.SyncReport
            if let directory {
                report = try await client.sync(interestingIdentities: identities, fromDirectory: directory)
            } else {
                report = try await client.sync(interestingIdentities: identities)
            }
            try await client.retain(identities: identities)
            var lines = [
                report.filesTaken == 0
                    ? "Warnings (CrowdNotifier)\(from): nothing new."
                    : "Warnings (CrowdNotifier)\(from): \(report.filesTaken) new list(s), \(report.eventsKept) event(s) kept for this venue."
            ]
            lines += report.rejected.map { "Warnings (CrowdNotifier): refused \($0)" }
            return (report.rejected.isEmpty, lines)
        } catch {
            return (false, ["Warnings (CrowdNotifier) not updated: \(error)"])
        }
    }

    private func syncCWA(_ client: CWAWarningsClient, venues: [[UInt8]]) async -> (ok: Bool, lines: [String]) {
        let hashes = interestingHashes(venues: venues)
        do {
            let report = try await client.sync(interestingHashes: hashes)
            var lines = [
                report.indexUnchanged
                    ? "Warnings (CWA): nothing new."
                    : "Warnings (CWA): \(report.hoursFetched) new hour(s), \(report.recordsKept) record(s) kept for this venue."
            ]
            lines += report.rejected.map { "Warnings (CWA): refused \($0)" }
            return (report.rejected.isEmpty, lines)
        } catch .server(404) {
            return (true, ["Warnings (CWA): the authority has published nothing yet."])
        } catch {
            return (false, ["Warnings (CWA) not updated: \(error)"])
        }
    }

    /// Loads packages from a folder (a mounted USB stick) with the same checks as a download: a copy of the CKPW/1
    /// publish folder (`index.json`, `index.json.sig`, the packages and their signatures; or loose `*.bin` files
    /// with a `*.bin.sig` beside each) and/or CWA hourly packages (a copy of the distribution layout, as
    /// `cwa/twp/country/<region>/hour/…`, `twp/country/<region>/hour/…` or `hour/…`; or loose `*.zip` files).
    /// Returns lines for a person: how many packages were loaded per format, and each refused one with the reason.
    func load(directory: String, venues: [[UInt8]], crowdNotifier: [CrowdNotifierVenueKeys] = []) async -> (
        ok: Bool, lines: [String]
    ) {
        let shown = OutsideText.neutralized(directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else {
            return (
                false,
                [
                    "Warnings not loaded: \(shown) is not a folder that can be read (is the USB stick plugged in and mounted?)."
                ]
            )
        }
        guard !names.isEmpty else { return (false, ["Warnings not loaded: \(shown) is empty."]) }
        let ckpwIndexed = names.contains("index.json")
        let ckpwLoose = names.contains { $0.hasSuffix(".bin") && !WarningsClient.isCrowdNotifierFile($0) }
        let cwaLayout = cwaDirectory(in: directory)
        let cwaLoose = names.contains { $0.hasSuffix(".zip") }
        let crowdNotifierEvents = CrowdNotifierWarningsClient.holdsEvents(directory)
        guard ckpwIndexed || ckpwLoose || cwaLayout != nil || cwaLoose || crowdNotifierEvents else {
            return (
                false,
                [
                    "Warnings not loaded: \(shown) holds no warnings packages (a copy of the authority's published "
                        + "folder: index.json with CKPW/1 packages, or CWA hourly packages under cwa/twp/country/\(cwaRegion)/hour)."
                ]
            )
        }
        var ok = true
        var lines = [String]()
        if crowdNotifierEvents {
            if let crowdNotifierClient {
                if !crowdNotifier.isEmpty {
                    let result = await syncCrowdNotifier(
                        crowdNotifierClient, venues: crowdNotifier, directory: directory)
                    ok = ok && result.ok
                    lines += result.lines
                } else {
                    lines.append(
                        "Warnings (CrowdNotifier): events found, but this kiosk's venue is not a CrowdNotifier venue.")
                }
            } else {
                lines.append(
                    "Warnings (CrowdNotifier): events found but not read: no key is configured to verify them (warnings.baseURL with warnings.publicKey)."
                )
                ok = false
            }
        }
        if ckpwIndexed || ckpwLoose {
            if let client {
                let tags = interestingTags(venues: venues)
                do {
                    let report: WarningsClient.SyncReport
                    if ckpwIndexed {
                        report = try await client.sync(interestingTags: tags, fromDirectory: directory)
                    } else {
                        report = try await client.loadFromDirectory(directory, interestingTags: tags)
                    }
                    lines.append(
                        report.packagesFetched == 0 && report.rejected.isEmpty
                            ? "Warnings (CKPW/1) from the folder: nothing new."
                            : "Warnings (CKPW/1) from the folder: \(report.packagesFetched) package(s) loaded, \(report.recordsKept) record(s) kept for this venue."
                    )
                    lines += report.rejected.map { "Warnings (CKPW/1): refused \($0)" }
                    ok = ok && report.rejected.isEmpty
                } catch {
                    lines.append("Warnings (CKPW/1) not loaded: \(error)")
                    ok = false
                }
            } else {
                lines.append(
                    "Warnings (CKPW/1): packages found but not read: no key is configured to verify them (warnings.baseURL with warnings.publicKey)."
                )
                ok = false
            }
        }
        if cwaLayout != nil || cwaLoose {
            if let cwaClient {
                let hashes = interestingHashes(venues: venues)
                do {
                    var reports = [CWAWarningsClient.SyncReport]()
                    if let cwaLayout {
                        reports.append(try await cwaClient.sync(interestingHashes: hashes, fromDirectory: cwaLayout))
                    }
                    if cwaLoose {
                        reports.append(try await cwaClient.loadFromDirectory(directory, interestingHashes: hashes))
                    }
                    let loaded = reports.reduce(0) { $0 + $1.hoursFetched }
                    let kept = reports.reduce(0) { $0 + $1.recordsKept }
                    let rejected = reports.flatMap(\.rejected)
                    lines.append(
                        loaded == 0 && rejected.isEmpty
                            ? "Warnings (CWA) from the folder: nothing new."
                            : "Warnings (CWA) from the folder: \(loaded) hourly package(s) loaded, \(kept) record(s) kept for this venue."
                    )
                    lines += rejected.map { "Warnings (CWA): refused \($0)" }
                    ok = ok && rejected.isEmpty
                } catch {
                    lines.append("Warnings (CWA) not loaded: \(error)")
                    ok = false
                }
            } else {
                lines.append(
                    "Warnings (CWA): packages found but not read: no key is configured to verify them (warnings.cwaBaseURL with warnings.cwaPublicKey)."
                )
                ok = false
            }
        }
        return (ok, lines + regionLines)
    }

    /// What the region's index holds, when it is kept: counts only.
    var regionLines: [String] {
        guard let region else { return [] }
        let index = region.index
        return [
            "Warnings (region): \(index.ckprRecordCount) CKPW/1 record(s), \(index.cwaWarningCount + index.cwaReportCount) CWA record(s) kept."
        ]
    }

    /// Where a copy of the CWA distribution layout for this kiosk's region lies in `directory`, if anywhere.
    func cwaDirectory(in directory: String) -> String? {
        [directory + "/cwa/twp/country/" + cwaRegion, directory + "/twp/country/" + cwaRegion, directory].first {
            base in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: base + "/hour/index", isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }

    var lastSyncSummary: String { lastSync.withLock { $0 } }

    /// Opens the warnings clients from the settings, or nil when no authority is configured.
    static func make(settings: DaemonSettings, crypto: OpenSSLCrypto, clock: any ClockSource, logger: Logger)
        throws(DaemonError) -> DaemonWarnings?
    {
        guard settings.warningsBaseURL != nil || settings.warningsCWABaseURL != nil else { return nil }
        var ckpwKey: ECDSAPublicKey?
        if settings.warningsBaseURL != nil {
            guard let pem = settings.warningsPublicKeyPEM else {
                throw .warnings(
                    "warnings.baseURL is set but the authority's public key is missing (warnings.publicKey or the credential authority-public-key.pem)"
                )
            }
            do { ckpwKey = try ECDSAPublicKey(pem: pem) } catch {
                throw .warnings("the authority's public key cannot be read: \(error)")
            }
        }
        var cwaKey: ECDSAPublicKey?
        if settings.warningsCWABaseURL != nil {
            guard let pem = settings.warningsCWAPublicKeyPEM else {
                throw .warnings(
                    "warnings.cwaBaseURL is set but the CWA packages' public key is missing (warnings.cwaPublicKey or the credential cwa-public-key.pem)"
                )
            }
            do { cwaKey = try ECDSAPublicKey(pem: pem) } catch {
                throw .warnings("the CWA packages' public key (warnings.cwaPublicKey) cannot be read: \(error)")
            }
        }
        let directory = (settings.stateDirectory as NSString).appendingPathComponent("warnings")
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .warnings("\(directory) cannot be created")
        }
        let region =
            settings.warningsKeepRegion
            ? RegionWarnings(stateDirectory: directory, now: { Self.regionTime(clock) }) : nil
        if !settings.warningsKeepRegion {
            // Switched off: the region's records are no longer wanted, on disk either.
            try? FileManager.default.removeItem(atPath: directory + "/" + RegionWarnings.fileName)
        }
        let client = both(settings.warningsBaseURL, ckpwKey).map {
            WarningsClient(
                baseURL: $0, verifier: $1, stateDirectory: directory,
                maximumPackageSize: settings.warningsMaxPackageBytes, region: region
            )
        }
        let cwaClient = both(settings.warningsCWABaseURL, cwaKey).map {
            CWAWarningsClient(
                baseURL: $0, verifier: $1, stateDirectory: directory,
                maximumArchiveSize: settings.warningsMaxPackageBytes,
                maximumExportSize: settings.warningsMaxInflatedBytes, region: region)
        }
        // CrowdNotifier events are published beside the CKPW/1 index and signed with the same key.
        let crowdNotifierClient = both(settings.warningsBaseURL, ckpwKey).map {
            CrowdNotifierWarningsClient(baseURL: $0, verifier: $1, stateDirectory: directory)
        }
        return DaemonWarnings(
            client: client, cwaClient: cwaClient, crowdNotifierClient: crowdNotifierClient, crypto: crypto,
            clock: clock,
            cwaRegion: settings.warningsCWABaseURL.map(Self.region(ofCWABaseURL:)) ?? "DE", region: region)
    }

    /// The region a CWA base URL names (`…/twp/country/DE` → `DE`); `DE` when it names none.
    static func region(ofCWABaseURL url: String) -> String {
        let last = url.split(separator: "/").last.map(String.init) ?? ""
        return last.count == 2 && last.allSatisfy({ $0.isASCII && $0.isUppercase }) ? last : "DE"
    }
}

private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
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
            let wait: Duration =
                failures == 0
                ? daemon.settings.warningsSyncInterval
                : .seconds(WarningsClient.backoff(afterFailures: failures))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
        }
    }
}

extension KioskDaemon {
    /// Fetches warnings now (the timer, or `kiosk simulate sync`).
    func syncWarnings() async -> (ok: Bool, lines: [String]) {
        guard let warnings else {
            return (false, ["No warnings authority is configured (warnings.baseURL, warnings.cwaBaseURL)."])
        }
        let state = await runner.state
        let venues = [state.venue?.locationId].compactMap { $0 }
        guard !venues.isEmpty else { return (true, ["Warnings: the kiosk has no venue yet, nothing to fetch."]) }
        return await warnings.sync(venues: venues, crowdNotifier: [state.venue?.crowdNotifier].compactMap { $0 })
    }
}

extension KioskDaemon {
    /// Loads warnings packages from a folder (`kiosk simulate load-warnings DIR`): verified under the configured keys
    /// exactly as downloads are; nothing changes when the folder is missing or empty or no key is configured.
    func loadWarnings(directory: String) async -> (ok: Bool, lines: [String]) {
        guard let warnings else {
            return (
                false,
                [
                    "Warnings not loaded: no warnings key is configured to verify packages (warnings.baseURL with "
                        + "warnings.publicKey, or warnings.cwaBaseURL with warnings.cwaPublicKey)."
                ]
            )
        }
        let state = await runner.state
        let venues = [state.venue?.locationId].compactMap { $0 }
        guard !venues.isEmpty else { return (false, ["Warnings not loaded: the kiosk has no venue yet."]) }
        let result = await warnings.load(
            directory: directory, venues: venues, crowdNotifier: [state.venue?.crowdNotifier].compactMap { $0 })
        logger.info("Warnings loaded from a folder", metadata: ["ok": "\(result.ok)"])
        return result
    }
}
