import Foundation
import KioskCore
import Testing

/// How a visitor sees a time (`VisitorTime`): in the venue's zone, as each language writes it (Foundation's ICU/CLDR
/// formats, the exact strings it produces), "today" and "yesterday" from the catalogs, no-break characters inside a
/// date and a time range, never "UTC". Every zone is set here: no test depends on the machine's own.
@Suite struct VisitorTimeTests {
    static let rome = TimeZone(identifier: "Europe/Rome")!
    static let nbsp = "\u{00A0}"
    static let dash = "\u{2060}–\u{2060}"
    /// 2026-11-29 09:55 UTC (a Sunday; 10:55 in Bologna) and 10:45 UTC.
    static let start = Date(timeIntervalSince1970: 1_795_946_100)
    static let end = Date(timeIntervalSince1970: 1_795_949_100)

    /// The string with its no-break characters made visible, for messages and exact comparisons.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: nbsp, with: " ").replacingOccurrences(of: "\u{2060}", with: "")
    }

    @Test(arguments: [
        (Language.en, "Sunday 29 November, 10:55–11:45", "29 November 2026"),
        (.de, "Sonntag, 29. November, 10:55–11:45", "29. November 2026"),
        (.fr, "dimanche 29 novembre, 10:55–11:45", "29 novembre 2026"),
        (.it, "domenica 29 novembre, 10:55–11:45", "29 novembre 2026"),
    ])
    func aStayIsWrittenAsEachLanguageWritesItInTheVenuesZone(_ example: (Language, String, String)) {
        let time = VisitorTime(example.0, zone: Self.rome)
        let span = time.span(Self.start, Self.end)
        #expect(Self.plain(span) == example.1, "\(span.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(Self.plain(time.dayWithYear(Self.start)) == example.2)
        #expect(time.time(Self.start) == "10:55")
        #expect(!span.contains("UTC"))
    }

    /// A time to come ("locked until", "ends by itself at"): the time alone on the same day, with its day after
    /// midnight.
    @Test func aTimeToComeNamesItsDayWhenItIsNotToday() {
        let time = VisitorTime(.en, zone: Self.rome)
        #expect(time.until(Self.end, now: Self.start) == "11:45")
        // 2026-11-30 00:30 UTC: 01:30 on Monday in Rome.
        let tomorrow = Date(timeIntervalSince1970: 1_795_998_600)
        #expect(Self.plain(time.until(tomorrow, now: Self.start)) == "Monday 30 November, 01:30")
        #expect(
            Self.plain(VisitorTime(.it, zone: Self.rome).until(tomorrow, now: Self.start))
                == "lunedì 30 novembre, 01:30")
    }

    @Test func datesAndTimeRangesDoNotBreakInside() {
        for language in Language.allCases {
            let time = VisitorTime(language, zone: Self.rome)
            let span = time.span(Self.start, Self.end)
            // The only breakable space is the one between the date and the times.
            #expect(span.filter { $0 == " " }.count == 1, "\(language): \(span)")
            #expect(span.hasSuffix(", 10:55\(Self.dash)11:45"), "\(language): \(span)")
            #expect(!time.day(Self.start).contains(" "), "\(language)")
            #expect(time.day(Self.start).contains(Self.nbsp), "\(language)")
            #expect(time.times(Self.start, Self.end) == "10:55\(Self.dash)11:45")
        }
        // Over midnight: each day with its time, the break only between them.
        let night = VisitorTime(.it, zone: Self.rome).span(
            Date(timeIntervalSince1970: 1_795_905_000), Self.end)  // 2026-11-28 22:30 UTC: 23:30 in Rome
        #expect(Self.plain(night) == "sabato 28 novembre, 23:30 – domenica 29 novembre, 11:45")
        #expect(night.contains("23:30\(Self.nbsp)– domenica"), "the dash never starts a line")
    }

    @Test func theZoneIsTheConfiguredOne() {
        let newYork = VisitorTime(.en, zone: TimeZone(identifier: "America/New_York")!)
        #expect(Self.plain(newYork.span(Self.start, Self.end)) == "Sunday 29 November, 04:55–05:45")
        let auckland = VisitorTime(.en, zone: TimeZone(identifier: "Pacific/Auckland")!)
        #expect(Self.plain(auckland.span(Self.start, Self.end)) == "Sunday 29 November, 22:55–23:45")
        // Without one, the board's own zone (as `venue.timeZone` left out).
        #expect(VisitorTime(.en).zone == TimeZone.current)
        var expected = Calendar(identifier: .gregorian)
        expected.timeZone = TimeZone.current
        let hour = expected.component(.hour, from: Self.start)
        let minute = expected.component(.minute, from: Self.start)
        #expect(VisitorTime(.en).time(Self.start) == String(format: "%02d:%02d", hour, minute))
    }

    @Test func todayAndYesterdayAreTheVenuesDaysInEachLanguage() {
        let now = Date(timeIntervalSince1970: 1_795_960_800)  // 2026-11-29 14:00 UTC
        let lateYesterday = Date(timeIntervalSince1970: 1_795_905_000)  // 2026-11-28 22:30 UTC: 23:30 in Rome
        let earlyToday = Date(timeIntervalSince1970: 1_795_908_600)  // 2026-11-28 23:30 UTC: 00:30 in Rome, the 29th
        let expected: [Language: (String, String)] = [
            .en: ("yesterday, 23:30", "today, 00:30"), .de: ("gestern, 23:30", "heute, 00:30"),
            .fr: ("hier, 23:30", "aujourd’hui, 00:30"), .it: ("ieri, 23:30", "oggi, 00:30"),
        ]
        for (language, (yesterday, today)) in expected {
            let time = VisitorTime(language, zone: Self.rome)
            #expect(time.moment(lateYesterday, now: now) == yesterday)
            #expect(time.moment(earlyToday, now: now) == today)
            #expect(Self.plain(time.span(Self.start, Self.end, now: now)).hasPrefix(today.prefix(while: { $0 != "," })))
        }
        // Two days back: the day itself.
        #expect(
            Self.plain(VisitorTime(.it, zone: Self.rome).moment(Date(timeIntervalSince1970: 1_795_816_800), now: now))
                == "venerdì 27 novembre, 23:00")
        // In New York the same instant is still the 28th's evening: "yesterday" there too, at 18:30.
        #expect(
            VisitorTime(.en, zone: TimeZone(identifier: "America/New_York")!).moment(earlyToday, now: now)
                == "yesterday, 18:30")
    }

    /// Europe/Rome leaves summer time on 2026-10-25 (03:00 CEST becomes 02:00 CET): a stay over the change reads
    /// as the venue's clocks showed it, and the day before and after have their own offsets.
    @Test func aStayOverTheDaylightSavingChangeReadsAsTheVenuesClocks() {
        let time = VisitorTime(.it, zone: Self.rome)
        let before = Date(timeIntervalSince1970: 1_792_881_000)  // 2026-10-24 22:30 UTC: 00:30 CEST on the 25th
        let after = Date(timeIntervalSince1970: 1_792_897_200)  // 2026-10-25 03:00 UTC: 04:00 CET
        #expect(Self.plain(time.span(before, after)) == "domenica 25 ottobre, 00:30–04:00")
        #expect(time.time(Date(timeIntervalSince1970: 1_792_836_000)) == "12:00")  // 2026-10-24 10:00 UTC, CEST
        #expect(time.time(Date(timeIntervalSince1970: 1_793_008_800)) == "11:00")  // 2026-10-26 10:00 UTC, CET
        let german = VisitorTime(.de, zone: Self.rome)
        #expect(Self.plain(german.span(before, after)) == "Sonntag, 25. Oktober, 00:30–04:00")
    }

    @Test func aWarningsDayIsItsCalendarDateInWords() {
        // Day 20_786 is 2026-11-29.
        #expect(Self.plain(VisitorTime(.fr, zone: Self.rome).calendarDay(20_786)) == "dimanche 29 novembre")
        #expect(
            Self.plain(VisitorTime(.de, zone: TimeZone(identifier: "Pacific/Auckland")!).calendarDay(20_786))
                == "Sonntag, 29. November")
    }

    /// Staff and logs keep UTC: `TimeText` is unchanged.
    @Test func staffTextsKeepUTC() {
        #expect(TimeText.dateTime(unixSeconds: 1_795_946_100) == "2026-11-29 09:55")
        #expect(TimeText.iso8601(unixSeconds: 1_795_946_100) == "2026-11-29T09:55:00Z")
        // The staff's status slip keeps its UTC time in every language.
        for language in Language.allCases {
            #expect(Catalog.of(language).rawText("receipt.status.printed")?.hasSuffix("{time} UTC") == true)
        }
    }

    /// The venue's zone is checked in the board's time zone database without loading ICU, and made only when a
    /// visitor text first needs a time (`VenueZone`).
    @Test func theVenuesZoneIsCheckedByNameAndMadeWhenFirstNeeded() {
        #expect(VenueZone.isKnown("Europe/Rome") && VenueZone.isKnown("America/New_York") && VenueZone.isKnown("UTC"))
        for name in [
            "Europe/Bologna", "", "Europe", "Europe/", "../etc/passwd", "/etc/localtime", "Europe/Rome\n",
            "Éurope/Rome",
        ] {
            #expect(!VenueZone.isKnown(name), "\(name)")
        }
        let rome = VenueZone(identifier: "Europe/Rome")
        #expect(rome.timeZone.identifier == "Europe/Rome")
        #expect(rome == VenueZone(TimeZone(identifier: "Europe/Rome")!))
        #expect(VenueZone.board.identifier == nil && VenueZone.board.timeZone == TimeZone.current)
    }
}
