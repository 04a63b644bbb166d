import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore

/// Benchmarks (not tests): timings are measured here and recorded in BENCHMARKS.md, never asserted.
@main
struct KioskBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-bench",
        abstract: "Measure the kiosk's hot paths on this machine.",
        subcommands: [StoreBench.self, MatchBench.self, SealBench.self, CWABench.self, CrowdNotifierBench.self]
    )
}

/// Tap → durable check-in against a real SQLite store in a temporary directory.
struct StoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Time card taps (derive keys, open stays, decide, seal, durable commit) and bare store commits."
    )

    @Option(help: "Number of taps to time.") var taps = 10_000
    @Option(help: "Number of distinct cards tapping in turn.") var cards = 1_000
    @Option(help: "Directory to create the temporary state directory in.") var under = NSTemporaryDirectory()

    func validate() throws {
        guard taps >= 1, cards >= 1 else { throw ValidationError("taps and cards must be positive") }
    }

    func run() throws {
        let directory = (under as NSString).appendingPathComponent("kiosk-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let crypto = OpenSSLCrypto()
        let store = try SQLiteCheckInStore(directory: directory)
        let desk = CheckInDesk(store: store, crypto: crypto)
        let venue = StayVenue(
            locationId: try crypto.randomBytes(count: 32), description: "Benchmark venue",
            address: "1 Test Street", autoCheckout: AutoCheckoutRule(maximumStay: 3 * 3600))
        var cardList = [CardSecret]()
        for _ in 0..<cards { cardList.append(try CardSecret.generate(kind: .visitor, crypto: crypto)) }

        // Simulated time: one tap a minute, so each card alternates check-in and checkout within the daily limit.
        var now = Date()
        let clock = ContinuousClock()
        var tapTimes = [Duration]()
        tapTimes.reserveCapacity(taps)
        var stored = 0
        for index in 0..<taps {
            now = now.addingTimeInterval(60)
            let card = cardList[index % cards]
            var outcome = TapOutcome.alreadyRegistered
            let elapsed = clock.measure {
                outcome = desk.tap(card, at: venue, clock: ClockReading(now: now, isSynchronized: true))
            }
            tapTimes.append(elapsed)
            switch outcome {
            case .checkedIn, .checkedOut: stored += 1
            default: throw ValidationError("tap \(index) was not stored: \(outcome)")
            }
        }

        // The store alone: one durable commit of one sealed-size row.
        var commitTimes = [Duration]()
        commitTimes.reserveCapacity(taps)
        let handle = try crypto.randomBytes(count: 32)
        for _ in 0..<taps {
            let row = StoredStay(
                id: try crypto.randomBytes(count: 16), handle: handle,
                sealed: try crypto.randomBytes(count: 120), expiryHour: 720_000)
            commitTimes.append(clock.measure { _ = try? store.commit(handle: handle, upserts: [row], deletions: []) })
        }
        let counts = try store.counts()

        // The same taps against the in-memory store: the part of a tap that is not the store (keys, crypto, decisions).
        let memoryDesk = CheckInDesk(store: InMemoryCheckInStore(), crypto: crypto)
        var memoryTimes = [Duration]()
        memoryTimes.reserveCapacity(taps)
        for index in 0..<taps {
            now = now.addingTimeInterval(60)
            let card = cardList[index % cards]
            memoryTimes.append(
                clock.measure {
                    _ = memoryDesk.tap(card, at: venue, clock: ClockReading(now: now, isSynchronized: true))
                })
        }

        print("kiosk-bench store: \(taps) taps by \(cards) cards, \(stored) stored; \(counts.stays) rows at the end")
        print(Self.summary("tap → durable check-in (full path)", tapTimes))
        print(Self.summary("store commit only (one row, durable)", commitTimes))
        print(Self.summary("tap without the store (in-memory store)", memoryTimes))
    }

    static func summary(_ label: String, _ samples: [Duration]) -> String {
        let sorted = samples.map(\.fractionalMilliseconds).sorted()
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return String(
            format: "%@: n=%d p50=%.3f ms p90=%.3f ms p99=%.3f ms max=%.3f ms",
            label, sorted.count, percentile(0.50), percentile(0.90), percentile(0.99), sorted.last ?? 0)
    }
}
