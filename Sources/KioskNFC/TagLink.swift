/// The connection to one selected card, as the NTAG21x commands need it. `NFCDevice` is the real one; tests use
/// an in-memory tag for speed.
public protocol TagLink: AnyObject {
    /// Sends a command frame (without CRC) and returns the answer; an ACK is an empty answer, a NAK throws
    /// `.refused`, silence throws `.radioTransmission`.
    func transceive(_ command: [UInt8], timeout: Int32) throws(NFCError) -> [UInt8]
    /// Resets the field and selects the card again (ends any authentication); nil if no card answers.
    func reselect() throws(NFCError) -> NFCTarget?
}

extension NFCDevice: TagLink {}

/// The NXP tags a kiosk card can be, identified by GET_VERSION.
public enum NTAGModel: String, Equatable, Sendable, CaseIterable {
    case ntag213, ntag215, ntag216, ultralightEV1MF0UL11, ultralightEV1MF0UL21

    /// The model for a GET_VERSION answer, or nil for anything else.
    public init?(version: [UInt8]) {
        guard version.count == 8, version[0] == 0x00, version[1] == 0x04, version[7] == 0x03 else { return nil }
        switch (version[2], version[6]) {
        case (0x04, 0x0F): self = .ntag213
        case (0x04, 0x11): self = .ntag215
        case (0x04, 0x13): self = .ntag216
        case (0x03, 0x0B): self = .ultralightEV1MF0UL11
        case (0x03, 0x0E): self = .ultralightEV1MF0UL21
        default: return nil
        }
    }

    /// Total pages.
    public var pageCount: Int {
        switch self {
        case .ntag213: 45
        case .ntag215: 135
        case .ntag216: 231
        case .ultralightEV1MF0UL11: 20
        case .ultralightEV1MF0UL21: 41
        }
    }

    /// CFG0 (holding AUTH0); CFG1 (ACCESS), PWD and PACK follow.
    public var configPage: Int { pageCount - 4 }
}

/// NTAG21x / Ultralight EV1 commands over a `TagLink` (NTAG213/215/216 data sheet §10).
public struct NTAGCommands<Link: TagLink> {
    public let link: Link
    public var timeout: Int32 = 250

    public init(link: Link) { self.link = link }

    /// GET_VERSION (60h).
    public func getVersion() throws(NFCError) -> [UInt8] {
        let answer = try link.transceive([0x60], timeout: timeout)
        guard answer.count == 8 else { throw NFCError(code: .unexpectedAnswer) }
        return answer
    }

    /// READ (30h): 16 bytes from `page` on.
    public func read(page: Int) throws(NFCError) -> [UInt8] {
        let answer = try link.transceive([0x30, UInt8(page)], timeout: timeout)
        guard answer.count == 16 else { throw NFCError(code: .unexpectedAnswer) }
        return answer
    }

    /// FAST_READ (3Ah): pages `first` through `last`.
    public func fastRead(from first: Int, through last: Int) throws(NFCError) -> [UInt8] {
        let answer = try link.transceive([0x3A, UInt8(first), UInt8(last)], timeout: timeout)
        guard answer.count == (last - first + 1) * 4 else { throw NFCError(code: .unexpectedAnswer) }
        return answer
    }

    /// WRITE (A2h) of 4 bytes to `page`.
    public func write(page: Int, _ bytes: [UInt8]) throws(NFCError) {
        precondition(bytes.count == 4)
        let answer = try link.transceive([0xA2, UInt8(page)] + bytes, timeout: timeout)
        guard answer.isEmpty else { throw NFCError(code: .unexpectedAnswer) }
    }

    /// PWD_AUTH (1Bh); returns the 2-byte PACK. A wrong password throws `.refused` (and the card must be selected
    /// again).
    public func authenticate(password: [UInt8]) throws(NFCError) -> [UInt8] {
        precondition(password.count == 4)
        let answer = try link.transceive([0x1B] + password, timeout: timeout)
        guard answer.count == 2 else { throw NFCError(code: .unexpectedAnswer) }
        return answer
    }
}
