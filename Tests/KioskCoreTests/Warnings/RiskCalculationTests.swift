import Foundation
import KioskOpenSSL
import Testing

@testable import KioskCore

/// Presence-tracing risk exactly as Corona-Warn-App computes it, with parameters that are not its production ones
/// (with those, a simpler rule happens to give the same results): normalized time summed per check-in and day and
/// mapped per check-in; only check-ins that got a level summed per day; the day's level from the day mapping alone.
@Suite struct RiskCalculationTests {
    static let day: Int64 = 20_500

    /// TRV 1 for level 5; a check-in needs 20 or more to get a level; a day is low below 40 and high from 40.
    static let parameters: PresenceTracingParameters = {
        var parameters = PresenceTracingParameters.cwaProduction
        parameters.transmissionRiskValues = [5: 1]
        parameters.normalizedTimePerCheckInToRiskLevel = [
            RiskLevelRange(range: MinuteRange(min: 20, max: 49), riskLevel: 1),
            RiskLevelRange(range: MinuteRange(min: 49, max: 999_999, minExclusive: true), riskLevel: 2),
        ]
        parameters.normalizedTimePerDayToRiskLevel = [
            RiskLevelRange(range: MinuteRange(min: 0, max: 40, minExclusive: true, maxExclusive: true), riskLevel: 1),
            RiskLevelRange(range: MinuteRange(min: 40, max: 999_999), riskLevel: 2),
        ]
        return parameters
    }()

    static func match(_ stay: String, minutes: Int64, day: Int64 = day) -> ExposureMatch {
        ExposureMatch(
            stayId: stay, day: day, overlapMinutes: minutes, transmissionRiskLevel: 5, normalizedTime: Double(minutes))
    }

    static func levels(_ results: [[ExposureMatch]]) -> [Int64: Int] {
        WarningMatcher.combined(
            results.map { ExposureResult(matches: $0, riskLevelByDay: [:]) }, parameters: parameters
        )
        .riskLevelByDay
    }

    @Test func matchesOfOneCheckInAreSummedBeforeTheyAreMapped() {
        // 15 + 15 minutes of one stay: neither match alone gets a level, the check-in (30) does. Another stay's 15
        // gets none and is left out of the day: 30, low. (Mapping each match, or summing every match, says 45: high.)
        #expect(
            Self.levels([[Self.match("a", minutes: 15), Self.match("a", minutes: 15), Self.match("c", minutes: 15)]])
                == [Self.day: 1])
    }

    @Test func aDayTakesItsLevelFromTheDayMappingAlone() {
        // One stay of 60 is high as a check-in; where a day needs 100 to be high, its day is low: a check-in's level
        // is never carried up to its day.
        var dayLow = Self.parameters
        dayLow.normalizedTimePerDayToRiskLevel = [
            RiskLevelRange(range: MinuteRange(min: 0, max: 100, minExclusive: true, maxExclusive: true), riskLevel: 1),
            RiskLevelRange(range: MinuteRange(min: 100, max: 999_999), riskLevel: 2),
        ]
        let result = WarningMatcher.combined(
            [ExposureResult(matches: [Self.match("a", minutes: 60)], riskLevelByDay: [:])], parameters: dayLow)
        #expect(result.riskLevelByDay == [Self.day: 1], "the check-in is high (60), the day is not")
        #expect(!result.isHighRisk)
    }

    @Test func checkInsWithoutALevelAreLeftOutOfTheDay() {
        // 25 (a level) and 19 (none): the day is 25, low; 44 would be high.
        #expect(Self.levels([[Self.match("a", minutes: 25), Self.match("b", minutes: 19)]]) == [Self.day: 1])
        // Nothing gets a level: no day at all.
        #expect(Self.levels([[Self.match("a", minutes: 19), Self.match("b", minutes: 19)]]).isEmpty)
    }

    @Test func bothSourcesCountTogetherPerCheckIn() {
        // The same stay matched by a CKPW/1 record (15) and by a CWA record (15): one check-in of 30, with a level.
        #expect(Self.levels([[Self.match("a", minutes: 15)], [Self.match("a", minutes: 15)]]) == [Self.day: 1])
        // Two check-ins of 25 each, one per source: 50, high.
        #expect(Self.levels([[Self.match("a", minutes: 25)], [Self.match("b", minutes: 25)]]) == [Self.day: 2])
    }

    @Test func daysAreCountedApart() {
        let other = Self.day + 1
        #expect(
            Self.levels([[Self.match("a", minutes: 25), Self.match("a", minutes: 25, day: other)]])
                == [Self.day: 1, other: 1])
    }

    @Test func theAgeFilterKeepsAnOverlapThatEndsAtTheDeadlineAndDropsOneBefore() throws {
        let crypto = OpenSSLCrypto()
        let venue = [UInt8](repeating: 0x3C, count: 32)
        let now: Int64 = Self.day * 86_400 + 12 * 3600
        let deadline = WarningMatcher.ageDeadline(now: now, parameters: .cwaProduction)
        #expect(deadline == (Self.day - 10) * 86_400)
        // A warning over the hour before the deadline and the hour after it.
        let hash = try crypto.sha256(venue)
        let start = UInt32(deadline / Interval.seconds - 6)
        let cwa = CWAWarningSet(
            warnings: [
                CWATraceWarning(locationIdHash: hash, startIntervalNumber: start, period: 12, transmissionRiskLevel: 5)
            ], reports: [])
        func matched(_ stayStart: Int64, _ stayEnd: Int64) -> [Int64] {
            WarningMatcher.match(
                stays: [MatchableStay(id: "s", locationId: venue, start: stayStart, end: stayEnd)], cwa: cwa, now: now,
                crypto: crypto
            ).matches.map(\.day)
        }
        // Ended 10 minutes before the deadline: too old. Ended exactly at it: counts. Across it: both its pieces (the
        // first ends at the deadline).
        #expect(matched(deadline - 3600, deadline - 600).isEmpty)
        #expect(matched(deadline - 3600, deadline) == [Self.day - 11])
        #expect(matched(deadline - 3600, deadline + 3600) == [Self.day - 11, Self.day - 10])
    }
}
