import KioskNFC
import KioskSimulation

/// A `TagLink` straight to an `EmulatedTag`, without libnfc or a serial line (for fast unit tests of the card
/// logic; the integration tests run the same logic through libnfc).
final class EmulatedTagLink: TagLink {
    var tag: EmulatedTag
    var present = true
    /// Tear the write after this many further writes.
    var writesBeforeTear: Int?

    init(_ tag: EmulatedTag) {
        self.tag = tag
        self.tag.select()
    }

    var target: NFCTarget { NFCTarget(atqa: [0x00, 0x44], sak: 0x00, uid: tag.uid) }

    func transceive(_ command: [UInt8], timeout: Int32) throws(NFCError) -> [UInt8] {
        guard present else { throw NFCError(code: .radioTransmission) }
        var tear = false
        if tag.isWrite(command), let remaining = writesBeforeTear {
            if remaining == 0 {
                tear = true
                writesBeforeTear = nil
            } else {
                writesBeforeTear = remaining - 1
            }
        }
        let answer = tag.handle(command, tearWrite: tear)
        if tear { present = false }
        switch answer {
        case .data(let bytes): return bytes
        case .ack: return []
        case .nak: throw NFCError(code: .refused)
        case .silent: throw NFCError(code: .radioTransmission)
        }
    }

    func reselect() throws(NFCError) -> NFCTarget? {
        guard present else { return nil }
        tag.powerOff()
        tag.select()
        return target
    }

    /// Puts the card back on the reader (fresh power-up).
    func replace() {
        present = true
        tag.powerOff()
        tag.select()
    }
}
