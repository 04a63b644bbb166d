import KioskCore
import Testing

/// ISO/IEC 7816-4 wrapping of DESFire native frames, and the frames a long command is cut into.
@Suite struct DESFireAPDUTests {
    @Test func wrapsWithAndWithoutData() {
        #expect(DESFireAPDU.wrap(command: 0x60, data: []) == [0x90, 0x60, 0x00, 0x00, 0x00])
        #expect(
            DESFireAPDU.wrap(command: 0x5A, data: [0x31, 0x44, 0x4B])
                == [0x90, 0x5A, 0x00, 0x00, 0x03, 0x31, 0x44, 0x4B, 0x00])
        #expect(DESFireAPDU.wrap(command: 0xAF, data: []) == [0x90, 0xAF, 0x00, 0x00, 0x00])
    }

    @Test func unwrapsDataAndStatus() throws {
        let ok = try DESFireAPDU.unwrap([0x01, 0x02, 0x91, 0x00])
        #expect(ok.data == [0x01, 0x02] && ok.status == 0x00)
        let more = try DESFireAPDU.unwrap([0x91, 0xAF])
        #expect(more.data.isEmpty && more.status == 0xAF)
        #expect(throws: DESFireCommandError.unexpectedStatusWord(0x6D, 0x00)) { try DESFireAPDU.unwrap([0x6D, 0x00]) }
        #expect(throws: DESFireCommandError.unexpectedStatusWord(0x90, 0x00)) {
            try DESFireAPDU.unwrap([0x01, 0x90, 0x00])
        }
        #expect(throws: DESFireCommandError.self) { try DESFireAPDU.unwrap([0x91]) }
    }

    /// 55 data bytes at most per frame: a 61-byte APDU, one ISO/IEC 14443-4 block of 64 bytes with PCB and CRC_A.
    @Test func framesOfAtMost55Bytes() {
        #expect(DESFireAPDU.frames([]) == [[]])
        let data = (0..<127).map { UInt8($0) }
        let frames = DESFireAPDU.frames(data)
        #expect(frames.map(\.count) == [55, 55, 17])
        #expect(frames.flatMap { $0 } == data)
        #expect(DESFireAPDU.frames(Array(data.prefix(55))).count == 1)
        #expect(DESFireAPDU.wrap(command: 0x3D, data: frames[0]).count + 1 + 2 == 64)
    }

    @Test func statusNames() {
        #expect(DESFireStatus.permissionDenied.description == "PERMISSION_DENIED (9D)")
        #expect(DESFireStatus(rawValue: 0xAE) == .authenticationError)
        #expect(DESFireStatus(rawValue: 0x42).name == "status 42")
        #expect(
            DESFireCommandError.status(.boundaryError).description
                == "DESFire: the card refused the command: BOUNDARY_ERROR (BE)")
    }

    @Test func applicationIDsAndRightsAsSent() {
        #expect(DESFireApplicationID(0x4B_4431).bytes == [0x31, 0x44, 0x4B])
        #expect(DESFireApplicationID(bytes: [0x31, 0x44, 0x4B]) == DESFireApplicationID(0x4B_4431))
        let rights = DESFireAccessRights(read: 1, write: 2, readWrite: 3, change: 0)
        #expect(rights.bytes == [0x30, 0x12])
        #expect(DESFireAccessRights(bytes: rights.bytes) == rights)
        let settings = DESFireKeySettings(
            changeKeyAccess: 0, configurationChangeable: true, freeCreateDelete: false, freeDirectoryList: false,
            masterKeyChangeable: true)
        #expect(settings.rawValue == 0x09)
        #expect(DESFireKeySettings(rawValue: 0x0F).freeDirectoryList)
    }
}

/// GetFileSettings' and GetVersion's answers read.
@Suite struct DESFireAnswerTests {
    @Test func recordFileSettings() throws {
        let settings = try DESFireFileSettings(
            answer: [0x04, 0x03, 0x11, 0x11, 0x70, 0x00, 0x00, 0x1C, 0x00, 0x00, 0x05, 0x00, 0x00])
        #expect(settings.type == .cyclicRecord && settings.communication == .enciphered)
        #expect(settings.accessRights == DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 1))
        #expect(settings.recordSize == 112 && settings.maximumRecords == 28 && settings.currentRecords == 5)
        #expect(settings.size == nil)
        #expect(throws: DESFireCommandError.malformedResponse("GetFileSettings")) {
            try DESFireFileSettings(answer: [0x04, 0x03, 0x11, 0x11, 0x70, 0x00, 0x00])
        }
        #expect(throws: DESFireCommandError.malformedResponse("GetFileSettings")) {
            try DESFireFileSettings(answer: [0x07, 0x00, 0x11, 0x11, 0x70, 0x00, 0x00])
        }
        #expect(throws: DESFireCommandError.malformedResponse("GetVersion")) {
            try DESFireVersion(answer: [UInt8](repeating: 4, count: 27))
        }
    }
}
