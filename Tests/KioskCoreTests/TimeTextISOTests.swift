import Foundation
import KioskCore
import Testing

@Suite struct TimeTextISOTests {
    @Test(arguments: [Int64(0), 951_782_400, 1_700_000_000, 1_795_000_123, -1])
    func iso8601AgreesWithFoundation(seconds: Int64) {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        #expect(
            TimeText.iso8601(unixSeconds: seconds)
                == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }
}
