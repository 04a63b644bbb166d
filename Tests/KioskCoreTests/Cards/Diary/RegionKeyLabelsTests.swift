import KioskCore
import Testing

/// The labels of the region's keys and the day key's CKA_ID.
@Suite struct RegionKeyLabelsTests {
    @Test func aCardKeysLabelNamesItsGeneration() {
        #expect(RegionKeyLabels.card(generation: 1) == "region-card-g1")
        #expect(RegionKeyLabels.card(generation: 255) == "region-card-g255")
        for generation in [UInt8(1), 9, 10, 99, 100, 255] {
            #expect(RegionKeyLabels.generation(ofLabel: RegionKeyLabels.card(generation: generation)) == generation)
        }
        for label in [
            "region-card-g0", "region-card-g256", "region-card-g01", "region-card-g", "region-card-g1x",
            "region-day", "region-wrap", "region-card-g+1", "region-card-g١",
        ] {
            #expect(RegionKeyLabels.generation(ofLabel: label) == nil, "\(label)")
        }
    }

    @Test func theDayIsItsIDInFourBytes() {
        #expect(RegionKeyLabels.dayID(20_405) == [0x00, 0x00, 0x4F, 0xB5])
        for day in [0, 1, 20_405, 65_536, Int(Int32.max)] {
            #expect(RegionKeyLabels.day(fromID: RegionKeyLabels.dayID(day)) == day)
        }
        #expect(RegionKeyLabels.day(fromID: []) == nil)
        #expect(RegionKeyLabels.day(fromID: [1, 2, 3]) == nil)
    }
}
