import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL

/// A region's published warnings in one `RegionWarningIndex`: its memory, the time to build it, and a card's tap.
/// A benchmark (not a test): the numbers are recorded in BENCHMARKS.md, never asserted. A command of its own, so that
/// a release build of it needs only the core and OpenSSL.
@main
struct RegionIndexBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-bench-region",
        abstract: "Build a region's index of published records; time a card's tap against it; report its memory."
    )

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case ckpr
        case cwa
    }

    @Option(help: "What the random records are: CKPR/1 records (CKPW/1) or CWA health-authority warnings.")
    var kind = Kind.ckpr
    @Option(help: "Published records in the region.") var records = 1_000_000
    @Option(help: "Records a package holds (packages are generated and added one at a time).") var perPackage = 10_000
    @Option(help: "Stays on the tapping card.") var stays = 30
    @Option(help: "Taps to time.") var taps = 10_000
    @Option(help: "Published records that really concern the card's venues.") var relevant = 100

    func validate() throws {
        guard records >= relevant, relevant >= 1, perPackage >= 1, stays >= 1, taps >= 1 else {
            throw ValidationError("records ≥ relevant ≥ 1; per-package, stays and taps ≥ 1")
        }
    }

    func run() throws {
        let crypto = OpenSSLCrypto()
        let today: Int64 = 20_000
        let now = today * 86_400 + 43_200
        let venueIds = try (0..<10).map { _ in try crypto.randomBytes(count: 32) }
        // The card: one-hour stays over its venues and the last 13 days.
        var card = [MatchableStay]()
        for index in 0..<stays {
            let start = (today - Int64(index % 13)) * 86_400 + 8 * 3600 + Int64(index % 5) * 1800
            card.append(
                MatchableStay(
                    id: String(index), locationId: venueIds[index % venueIds.count], start: start, end: start + 3600))
        }
        let rssBefore = try resident()

        // Packages of random records published over the last 13 days (all within the maximum age, so all are kept),
        // `relevant` of them real records about the card's stays; generated and added one package at a time.
        let clock = ContinuousClock()
        var builder = RegionWarningIndex.Builder(
            expectedCKPRRecords: kind == .ckpr ? records : 0, expectedCWAWarnings: kind == .cwa ? records : 0)
        var addTime = Duration.zero
        var added = 0
        var real = 0
        while added < records {
            let count = min(perPackage, records - added)
            let publishedAt = now - Int64(added % 13) * 86_400
            let realHere = (relevant * (added + count)) / records - real
            switch kind {
            case .ckpr:
                let bytes = try crypto.randomBytes(count: count * CKPR.recordLength)
                var package = (0..<count).map {
                    Array(bytes[($0 * CKPR.recordLength)..<(($0 + 1) * CKPR.recordLength)])
                }
                for position in 0..<realHere {
                    let stay = card[(real + position) % card.count]
                    let keys = try CKPR.deriveKeys(locationId: stay.locationId, crypto: crypto)
                    let report = PresenceReport(
                        startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
                    package[position * (count / max(realHere, 1))] = try CKPR.seal(report, keys: keys)
                }
                let addStart = clock.now
                builder.add(ckprRecords: package, publishedAt: publishedAt)
                addTime += clock.now - addStart
            case .cwa:
                let bytes = try crypto.randomBytes(count: count * 32)
                var warnings = [CWATraceWarning]()
                warnings.reserveCapacity(count)
                for position in 0..<count {
                    let hash = Array(bytes[(position * 32)..<((position + 1) * 32)])
                    let start = UInt32(today * 144) - UInt32(position % (13 * 144))
                    let level = UInt32(position % 8 + 1)
                    warnings.append(
                        CWATraceWarning(
                            locationIdHash: hash, startIntervalNumber: start, period: 6, transmissionRiskLevel: level))
                }
                for position in 0..<realHere {
                    let stay = card[(real + position) % card.count]
                    warnings[position * (count / max(realHere, 1))] = CWATraceWarning(
                        locationIdHash: try crypto.sha256(stay.locationId),
                        startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
                }
                let addStart = clock.now
                builder.add(cwaWarnings: warnings, reports: [], publishedAt: publishedAt)
                addTime += clock.now - addStart
            }
            added += count
            real += realHere
        }
        let rssAdded = try resident()
        // Timed without a closure: a builder captured by one would be copied into `build`, not handed over.
        let sortStart = clock.now
        let index = builder.build(now: now)
        let sortTime = clock.now - sortStart
        let rssBuilt = try resident()

        // Taps: the whole answer for the card (keys per venue, tags per day, lookups, opening, overlap, risk).
        var times = [Duration]()
        times.reserveCapacity(taps)
        var result: ExposureResult?
        for _ in 0..<taps {
            times.append(
                clock.measure { result = WarningMatcher.match(stays: card, region: index, now: now, crypto: crypto) })
        }
        times.sort()

        // A later sync adding one more package (`RegionWarnings.commit`: merged into the built index), then a
        // restart (the stored bytes read back and built again): each timed, with the peak memory it raised above
        // what was resident before it (VmHWM reset through `/proc/self/clear_refs`).
        var extra = RegionWarningIndex.Builder()
        switch kind {
        case .ckpr:
            let bytes = try crypto.randomBytes(count: perPackage * CKPR.recordLength)
            extra.add(ckprRecordBytes: ContiguousArray(bytes), publishedAt: now)
        case .cwa:
            let bytes = try crypto.randomBytes(count: perPackage * 32)
            extra.add(
                cwaWarnings: (0..<perPackage).map {
                    CWATraceWarning(
                        locationIdHash: Array(bytes[($0 * 32)..<(($0 + 1) * 32)]),
                        startIntervalNumber: UInt32(today * 144), period: 6, transmissionRiskLevel: 5)
                }, reports: [], publishedAt: now)
        }
        let rssBeforeMerge = try resetPeak()
        let mergeStart = clock.now
        let merged = index.merging(extra, now: now)
        let mergeTime = clock.now - mergeStart
        let mergePeak = try resident().hwm - rssBeforeMerge
        let storeStart = clock.now
        var stored: [UInt8]? = merged.stored
        let storeTime = clock.now - storeStart
        let storedBytes = stored?.count ?? 0
        let rssBeforeRestore = try resetPeak()
        let restoreStart = clock.now
        let restoredBuilder = stored!.withUnsafeBytes { RegionWarningIndex.Builder(stored: $0) }
        stored = nil
        let restored = restoredBuilder?.build(now: now)
        let restoreTime = clock.now - restoreStart
        let restorePeak = try resident().hwm - rssBeforeRestore

        let kept = index.ckprRecordCount + index.cwaWarningCount
        print(
            """
            kind: \(kind.rawValue), records: \(records) (\(real) real about the card), kept: \(kept)
            entry storage: \(index.entryStorageBytes) bytes (\(mib(index.entryStorageBytes)) MiB, \
            \(String(format: "%.1f", Double(index.entryStorageBytes) / Double(max(kept, 1)))) bytes a record)
            VmRSS: before \(mib(rssBefore.rss)) MiB, records added \(mib(rssAdded.rss)) MiB, \
            built \(mib(rssBuilt.rss)) MiB (built − before: \(mib(rssBuilt.rss - rssBefore.rss)) MiB); \
            VmHWM \(mib(rssBuilt.hwm)) MiB
            build: add \(ms(addTime)) ms + sort \(ms(sortTime)) ms = \(ms(addTime + sortTime)) ms
            tap (\(card.count) stays, \(taps) taps): p50 \(ms(times[times.count / 2])) ms, \
            p99 \(ms(times[min(times.count - 1, times.count * 99 / 100)])) ms, \(result?.matches.count ?? 0) matches
            merge a package of \(perPackage): \(ms(mergeTime)) ms, peak +\(mib(mergePeak)) MiB over VmRSS; \
            stored: \(storedBytes) bytes in \(ms(storeTime)) ms; read back and built: \(ms(restoreTime)) ms, \
            peak +\(mib(restorePeak)) MiB over VmRSS (the bytes included), \
            \((restored?.ckprRecordCount ?? 0) + (restored?.cwaWarningCount ?? 0)) records
            """)
    }

    /// VmRSS and VmHWM of this process, in bytes (`/proc/self/status` read whole: a plain file read stops early).
    private func resident() throws -> (rss: Int, hwm: Int) {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status") else {
            throw ValidationError("/proc/self/status cannot be read")
        }
        defer { try? handle.close() }
        let status = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        func kilobytes(_ field: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (kilobytes("VmRSS") * 1024, kilobytes("VmHWM") * 1024)
    }

    /// Resets this process's VmHWM to its VmRSS (`echo 5 > /proc/self/clear_refs`); returns that VmRSS in bytes.
    private func resetPeak() throws -> Int {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
            throw ValidationError("/proc/self/clear_refs cannot be written")
        }
        try handle.write(contentsOf: Data("5".utf8))
        try handle.close()
        return try resident().rss
    }

    private func mib(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

    private func ms(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f", seconds * 1000)
    }
}
