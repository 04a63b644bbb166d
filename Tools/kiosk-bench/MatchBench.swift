import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL

/// Matching published reports against local stays: the tag-indexed matcher against a naive nested loop.
struct MatchBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Time keeping and matching published records against local stays, next to a nested-loop baseline."
    )

    @Option(help: "Published records in the feed.") var records = 1_000_000
    @Option(help: "Local stays to match.") var stays = 10_000
    @Option(help: "Venues the kiosk's stays are spread over.") var venues = 50
    @Option(help: "Published records that really concern those venues.") var relevant = 1_000
    @Option(help: "Stays the nested-loop baseline runs over (it is extrapolated to all stays).") var baselineStays = 100

    func validate() throws {
        guard records >= relevant, relevant >= 1, stays >= 1, venues >= 1, baselineStays >= 1 else {
            throw ValidationError("records ≥ relevant ≥ 1, stays, venues and baseline-stays ≥ 1")
        }
    }

    func run() throws {
        let crypto = OpenSSLCrypto()
        let today: Int64 = 20_000
        let days = (today - 13)...today
        let venueIds = try (0..<venues).map { _ in try crypto.randomBytes(count: 32) }

        // Local stays: one hour each, spread over venues and the last 14 days.
        var localStays = [MatchableStay]()
        for index in 0..<stays {
            let day = days.lowerBound + Int64(index % days.count)
            let start = day * 86_400 + Int64((index / days.count) % 20) * 1800 + 8 * 3600
            localStays.append(
                MatchableStay(id: String(index), locationId: venueIds[index % venues], start: start, end: start + 3600))
        }

        // The feed: a CKPW/1 package of `records` records, `relevant` of them real reports about the kiosk's venues
        // at CSPRNG-chosen places, the rest random 74-byte records.
        print("preparing \(records) published records …")
        let length = CKPR.recordLength
        var package = try WarningPackage(createdAt: UInt64(today * 86_400), records: []).bytes
        package.replaceSubrange(6..<10, with: withUnsafeBytes(of: UInt32(records).bigEndian, Array.init))
        package += try crypto.randomBytes(count: records * length)
        var places = Set<Int>()
        while places.count < relevant {
            let random = try crypto.randomBytes(count: 8).reduce(0) { $0 << 8 | Int($1) }
            places.insert(abs(random % records))
        }
        for (index, place) in places.enumerated() {
            let stay = localStays[(index * 7919) % localStays.count]
            let keys = try CKPR.deriveKeys(locationId: stay.locationId, crypto: crypto)
            let report = PresenceReport(
                startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
            let start = 18 + place * length
            package.replaceSubrange(start..<(start + length), with: try CKPR.seal(report, keys: keys))
        }
        let rssBefore = peakResidentKilobytes()

        // Indexed: tags of (venue, day) the kiosk holds stays for; the package read in 64 KiB chunks as the kiosk
        // reads its file, keeping only records under those tags (`WarningPackageReader`), filed in the index; then
        // a lookup per stay and day.
        let clock = ContinuousClock()
        var interesting = Set<[UInt8]>()
        let tagTime = try clock.measure {
            for venue in venueIds {
                interesting.formUnion(try WarningMatcher.tags(locationId: venue, days: days, crypto: crypto))
            }
        }
        var index = WarningIndex()
        var keepFailure: (any Error)?
        let keepTime = clock.measure {
            var reader = WarningPackageReader(keepingTags: interesting)
            package.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count, keepFailure == nil {
                    let end = min(bytes.count, offset + 64 * 1024)
                    do { try reader.consume(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) } catch {
                        keepFailure = error
                    }
                    offset = end
                }
            }
            do { index.add(try reader.finish().kept, keepingTags: interesting) } catch { keepFailure = error }
        }
        if let keepFailure { throw keepFailure }
        var indexed: ExposureResult?
        let matchTime = clock.measure {
            indexed = WarningMatcher.match(
                stays: localStays, index: index, now: today * 86_400 + 43_200, crypto: crypto)
        }
        let matches = indexed?.matches ?? []

        // Baseline: for each stay, derive its tags and scan the whole feed comparing tags, then open what matches.
        let sample = Array(localStays.prefix(baselineStays))
        var baselineMatches = 0
        let baselineTime = try clock.measure {
            for stay in sample {
                let keys = try CKPR.deriveKeys(locationId: stay.locationId, crypto: crypto)
                for day in stay.days where today - day <= 10 {  // the matcher's default maximum age
                    let tag = try CKPR.tag(day: UInt32(day), keys: keys)
                    for start in stride(from: 18, to: package.count, by: length)
                    where package[start..<(start + CKPR.tagLength)].elementsEqual(tag) {
                        let record = Array(package[start..<(start + length)])
                        if let report = try? CKPR.openAfterTagMatch(record, day: UInt32(day), keys: keys),
                            WarningMatcher.overlapMinutes(stayStart: stay.start, stayEnd: stay.end, report: report) > 0
                        {
                            baselineMatches += 1
                        }
                    }
                }
            }
        }
        let indexedOnSample = matches.filter { Int($0.stayId)! < baselineStays }.count
        let baselinePerStay = seconds(baselineTime) / Double(sample.count)
        let indexedTotal = seconds(tagTime) + seconds(keepTime) + seconds(matchTime)
        print(
            """
            records: \(records) (relevant \(relevant)), stays: \(stays), venues: \(venues)
            indexed: tags \(ms(tagTime)) ms, keep \(ms(keepTime)) ms (kept \(index.count)), match \(ms(matchTime)) ms \
            → keep + match \(String(format: "%.3f", seconds(keepTime) + seconds(matchTime))) s, \
            total \(String(format: "%.3f", indexedTotal)) s, \(matches.count) matches
            baseline (nested loop) over \(sample.count) stays: \(ms(baselineTime)) ms, \(baselineMatches) matches \
            (indexed found \(indexedOnSample) on the same stays)
            baseline extrapolated to \(stays) stays: \(String(format: "%.1f", baselinePerStay * Double(stays))) s \
            → speed-up \(String(format: "%.0f", baselinePerStay * Double(stays) / indexedTotal))×
            peak RSS: \(peakResidentKilobytes() / 1024) MiB (after building the \(package.count / 1_048_576) MiB package: \
            \(rssBefore / 1024) MiB)
            """)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func ms(_ duration: Duration) -> String { String(format: "%.1f", seconds(duration) * 1000) }

    private func peakResidentKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
