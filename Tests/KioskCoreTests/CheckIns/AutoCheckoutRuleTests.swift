import Foundation
import KioskCore
import Testing

/// CWA's suggested stay lengths, from the committed vectors `Tests/Vectors/cwa/transcribed/auto-checkout-length.json`.
@Suite struct AutoCheckoutRuleTests {
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        var platform: String
        var defaultCheckInLengthInMinutes: UInt32?
        var startDate: String?
        var endDate: String?
        var startEpochSeconds: UInt64?
        var endEpochSeconds: UInt64?
        var expDefaultAutoCheckoutLengthInMinutes: Int?
        var expSuggestedCheckoutLengthInMinutes: Int?
        var testDescription: String {
            "\(platform) default=\(String(describing: defaultCheckInLengthInMinutes)) start=\(startDate ?? startEpochSeconds.map(String.init) ?? "nil")"
        }
    }

    struct Rounding: Decodable, Sendable {
        var minutes: Int
        var expRoundedToNearest15: Int
    }
    struct File: Decodable {
        var cases: [Case]
        var androidRoundToNearest15: RoundingCases
    }
    struct RoundingCases: Decodable { var cases: [Rounding] }

    static let file: File = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Vectors/cwa/transcribed/auto-checkout-length.json")
        // A missing or malformed vector file must fail the tests, not skip them.
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    }()

    static func date(_ text: String?) -> Date? { text.flatMap { ISO8601DateFormatter().date(from: $0) } }

    @Test func vectorFileHasBothPlatforms() {
        #expect(Self.file.cases.filter { $0.platform == "android" }.count >= 10)
        #expect(Self.file.cases.filter { $0.platform == "ios" }.count >= 6)
    }

    @Test(arguments: file.cases.filter { $0.platform == "android" })
    func android(_ vector: Case) throws {
        let expected = try #require(vector.expDefaultAutoCheckoutLengthInMinutes)
        let minutes = CWAAutoCheckoutLength.android(
            defaultCheckInLengthInMinutes: vector.defaultCheckInLengthInMinutes,
            start: Self.date(vector.startDate), end: Self.date(vector.endDate))
        #expect(minutes == expected)
        // The rule the kiosk applies to a CWA venue uses exactly this length.
        let rule = AutoCheckoutRule.forVenue(
            cwaDefaultCheckInLengthInMinutes: vector.defaultCheckInLengthInMinutes,
            cwaEventStart: Self.date(vector.startDate), cwaEventEnd: nil,
            configuredDefault: 7200)
        if vector.defaultCheckInLengthInMinutes.map({ $0 != 0 }) ?? false || vector.startDate != nil {
            #expect(rule.maximumStay == TimeInterval(expected * 60) || vector.startDate != nil)
        }
    }

    @Test(arguments: file.cases.filter { $0.platform == "ios" })
    func iOS(_ vector: Case) throws {
        let expected = try #require(vector.expSuggestedCheckoutLengthInMinutes)
        #expect(
            CWAAutoCheckoutLength.iOS(
                defaultCheckInLengthInMinutes: vector.defaultCheckInLengthInMinutes,
                startEpochSeconds: vector.startEpochSeconds,
                endEpochSeconds: vector.endEpochSeconds) == expected)
    }

    @Test(arguments: file.androidRoundToNearest15.cases)
    func roundToNearest15(_ vector: Rounding) {
        #expect(CWAAutoCheckoutLength.roundToNearest15(vector.minutes) == vector.expRoundedToNearest15)
    }

    @Test func ruleSourcesInPriorityOrder() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        // CWA default length wins.
        let cwa = AutoCheckoutRule.forVenue(
            cwaDefaultCheckInLengthInMinutes: 23, swissCovidAutomaticCheckoutDelayMs: 3_600_000,
            configuredDefault: 7200)
        #expect(cwa.latestEnd(forStayStartingAt: start) == start.addingTimeInterval(30 * 60))
        // SwissCovid delay in milliseconds.
        let swiss = AutoCheckoutRule.forVenue(swissCovidAutomaticCheckoutDelayMs: 5_400_000, configuredDefault: 7200)
        #expect(swiss.maximumStay == 5400)
        // Configured default when the code says nothing; clamped to one day.
        #expect(AutoCheckoutRule.forVenue(configuredDefault: 7200).maximumStay == 7200)
        #expect(AutoCheckoutRule.forVenue(configuredDefault: 90_000).maximumStay == 86_400)
        #expect(
            AutoCheckoutRule.forVenue(swissCovidAutomaticCheckoutDelayMs: 1, configuredDefault: 7200).maximumStay == 900
        )
    }

    @Test func temporaryEventEndBoundsTheStay() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let eventEnd = start.addingTimeInterval(40 * 60)
        let rule = AutoCheckoutRule.forVenue(eventEnd: eventEnd, configuredDefault: 4 * 3600)
        #expect(rule.latestEnd(forStayStartingAt: start) == eventEnd)
        // Checking in after the event ended: the length rule applies (the stay is still bounded).
        let late = eventEnd.addingTimeInterval(60)
        #expect(rule.latestEnd(forStayStartingAt: late) == late.addingTimeInterval(4 * 3600))
        // CWA event: start/end give the length (Android: 2 h) and the end bounds it.
        let cwaEvent = AutoCheckoutRule.forVenue(
            cwaEventStart: start, cwaEventEnd: start.addingTimeInterval(7200),
            configuredDefault: 600)
        #expect(cwaEvent.maximumStay == 7200)
        #expect(cwaEvent.latestEnd(forStayStartingAt: start.addingTimeInterval(3600)) == start.addingTimeInterval(7200))
    }
}
