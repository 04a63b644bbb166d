/// How long one exchange with an emulated DESFire card takes, from the host's frame reaching the PN532 to the card's
/// answer coming back; the PN532 emulator holds the answer that long (`PN532Chip`), so that a kiosk talking to it
/// feels the card as on a real reader.
///
/// The model, with its numbers:
/// - **Air frames at 106 kbit/s**, both ways: one bit lasts 128/13.56 MHz ≈ 9.44 µs; a byte is counted as 10 bits
///   (8 data bits, parity and framing); a frame adds its start and end of frame (2 bits). The APDU travels in
///   ISO-DEP I-blocks of at most 64 bytes (the ATS's FSCI 5): each block is PCB (1 byte) ‖ up to 61 bytes ‖ CRC_A
///   (2 bytes), and every block but the last is acknowledged by an R(ACK) block (3 bytes) the other way.
/// - **Turnarounds**: between a frame and the other side's answer, the frame delay time of 1,172/fc ≈ 86 µs.
/// - **The card's processing**: 300 µs for a command, 1 ms when it involves a cipher, AES or 2K3DES alike (the first
///   step of AuthenticateAES or AuthenticateISO, or any command in an authenticated session: CMACs and ciphers).
/// - **EEPROM programming**: 2 ms per 32-byte block written — a standard data file's write at once, a commit for
///   every block it writes (a backup file's blocks written in the transaction, one record's blocks, one for a
///   cleared record file), one block for a new application, file, key, key setting or configuration.
///
/// So a full answer frame (59 bytes, status, 91 00 or CMAC aside) costs about 6 ms of air time, and a commit of a 192-byte header and a 112-byte record
/// about 20 ms of programming.
public enum DESFireTiming {
    /// One bit at 106 kbit/s: 128 carrier cycles of 13.56 MHz, in nanoseconds.
    public static let bitNanoseconds = 9_440
    /// Bits counted per byte on air.
    public static let bitsPerByte = 10
    /// Start and end of frame, in bits.
    public static let frameDelimiterBits = 2
    /// The largest ISO-DEP block (FSC 64) and its overhead (PCB and CRC_A).
    public static let blockSize = 64
    public static let blockOverhead = 3
    /// Frame delay time between a frame and its answer, in nanoseconds (1,172/fc).
    public static let turnaroundNanoseconds = 86_430
    /// Programming one 32-byte EEPROM block.
    public static let eepromBlock: Duration = .milliseconds(2)

    /// What a frame cost the card itself.
    public struct Cost: Equatable, Sendable {
        public var processing: Duration = .zero
        public var eepromBlocks = 0
        public init() {}
    }

    /// The card's processing time for a frame.
    static func processing(authenticated: Bool) -> Duration {
        authenticated ? .milliseconds(1) : .microseconds(300)
    }

    /// Air time of `bytes` of APDU sent one way (its I-blocks, and the R(ACK) blocks the other way between them).
    public static func airTime(apduBytes bytes: Int) -> Duration {
        let perBlock = blockSize - blockOverhead
        let blocks = max(1, (bytes + perBlock - 1) / perBlock)
        var bits = (bytes + blocks * blockOverhead) * bitsPerByte + blocks * frameDelimiterBits
        // Each block but the last is acknowledged: an R(ACK) of PCB ‖ CRC_A, and two turnarounds.
        bits += (blocks - 1) * (blockOverhead * bitsPerByte + frameDelimiterBits)
        let turnarounds = 2 * (blocks - 1)
        return .nanoseconds(bits * bitNanoseconds + turnarounds * turnaroundNanoseconds)
    }

    /// The whole exchange: the command's frames, a turnaround, the card's work, the answer's frames.
    public static func exchange(commandBytes: Int, answerBytes: Int, cost: Cost) -> Duration {
        airTime(apduBytes: commandBytes) + .nanoseconds(2 * turnaroundNanoseconds) + cost.processing
            + eepromBlock * cost.eepromBlocks + airTime(apduBytes: answerBytes)
    }
}
