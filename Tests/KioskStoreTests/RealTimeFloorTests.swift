import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// Retention on a board without a real-time clock: while the clock is not synchronized, expiry runs against the last
/// synchronized reading, kept in the database, plus the monotonic time since; a power cut does not start it over.
@Suite struct RealTimeFloorTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    struct Board {
        let directory = TemporaryDirectory("floor")
        let store: SQLiteCheckInStore
        let wall = ManualClockSource(now: RealTimeFloorTests.start)
        let monotonic = ManualMonotonicClock()
        var clock: FlooredClockSource
        let desk: CheckInDesk

        init() throws {
            store = try SQLiteCheckInStore(directory: directory.path)
            clock = FlooredClockSource(base: wall, monotonic: monotonic, store: store)
            desk = CheckInDesk(store: store, crypto: OpenSSLCrypto())
        }

        /// Time passes on the board: both clocks move (the wall clock only says so, it is not trusted unsynchronized),
        /// and the kiosk reads its clock every ten minutes as its ticks do.
        func run(for seconds: TimeInterval) {
            var left = seconds
            while left > 0 {
                let step = min(600, left)
                wall.advance(by: step)
                monotonic.advance(by: step)
                _ = clock.read()
                left -= step
            }
        }

        /// A power cut: the board is off for `off` seconds (its wall clock and monotonic clock start again from
        /// nothing), then the kiosk starts over the same database, its clock not synchronized.
        mutating func powerCut(off: TimeInterval, boot: String) {
            wall.set(Date(timeIntervalSince1970: 0))
            wall.setSynchronized(false)
            monotonic.reboot(as: boot, sinceBoot: 20)
            clock = FlooredClockSource(base: wall, monotonic: monotonic, store: store)
        }
    }

    @Test func anUnsynchronizedReadingIsTheLastSynchronizedOnePlusTheMonotonicTime() throws {
        let board = try Board()
        defer { board.directory.remove() }
        #expect(board.clock.read().earliest == Self.start)
        board.wall.setSynchronized(false)
        board.wall.set(Self.start.addingTimeInterval(5 * 365 * 86_400))  // a wrong clock far ahead: not believed
        board.monotonic.advance(by: 3600)
        let reading = board.clock.read()
        #expect(!reading.isSynchronized)
        #expect(reading.earliest == Self.start.addingTimeInterval(3600))
        // A clock that knows nothing (no floor kept yet) gives no bound.
        let blank = TemporaryDirectory("floor-blank")
        defer { blank.remove() }
        let unsynchronized = ManualClockSource(now: Self.start, isSynchronized: false)
        let fresh = FlooredClockSource(
            base: unsynchronized, monotonic: ManualMonotonicClock(),
            store: try SQLiteCheckInStore(directory: blank.path))
        #expect(fresh.read().earliest == nil)
    }

    @Test func theFloorSurvivesAPowerCutWithinItsWriteInterval() throws {
        var board = try Board()
        defer { board.directory.remove() }
        _ = board.clock.read()
        board.wall.setSynchronized(false)
        board.run(for: 5 * 86_400 + 1234)
        let beforeCut = try #require(board.clock.read().earliest)
        board.powerCut(off: 3 * 86_400, boot: "boot-2")
        let afterCut = try #require(board.clock.read().earliest)
        // The floor written before the cut, plus the 20 s of the new boot: at most one write interval lost.
        #expect(afterCut <= beforeCut.addingTimeInterval(20))
        #expect(afterCut >= beforeCut.addingTimeInterval(20 - FlooredClockSource.persistInterval))
        #expect(try board.store.loadRealTimeFloor()?.bootID == "boot-2")
    }

    @Test func staysExpireFourteenDaysAfterTheirEndThoughTheClockIsNeverSynchronizedAgain() throws {
        var board = try Board()
        defer { board.directory.remove() }
        let card = try CardSecret.generate(kind: .visitor, crypto: OpenSSLCrypto())
        guard case .checkedIn = board.desk.tap(card, at: testVenue, clock: board.clock.read()) else {
            Issue.record("not checked in")
            return
        }
        board.run(for: 1800)
        guard case .checkedOut = board.desk.tap(card, at: testVenue, clock: board.clock.read()) else {
            Issue.record("not checked out")
            return
        }
        let end = Self.start.addingTimeInterval(1800)
        // The network goes; the board runs on for 8 days, loses power, and runs again unsynchronized.
        board.wall.setSynchronized(false)
        board.run(for: 8 * 86_400)
        #expect(try board.desk.expire(clock: board.clock.read()) == 0)
        board.powerCut(off: 86_400, boot: "boot-2")
        // Six days more of running time: 14 days since the end less the time lost at the cut. Not yet.
        board.run(for: 6 * 86_400 - 2 * FlooredClockSource.persistInterval)
        #expect(try board.desk.expire(clock: board.clock.read()) == 0)
        #expect(try board.store.counts().stays == 1)
        // Within the hour after 14 days of running time (and whatever the cut lost): gone.
        board.run(for: 2 * FlooredClockSource.persistInterval + 3600)
        let earliest = try #require(board.clock.read().earliest)
        #expect(earliest.timeIntervalSince(end) <= 14 * 86_400 + 3600 + FlooredClockSource.persistInterval)
        #expect(try board.desk.expire(clock: board.clock.read()) == 1)
        #expect(try board.store.counts().stays == 0)
    }
}
