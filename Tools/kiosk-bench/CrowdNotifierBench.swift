import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL
import KioskSodium

/// Matching CrowdNotifier problematic events at a tap: a card's 14 days of stays at CrowdNotifier venues against a
/// published list of events (some about those venues and hours, the rest about other venues).
struct CrowdNotifierBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crowdnotifier",
        abstract: "Time matching a card's CrowdNotifier stays against published problematic events."
    )

    @Option(help: "Published events in the list.") var events = 10_000
    @Option(help: "Stays of the card per day, over 14 days.") var staysPerDay = 4
    @Option(help: "Hours each stay lasts.") var hours = 2
    @Option(help: "CrowdNotifier venues the stays are spread over.") var venues = 3
    @Option(help: "Published events about the card's venues and hours.") var relevant = 100
    @Option(help: "Times the match is repeated (the median and the slowest are printed).") var repeats = 20

    func validate() throws {
        guard events >= relevant, relevant >= 0, staysPerDay >= 1, hours >= 1, venues >= 1, repeats >= 1 else {
            throw ValidationError("events ≥ relevant ≥ 0; stays-per-day, hours, venues and repeats ≥ 1")
        }
    }

    func run() throws {
        let crypto = OpenSSLCrypto()
        let box = SodiumSecretBox()
        let now: Int64 = 1_790_000_000
        let venueKeys = try (0..<venues).map { _ in
            try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 200), crypto: crypto)
        }
        var stays = [MatchableStay]()
        for day in 0..<14 {
            for slot in 0..<staysPerDay {
                let start = now - Int64(day) * 86_400 - Int64(slot) * Int64(hours + 1) * 3600 - 1800
                stays.append(
                    MatchableStay(
                        id: "\(day)-\(slot)", locationId: [], start: start, end: start + Int64(hours) * 3600,
                        crowdNotifier: venueKeys[(day * staysPerDay + slot) % venues]))
            }
        }
        print("preparing \(events) published events (\(relevant) about the card's venues and hours) …")
        var list = [CrowdNotifierEvent]()
        for index in 0..<relevant {
            let stay = stays[(index * 7919) % stays.count]
            let hour = stay.start / 3600
            list.append(
                try CrowdNotifierEvent.sealV3(
                    keys: stay.crowdNotifier!, hour: hour, start: hour * 3600, end: hour * 3600 + 3600,
                    nonce: try crypto.randomBytes(count: 24), crypto: crypto, box: box))
        }
        let stranger = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 200), crypto: crypto)
        for index in relevant..<events {
            let hour = now / 3600 - Int64(index % (14 * 24))
            list.append(
                try CrowdNotifierEvent.sealV3(
                    keys: stranger, hour: hour, start: hour * 3600, end: hour * 3600 + 3600,
                    nonce: try crypto.randomBytes(count: 24), crypto: crypto, box: box))
        }
        // The published file, read back as the kiosk reads it (signature aside), every event kept: the worst case
        // for the index a tap looks in.
        let bytes = try CrowdNotifierEventPackage(form: .v3, createdAt: UInt64(now), events: list).bytes()
        let clock = ContinuousClock()
        var index = CrowdNotifierEventIndex()
        let readTime = try clock.measure {
            index = CrowdNotifierEventIndex(try CrowdNotifierEventPackage(unverifiedBytes: bytes).events)
        }
        var times = [Duration]()
        var result: ExposureResult?
        for _ in 0..<repeats {
            times.append(
                clock.measure {
                    result = CrowdNotifierMatcher.match(stays: stays, index: index, crypto: crypto, box: box)
                })
        }
        times.sort()
        let matches = result?.matches ?? []
        let matchedStays = Set(matches.map(\.stayId)).count
        let identities = stays.reduce(0) { $0 + CrowdNotifierVenueKeys.hours(from: $1.start, to: $1.end).count }
        print(
            """
            events: \(events) (\(bytes.count / 1024) KiB published, read and indexed in \(ms(readTime)) ms), \
            stays: \(stays.count) over 14 days (\(identities) hourly identities), venues: \(venues)
            match at a tap: median \(ms(times[times.count / 2])) ms, slowest \(ms(times.last!)) ms over \(repeats) runs; \
            \(matchedStays) stays matched, \(Set(matches.map(\.day)).count) days
            """)
    }

    private func ms(_ duration: Duration) -> String {
        String(
            format: "%.2f",
            (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000)
    }
}
