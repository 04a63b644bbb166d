/// MIFARE DESFire EV1's native commands wrapped in ISO/IEC 7816-4 APDUs, and native frames.
///
/// A native frame (command byte ‖ data) travels as CLA 90, INS = the command byte, P1 = P2 = 00, then Lc and the
/// data when there is data, then Le = 00. The card answers with its data ‖ SW1 = 91 ‖ SW2 = the DESFire status.
/// A command whose data does not fit one frame is sent in frames continued with AF (INS = AF, the next data); a
/// response that does not fit one frame ends with status AF, and the kiosk asks for the next with AF and no data.
///
/// **Frame size**: at most `maximumFrameData` (55) data bytes per command frame, as libfreefare sends them. A
/// 55-byte frame makes a 61-byte APDU (4 header bytes, Lc, 55 data bytes, Le), which with ISO/IEC 14443-4's PCB
/// byte and the two CRC_A bytes fills exactly one 64-byte block: the frame size a DESFire EV1 announces in its ATS
/// (FSCI 5) and the 64-byte buffer the PN532 announces as its own (FSDI), so no command is ever split into
/// ISO/IEC 14443-4 chained blocks. The card's response frames are at most 59 data bytes for the same reason.
public enum DESFireAPDU {
    /// ISO/IEC 7816-4 class byte of wrapped native commands.
    public static let cla: UInt8 = 0x90
    /// SW1 of a wrapped native response.
    public static let responseSW1: UInt8 = 0x91
    /// The most data bytes the kiosk puts in one command frame.
    public static let maximumFrameData = 55
    /// The additional-frame command and status.
    public static let additionalFrame: UInt8 = 0xAF

    /// The APDU for one native frame: 90 ‖ `command` ‖ 00 00 ‖ [Lc ‖ `data`] ‖ 00.
    public static func wrap(command: UInt8, data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 0xFF, "one frame's data fits Lc")
        var apdu: [UInt8] = [cla, command, 0x00, 0x00]
        if !data.isEmpty { apdu += [UInt8(data.count)] + data }
        apdu.append(0x00)
        return apdu
    }

    /// The native answer of a response APDU: its data and the DESFire status. Throws when the status word is not
    /// 91 xx (an ISO/IEC 7816-4 error, or not a DESFire card) or the response is shorter than a status word.
    public static func unwrap(_ response: [UInt8]) throws(DESFireCommandError) -> (data: [UInt8], status: UInt8) {
        guard response.count >= 2 else { throw .malformedResponse("a frame shorter than its status word") }
        let sw1 = response[response.count - 2]
        let sw2 = response[response.count - 1]
        guard sw1 == responseSW1 else { throw .unexpectedStatusWord(sw1, sw2) }
        return (Array(response.dropLast(2)), sw2)
    }

    /// The frames a command's data is sent in, in order: the data cut into pieces of at most `maximumFrameData`
    /// bytes; one empty frame for a command without data. The first goes with the command byte, every further
    /// one with AF.
    public static func frames(_ data: [UInt8], maximum: Int = maximumFrameData) -> [[UInt8]] {
        precondition(maximum > 0)
        guard !data.isEmpty else { return [[]] }
        return stride(from: 0, to: data.count, by: maximum).map { Array(data[$0..<min($0 + maximum, data.count)]) }
    }
}
