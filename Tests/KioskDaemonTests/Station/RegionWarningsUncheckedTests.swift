import Foundation
import KioskCore
import KioskDaemon
import KioskLogTesting
import KioskOpenSSL
import KioskSimulation
import Testing

/// A diary card whose stays could not be checked against the region's records (their file could not be read): the
/// tap tells no news and the log says why; the holder's session says that not every warning could be checked, never
/// as if none concerned them.
@Suite struct RegionWarningsUncheckedTests {
    /// A diary card served from a kiosk card's rows: the runner's path for a diary card, without a reader or a token.
    struct StoreDiaryCards: DiaryCardAccess {
        let desk: CheckInDesk

        func tap(_ card: DiaryCardOnReader, at venue: StayVenue, clock: ClockReading) async
            -> (outcome: TapOutcome, language: Language?, cardWasFull: Bool, matchingAllowed: Bool)
        {
            let tapped = desk.tap(card.secret, at: venue, clock: clock, collectingMatchable: false)
            let allowed = (try? desk.profile(of: card.secret).matchingAllowed) == true
            return (tapped.outcome, tapped.language, false, allowed)
        }

        func matchable(of card: DiaryCardOnReader, clock: ClockReading) async -> (
            stays: [MatchableStay], profile: CardProfile
        )? {
            (try? desk.contents(of: card.secret, clock: clock)).map { ($0.matchable, $0.profile) }
        }

        func make(profile: CardProfile) async throws(StationFailure) { throw .enrolment(reason: "not in this test") }

        func contents(of card: DiaryCardOnReader, clock: ClockReading) async throws(TapRefusal)
            -> CheckInDesk.CardContents
        {
            try desk.contents(of: card.secret, clock: clock)
        }

        func forgetOldDays(clock: ClockReading) async throws(TapRefusal) {}

        func serve(_ request: VisitorSession.Request, of card: DiaryCardOnReader, clock: ClockReading)
            async throws(TapRefusal) -> ServedRequest
        {
            try desk.serve(request, of: card.secret, now: Int64(clock.now.timeIntervalSince1970))
        }
    }

    /// Warnings held, none of the venue's matching, the region's unreadable (a file cut short).
    struct UnreadableRegion: WarningSource {
        var holdsWarnings: Bool { get async { true } }
        func match(_ stays: [MatchableStay]) async -> ExposureResult? { nil }
        func matchRegion(_ stays: [MatchableStay]) async throws(RegionWarningReadError) -> ExposureResult? {
            throw .cutShort
        }
    }

    @Test func aDiaryCardsStaysThatCouldNotBeCheckedAreNotTakenForNoWarning() async throws {
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: 1_772_445_600))  // 2026-03-02 10:00 UTC
        let crypto = OpenSSLCrypto()
        let desk = CheckInDesk(store: InMemoryCheckInStore(), crypto: crypto)
        let log = CapturedLog()
        let runner = try StationRunner(
            configuration: StationConfiguration(
                staffCode: "STAFF-CODE-1", timeZone: VenueZone(identifier: "Europe/Rome")),
            desk: desk, indicator: RecordingIndicator(), printer: RecordingPrinter(), enroller: FakeEnroller(),
            warnings: UnreadableRegion(), clock: clock, settings: InMemoryStationStateStore(),
            diaryCards: StoreDiaryCards(desk: desk), logger: log.logger(label: "station-test"))
        _ = await runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await runner.handle(.codeScanned(StationBench.cwaCode))
        _ = await runner.handle(.staffCommand(.leave))
        let secret = try CardSecret.generate(kind: .visitor, crypto: crypto)
        try desk.saveProfile(CardProfile(matchingAllowed: true), of: secret)
        let card = CardRead.diary(DiaryCardOnReader(placement: 1, secret: secret))

        let tap = await runner.handle(.cardRead(card))
        #expect(tap.steps.contains { if case .tapRecorded(.checkedIn) = $0 { true } else { false } })
        #expect(!(await runner.screen()).readingOrder.joined().contains(Catalog.english[.stationNewsTitle]))
        #expect(
            log.lines.contains {
                $0.hasPrefix("Warnings not checked against the region's records")
                    && $0.contains(RegionWarningReadError.cutShort.description)
            }, "\(log.lines)")

        _ = await runner.handle(.chosen("session"))
        let home = await runner.screen()
        #expect(home.lines.contains(Catalog.english[.sessionWarningsUnchecked]), "\(home.lines)")
        #expect(!home.choices.contains { $0.id == "warning" })
    }
}
