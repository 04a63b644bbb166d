import ArgumentParser
import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A region's published warnings as a kiosk keeps them (`RegionWarnings`: the records in `region-warnings.bin`, a
/// compact key per record in memory): its memory, the time to take the region's packages, a card's tap (the file in
/// the page cache, and evicted from it), a later sync's merge and a restart. A benchmark (not a test): the numbers
/// are recorded in BENCHMARKS.md, never asserted. A command of its own, so that a release build of it needs only the
/// core, the exchange and OpenSSL.
@main
struct RegionIndexBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-bench-region",
        abstract: "Keep a region's published records as a kiosk does; time a card's tap against them; report memory."
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
    @Option(help: "Taps to time with the file in the page cache.") var taps = 10_000
    @Option(help: "Taps to time with the file evicted from the page cache before each.") var coldTaps = 200
    @Option(help: "Published records that really concern the card's venues.") var relevant = 100
    @Option(help: "Where the state directory is made (removed afterwards).") var directory = NSTemporaryDirectory()
    @Option(
        help: """
            A state directory to keep afterwards; when it holds a region's file already, only its restart is \
            measured, in this fresh process.
            """)
    var stateDirectory: String?

    func validate() throws {
        guard records >= relevant, relevant >= 1, perPackage >= 1, stays >= 1, taps >= 1, coldTaps >= 0 else {
            throw ValidationError("records ≥ relevant ≥ 1; per-package, stays and taps ≥ 1")
        }
    }

    static let now: Int64 = 20_000 * 86_400 + 43_200

    func run() throws {
        let crypto = OpenSSLCrypto()
        let today: Int64 = 20_000
        let now = Self.now
        let state = stateDirectory ?? directory + "/kiosk-bench-region-\(UUID().uuidString)"
        let path = state + "/" + RegionWarnings.fileName
        if stateDirectory != nil, FileManager.default.fileExists(atPath: path) {
            try restart(state)
            return
        }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { if stateDirectory == nil { try? FileManager.default.removeItem(atPath: state) } }
        let venueIds = try (0..<10).map { _ in try crypto.randomBytes(count: 32) }
        // The card: one-hour stays over its venues and the last 13 days.
        var card = [MatchableStay]()
        for index in 0..<stays {
            let start = (today - Int64(index % 13)) * 86_400 + 8 * 3600 + Int64(index % 5) * 1800
            card.append(
                MatchableStay(
                    id: String(index), locationId: venueIds[index % venueIds.count], start: start, end: start + 3600))
        }
        let rssBefore = try resident().rss

        // Packages of random records published over the last 13 days (all within the maximum age, so all are kept),
        // `relevant` of them real records about the card's stays; generated and handed over one package at a time,
        // as the clients do, then committed (the records merged into the file as they come: `RegionWarnings`).
        let clock = ContinuousClock()
        var region: RegionWarnings? = RegionWarnings(stateDirectory: state, now: { now })
        var addTime = Duration.zero
        var added = 0
        var real = 0
        let rssBeforeLoad = try resetPeak()
        while added < records {
            let count = min(perPackage, records - added)
            let publishedAt = now - Int64(added % 13) * 86_400
            let realHere = (relevant * (added + count)) / records - real
            let realStays = (0..<realHere).map { card[(real + $0) % card.count] }
            let spacing = count / max(realHere, 1)
            switch kind {
            case .ckpr:
                var bytes = ContiguousArray(try crypto.randomBytes(count: count * CKPR.recordLength))
                for (position, stay) in realStays.enumerated() {
                    let keys = try CKPR.deriveKeys(locationId: stay.locationId, crypto: crypto)
                    let report = PresenceReport(
                        startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
                    let offset = position * spacing * CKPR.recordLength
                    bytes.replaceSubrange(
                        offset..<(offset + CKPR.recordLength), with: try CKPR.seal(report, keys: keys))
                }
                let addStart = clock.now
                region!.add(ckprRecords: bytes, publishedAt: publishedAt)
                addTime += clock.now - addStart
            case .cwa:
                let hashes = try crypto.randomBytes(count: count * 32)
                var warnings = [CWATraceWarning]()
                warnings.reserveCapacity(count)
                for position in 0..<count {
                    let start = UInt32(today * 144) - UInt32(position % (13 * 144))
                    warnings.append(
                        CWATraceWarning(
                            locationIdHash: Array(hashes[(position * 32)..<((position + 1) * 32)]),
                            startIntervalNumber: start, period: 6, transmissionRiskLevel: UInt32(position % 8 + 1)))
                }
                for (position, stay) in realStays.enumerated() {
                    warnings[position * spacing] = CWATraceWarning(
                        locationIdHash: try crypto.sha256(stay.locationId),
                        startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
                }
                let package = CWATraceWarningPackage(
                    hour: UInt32(publishedAt / 3600), region: "DE", timeIntervalWarnings: warnings)
                let addStart = clock.now
                region!.add(cwa: package)
                addTime += clock.now - addStart
            }
            added += count
            real += realHere
        }
        let commitStart = clock.now
        try region!.commit()
        let commitTime = clock.now - commitStart
        let loaded = try resident()
        var index = region!.index
        let keyBytes = index.keyStorageBytes
        let kept = index.ckprRecordCount + index.cwaWarningCount
        let fileBytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0

        // Taps: the whole answer for the card (keys per venue, tags per day, binary search over the compact keys, a
        // read from the file per key found, MAC check and decryption, overlap, risk). First with the file in the page
        // cache (as it is after the sync that wrote it), then evicted from it before each tap (a read from the disk
        // per key found).
        var times = [Duration]()
        times.reserveCapacity(taps)
        var result: ExposureResult?
        for _ in 0..<taps {
            let start = clock.now
            result = try WarningMatcher.match(stays: card, region: index, now: now, crypto: crypto)
            times.append(clock.now - start)
        }
        times.sort()
        var cold = [Duration]()
        for _ in 0..<coldTaps {
            try evict(path)
            let start = clock.now
            _ = try WarningMatcher.match(stays: card, region: index, now: now, crypto: crypto)
            cold.append(clock.now - start)
        }
        cold.sort()

        // A later sync adding one more package (`RegionWarnings.commit`: merged into the file), then a restart (the
        // compact keys read back from the file): each timed, with the peak memory it raised above what was resident
        // before it (VmHWM reset through `/proc/self/clear_refs`).
        let bytes = try crypto.randomBytes(count: perPackage * max(CKPR.recordLength, 32))
        let rssBeforeMerge = try resetPeak()
        let mergeStart = clock.now
        switch kind {
        case .ckpr:
            region!.add(
                ckprRecords: ContiguousArray(bytes.prefix(perPackage * CKPR.recordLength)), publishedAt: now)
        case .cwa:
            region!.add(
                cwa: CWATraceWarningPackage(
                    hour: UInt32(now / 3600), region: "DE",
                    timeIntervalWarnings: (0..<perPackage).map {
                        CWATraceWarning(
                            locationIdHash: Array(bytes[($0 * 32)..<(($0 + 1) * 32)]),
                            startIntervalNumber: UInt32(today * 144), period: 6, transmissionRiskLevel: 5)
                    }))
        }
        try region!.commit()
        let mergeTime = clock.now - mergeStart
        let mergePeak = try resident().hwm - rssBeforeMerge
        index = region!.index
        let merged = index.ckprRecordCount + index.cwaWarningCount

        index = RegionWarningIndex()
        region = nil
        let rssBeforeRestore = try resetPeak()
        let restoreStart = clock.now
        let restarted = RegionWarnings(stateDirectory: state, now: { now })
        let restoreTime = clock.now - restoreStart
        let restorePeak = try resident().hwm - rssBeforeRestore
        let restored = restarted.index.ckprRecordCount + restarted.index.cwaWarningCount

        func percentile(_ sorted: [Duration], _ share: Int) -> String {
            sorted.isEmpty ? "-" : ms(sorted[min(sorted.count - 1, sorted.count * share / 100)])
        }
        print(
            """
            kind: \(kind.rawValue), records: \(records) (\(real) real about the card), kept: \(kept)
            compact keys: \(keyBytes) bytes (\(mib(keyBytes)) MiB, \
            \(String(format: "%.1f", Double(keyBytes) / Double(max(kept, 1)))) bytes a record); \
            file: \(fileBytes) bytes (\(mib(fileBytes)) MiB)
            VmRSS: before \(mib(rssBefore)) MiB, after the load \(mib(loaded.rss)) MiB \
            (after − before: \(mib(loaded.rss - rssBefore)) MiB); VmHWM during the load \(mib(loaded.hwm)) MiB \
            (+\(mib(loaded.hwm - rssBeforeLoad)) MiB over VmRSS before it, the generated packages included)
            load: add \(ms(addTime)) ms (merges into the file included) + commit \(ms(commitTime)) ms
            tap (\(card.count) stays, \(taps) taps, file in the page cache): p50 \(percentile(times, 50)) ms, \
            p99 \(percentile(times, 99)) ms, \(result?.matches.count ?? 0) matches
            tap (\(cold.count) taps, file evicted before each): p50 \(percentile(cold, 50)) ms, \
            p99 \(percentile(cold, 99)) ms
            merge a package of \(perPackage): \(ms(mergeTime)) ms, peak +\(mib(mergePeak)) MiB over VmRSS, \
            \(merged) records; restart: \(ms(restoreTime)) ms, peak +\(mib(restorePeak)) MiB over VmRSS, \
            \(restored) records
            """)
    }

    /// A restart alone, in a process that held nothing of the region before: what the kept index costs a kiosk.
    private func restart(_ state: String) throws {
        let clock = ContinuousClock()
        let before = try resetPeak()
        let start = clock.now
        let region = RegionWarnings(stateDirectory: state, now: { Self.now })
        let time = clock.now - start
        let after = try resident()
        let index = region.index
        print(
            """
            restart in a fresh process: \(index.ckprRecordCount) CKPR/1 records, \(index.cwaWarningCount) CWA \
            warnings, compact keys \(mib(index.keyStorageBytes)) MiB; \(ms(time)) ms; VmRSS \(mib(before)) → \
            \(mib(after.rss)) MiB (+\(mib(after.rss - before)) MiB), VmHWM +\(mib(after.hwm - before)) MiB
            """)
    }

    /// Drops the file's pages from the page cache (`posix_fadvise`, `POSIX_FADV_DONTNEED`): the next reads go to the
    /// disk. Only this file's pages: nothing else on the machine is evicted.
    private func evict(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ValidationError("\(path) cannot be opened") }
        defer { close(descriptor) }
        guard posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED)) == 0 else {
            throw ValidationError("posix_fadvise refused")
        }
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
