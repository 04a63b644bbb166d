/// What a host sends a PN532 over its UART (HSU), after the bytes between frames (wake-up `55`s and zero padding)
/// have been skipped.
public enum PN532HostFrame: Equatable, Sendable {
    /// `00 00 FF 00 FF 00`: acknowledges a reply, or aborts the command the chip is working on.
    case ack
    /// `00 00 FF FF 00 00`: asks the chip to send its last reply again.
    case nack
    /// A normal (`00 FF LEN LCS`) or extended (`00 FF FF FF LENM LENL LCS`) information frame; `data` starts with
    /// the frame identifier `D4` followed by the command code.
    case information([UInt8])
    /// A frame whose length or data checksum did not add up.
    case malformed
}

/// Frame encoding of the PN532 UART protocol (PN532 User Manual §6.2).
public enum PN532Frame {
    /// The ACK frame, sent by the chip after each command it accepted and by a host to abort.
    public static let ack: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
    /// The NACK frame.
    public static let nack: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
    /// The application-level error frame (syntax error in the last command).
    public static let syntaxError: [UInt8] = [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]

    /// A complete frame around `data` (which starts with the TFI byte): a normal frame up to 254 bytes, an extended
    /// frame above.
    public static func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x00, 0x00, 0xFF]
        if data.count < 255 {
            let len = UInt8(data.count)
            out += [len, 0 &- len]
        } else {
            let high = UInt8(data.count >> 8)
            let low = UInt8(data.count & 0xFF)
            out += [0xFF, 0xFF, high, low, 0 &- (high &+ low)]
        }
        out += data
        out.append(0 &- data.reduce(0, &+))
        out.append(0x00)
        return out
    }
}

/// Splits a byte stream from the host into frames. Feed it whatever arrived; it keeps partial frames.
public struct PN532FrameParser: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// Appends `bytes` and returns every frame completed by them, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [PN532HostFrame] {
        buffer.append(contentsOf: bytes)
        var frames: [PN532HostFrame] = []
        while let frame = nextFrame() { frames.append(frame) }
        return frames
    }

    /// Whether bytes of an unfinished frame are waiting.
    public var hasPartialFrame: Bool { !buffer.isEmpty }

    private mutating func nextFrame() -> PN532HostFrame? {
        // Skip preamble, wake-up bytes and padding up to the start code 00 FF.
        var start = 0
        while start + 1 < buffer.count, !(buffer[start] == 0x00 && buffer[start + 1] == 0xFF) { start += 1 }
        guard start + 1 < buffer.count else {
            // Keep a trailing 00 that may begin a start code; drop the rest.
            if let last = buffer.last, last == 0x00 { buffer = [0x00] } else { buffer = [] }
            return nil
        }
        let body = start + 2
        guard buffer.count >= body + 2 else {
            dropPrefix(start)
            return nil
        }
        let len = buffer[body]
        let lcs = buffer[body + 1]
        if len == 0x00, lcs == 0xFF {
            consume(body + 2)
            return .ack
        }
        if len == 0xFF, lcs == 0x00 {
            consume(body + 2)
            return .nack
        }
        var dataStart: Int
        var count: Int
        if len == 0xFF, lcs == 0xFF {
            guard buffer.count >= body + 5 else {
                dropPrefix(start)
                return nil
            }
            let high = buffer[body + 2]
            let low = buffer[body + 3]
            let checksum = buffer[body + 4]
            guard high &+ low &+ checksum == 0 else {
                consume(body + 5)
                return .malformed
            }
            count = Int(high) << 8 | Int(low)
            dataStart = body + 5
        } else {
            guard len &+ lcs == 0 else {
                consume(body + 2)
                return .malformed
            }
            count = Int(len)
            dataStart = body + 2
        }
        guard buffer.count >= dataStart + count + 1 else {
            dropPrefix(start)
            return nil
        }
        let data = Array(buffer[dataStart..<dataStart + count])
        let dcs = buffer[dataStart + count]
        // The postamble (00) is optional for the parser: skip it if present.
        var end = dataStart + count + 1
        if end < buffer.count, buffer[end] == 0x00 { end += 1 }
        consume(end)
        guard data.reduce(dcs, &+) == 0 else { return .malformed }
        return .information(data)
    }

    private mutating func consume(_ count: Int) { buffer.removeFirst(min(count, buffer.count)) }
    private mutating func dropPrefix(_ count: Int) { if count > 0 { buffer.removeFirst(count) } }
}
