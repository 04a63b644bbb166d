import Foundation
import KioskCore
import Testing

/// The region key export file: written and read back, and every malformed line refused by number.
@Suite struct RegionKeyExportTests {
    let export = RegionKeyExport(
        systemIdentifier: DiaryDiversification.systemIdentifier(regionName: "NXP Abu"),
        cards: [
            .init(generation: 2, wrapped: [UInt8](repeating: 0xB2, count: 24)),
            .init(generation: 1, wrapped: [UInt8](repeating: 0xA1, count: 24)),
        ],
        dayKey: .init(day: 20_405, wrapped: [UInt8](repeating: 0xD0, count: 24)))

    @Test func aFileIsReadBackAsWritten() throws {
        let text = export.text
        #expect(
            text == """
                kiosk-region-keys 1
                region 4e58502041627500000000000000000000000000
                wrapped-under region-wrap
                card 1 region-card-g1 \(String(repeating: "a1", count: 24))
                card 2 region-card-g2 \(String(repeating: "b2", count: 24))
                day 20405 region-day \(String(repeating: "d0", count: 24))

                """)
        #expect(try RegionKeyExport.parse(text) == export)
    }

    @Test func malformedFilesAreRefusedNamingTheLine() {
        let good = export.text
        func refused(_ text: String) -> String? {
            do {
                _ = try RegionKeyExport.parse(text)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refused("") == "the file is empty")
        #expect(refused("hello\n")?.hasPrefix("line 1: not a region key export") == true)
        #expect(
            refused(good.replacingOccurrences(of: "kiosk-region-keys 1", with: "kiosk-region-keys 2"))
                == "line 1: a version this kiosk does not read (it reads 1)")
        #expect(
            refused(good.replacingOccurrences(of: "region-card-g2", with: "region-card-g3"))?.hasPrefix("line 5:")
                == true)
        #expect(
            refused(good.replacingOccurrences(of: "card 2 region-card-g2", with: "card 1 region-card-g1"))
                == "line 5: generation 1 appears twice")
        #expect(
            refused(
                good.replacingOccurrences(
                    of: String(repeating: "d0", count: 24), with: String(repeating: "d0", count: 23)))
                == "line 6: a wrapped key is 24 bytes in hexadecimal")
        #expect(
            refused(good + "day 1 region-day \(String(repeating: "00", count: 24))\n") == "line 7: a second day key")
        #expect(refused(good + "extra\n") == "line 7: not a line of a region key export")
        #expect(
            refused(good.replacingOccurrences(of: "wrapped-under region-wrap\n", with: ""))
                == "the file has no wrapped-under line")
        let noDay = good.split(separator: "\n").dropLast().joined(separator: "\n") + "\n"
        #expect(refused(noDay) == "the file holds no day key")
    }
}
