import KioskCore
import Testing

/// The tag models by their GET_VERSION answers, as the reader recognises a card and the emulator answers.
@Suite struct NTAGModelTests {
    @Test(arguments: NTAGModel.allCases)
    func eachModelIsRecognisedByItsOwnAnswer(_ model: NTAGModel) {
        #expect(NTAGModel(version: model.version) == model)
        #expect(model.configPage == model.pageCount - 4)
    }

    @Test func subtypeAndVersionBytesMayDifferVendorTypeAndSizeMayNot() {
        var batch = NTAGModel.ntag215.version
        batch[3] = 0x01  // another subtype
        batch[5] = 0x01  // another minor version
        #expect(NTAGModel(version: batch) == .ntag215)
        var other = NTAGModel.ntag215.version
        other[1] = 0x05  // not NXP
        #expect(NTAGModel(version: other) == nil)
        var size = NTAGModel.ntag215.version
        size[6] = 0x15
        #expect(NTAGModel(version: size) == nil)
        #expect(NTAGModel(version: Array(NTAGModel.ntag213.version.prefix(7))) == nil)
        #expect(NTAGModel.allCases.filter(\.isNTAG) == [.ntag213, .ntag215, .ntag216])
    }
}
