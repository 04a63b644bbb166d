import Foundation
import KioskCore
import Testing

/// Days of the ratchet from moments, in UTC.
@Suite struct DiaryCalendarTests {
    @Test func aDayIsTheUTCDaySince1970() {
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: 0)) == 0)
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: 86_399.9)) == 0)
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: 86_400)) == 1)
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: -1)) == -1)
        // 2026-11-27T23:59:59Z and 2026-11-28T00:00:00Z.
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: 1_795_823_999)) == 20_784)
        #expect(DiaryCalendar.day(of: Date(timeIntervalSince1970: 1_795_824_000)) == 20_785)
        #expect(DiaryCalendar.start(of: 20_785) == Date(timeIntervalSince1970: 1_795_824_000))
    }

    @Test func aDayIsShownAsItsUTCDate() {
        #expect(DiaryCalendar.isoDate(0) == "1970-01-01")
        #expect(DiaryCalendar.isoDate(20_784) == "2026-11-27")
        #expect(DiaryCalendar.isoDate(20_785) == "2026-11-28")
    }
}
