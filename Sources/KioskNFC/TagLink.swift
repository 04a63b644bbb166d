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
