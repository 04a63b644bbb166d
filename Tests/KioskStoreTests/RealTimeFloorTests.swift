import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore
import Testing

/// Retention on a board without a real-time clock: within one boot an unsynchronized clock runs on the last
/// synchronized reading plus the monotonic time since (kept in the database, a lower bound across power cuts); after a
/// restart whose clock is not synchronized the time off is unknown, and retention, which must never be late, deletes
/// every stay once the boot has waited for its clock in vain.
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

    /// Checks in and out for half an hour from `start`; returns the card.
    func visit(_ board: Board) throws -> CardSecret {
        let card = try CardSecret.generate(kind: .visitor, crypto: OpenSSLCrypto())
        guard case .checkedIn = board.desk.tap(card, at: testVenue, clock: board.clock.read()) else {
            throw CheckInDeskTestError.unexpectedOutcome
        }
        board.run(for: 1800)
        guard case .checkedOut = board.desk.tap(card, at: testVenue, clock: board.clock.read()) else {
            throw CheckInDeskTestError.unexpectedOutcome
        }
        return card
    }

    /// Within one boot an unsynchronized clock still knows the time (the floor moves with the monotonic clock): expiry
    /// comes at 14 days of it, not before.
    @Test func withinOneBootStaysExpireAtTheirTimeThoughTheClockIsNotSynchronized() throws {
        let board = try Board()
        defer { board.directory.remove() }
        let card = try visit(board)
        board.wall.setSynchronized(false)
        board.run(for: 14 * 86_400 - 3600)
        #expect(!board.clock.read().downtimeUnknown)
        #expect(try board.desk.expire(clock: board.clock.read()) == 0)
        #expect(try board.desk.stays(of: card, clock: board.clock.read()).count == 1)
        board.run(for: 2 * 3600 + 600)
        #expect(try board.desk.expire(clock: board.clock.read()) == 1)
    }

    /// The board is switched off for three days within a stay's 14 and comes back without a synchronized clock: it
    /// cannot know how long it was off, so the stay may already be past its 14 days. Nothing is shown while the boot
    /// waits for the clock; then the stay goes — after 11 days of real time: early, never late.
    @Test func aRestartAfterAnUnknownTimeOffDeletesEveryStayOnceItsWaitIsOver() throws {
        var board = try Board()
        defer { board.directory.remove() }
        let card = try visit(board)
        board.wall.setSynchronized(false)
        board.run(for: 8 * 86_400)
        #expect(try board.desk.expire(clock: board.clock.read()) == 0)
        board.powerCut(off: 3 * 86_400, boot: "boot-2")
        let waiting = board.clock.read()
        #expect(waiting.downtimeUnknown && waiting.latest == nil)
        #expect(RetentionPolicy.awaitsSynchronization(waiting))
        #expect(try board.desk.stays(of: card, clock: waiting).isEmpty, "nothing shown while the time is unknown")
        #expect(try board.store.counts().stays == 1)
        // A restart of the daemon within the same boot does not forget that the time off is unknown.
        board.clock = FlooredClockSource(base: board.wall, monotonic: board.monotonic, store: board.store)
        #expect(board.clock.read().downtimeUnknown)
        board.run(for: RetentionPolicy.synchronizationWait)
        let waited = board.clock.read()
        #expect(!RetentionPolicy.awaitsSynchronization(waited))
        #expect(try board.desk.expire(clock: waited) == 1)
        #expect(try board.store.counts().stays == 0)
    }

    /// The same restart, but the network is back within the wait: the clock is synchronized and the stay is kept to
    /// its exact 14 days.
    @Test func aClockSynchronizedWithinTheWaitKeepsStaysToTheirExactTime() throws {
        var board = try Board()
        defer { board.directory.remove() }
        let card = try visit(board)
        let end = Self.start.addingTimeInterval(1800)
        board.run(for: 8 * 86_400)
        board.powerCut(off: 3 * 86_400, boot: "boot-2")
        board.monotonic.advance(by: 60)
        board.wall.set(end.addingTimeInterval(11 * 86_400 + 120))
        board.wall.setSynchronized(true)
        let synchronized = board.clock.read()
        #expect(!synchronized.downtimeUnknown && synchronized.latest == synchronized.now)
        #expect(try board.desk.expire(clock: synchronized) == 0)
        #expect(try board.desk.stays(of: card, clock: synchronized).count == 1)
        board.wall.set(end.addingTimeInterval(14 * 86_400 + 3600))
        #expect(try board.desk.expire(clock: board.clock.read()) == 1)
    }
}

enum CheckInDeskTestError: Error { case unexpectedOutcome }
