internal import Foundation

/// Sound as a RIFF/WAVE file: 16-bit little-endian PCM, one channel: what the simulated kiosk's speaker records,
/// and any player (`aplay`, a browser) plays. The reader takes back exactly that form (other WAVE files are
/// refused, by reason), for the tests and the tools that check what was recorded.
///
/// The layout is the canonical one of the RIFF WAVE format: a `RIFF` header naming `WAVE`, a 16-byte `fmt ` chunk
/// (format 1, PCM) and a `data` chunk; the reader skips chunks it does not need (`LIST`, `fact`).
public enum WAVFile {
    /// The fields of a file's `fmt ` chunk, and the length of its `data` chunk.
    public struct Header: Sendable, Equatable {
        /// 1: PCM.
        public var format: Int
        public var channels: Int
        public var sampleRate: Int
        /// Bytes per second: `sampleRate * blockAlign`.
        public var byteRate: Int
        /// Bytes per frame: `channels * bitsPerSample / 8`.
        public var blockAlign: Int
        public var bitsPerSample: Int
        /// The `data` chunk's length in bytes.
        public var dataBytes: Int

        public init(
            format: Int, channels: Int, sampleRate: Int, byteRate: Int, blockAlign: Int, bitsPerSample: Int,
            dataBytes: Int
        ) {
            self.format = format
            self.channels = channels
            self.sampleRate = sampleRate
            self.byteRate = byteRate
            self.blockAlign = blockAlign
            self.bitsPerSample = bitsPerSample
            self.dataBytes = dataBytes
        }
    }

    /// Why a file could not be written or read back.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not a RIFF file of form `WAVE`.
        case notWAVE
        /// A WAVE file, but not 16-bit PCM with one channel (the header is in the error).
        case unsupportedFormat(Header)
        /// The file ends inside a chunk, or has no `fmt ` or `data` chunk.
        case truncated
        /// The sound is too long for a RIFF file (4 GiB).
        case tooLong
        /// The file could not be written or read.
        case io(path: String, reason: String)

        public var description: String {
            switch self {
            case .notWAVE: "not a RIFF WAVE file"
            case .unsupportedFormat(let header):
                "a WAVE file of format \(header.format), \(header.channels) channels, \(header.bitsPerSample) bits:"
                    + " only 16-bit PCM with one channel is read"
            case .truncated: "the WAVE file is cut short or lacks its fmt or data chunk"
            case .tooLong: "the sound is too long for a WAVE file"
            case .io(let path, let reason): "\(path): \(reason)"
            }
        }
    }

    /// The bytes of a WAVE file holding `audio`.
    public static func encode(_ audio: PCMAudio) throws(Failure) -> [UInt8] {
        let dataBytes = audio.samples.count * 2
        guard dataBytes <= Int(UInt32.max) - 36 else { throw .tooLong }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + dataBytes)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
        bytes += Array("RIFF".utf8)
        append32(36 + dataBytes)
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        append32(16)
        append16(1)  // PCM
        append16(1)  // one channel
        append32(audio.sampleRate)
        append32(audio.sampleRate * 2)
        append16(2)
        append16(16)
        bytes += Array("data".utf8)
        append32(dataBytes)
        for sample in audio.samples {
            withUnsafeBytes(of: sample.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// Writes `audio` to a new file at `path` (replacing one that is there, atomically).
    public static func write(_ audio: PCMAudio, to path: String) throws(Failure) {
        let bytes = try encode(audio)
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .io(path: path, reason: "cannot be written (\(error.localizedDescription))")
        }
    }

    /// The header and the sound of a WAVE file's bytes.
    public static func decode(_ bytes: [UInt8]) throws(Failure) -> (header: Header, audio: PCMAudio) {
        func tag(_ offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        func u32(_ offset: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }

        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw .notWAVE }
        var header: Header?
        var data: Range<Int>?
        var offset = 12
        while offset + 8 <= bytes.count {
            let name = tag(offset)
            let length = u32(offset + 4)
            let body = offset + 8
            guard length <= bytes.count - body else { throw .truncated }
            switch name {
            case "fmt ":
                guard length >= 16 else { throw .truncated }
                header = Header(
                    format: u16(body), channels: u16(body + 2), sampleRate: u32(body + 4), byteRate: u32(body + 8),
                    blockAlign: u16(body + 12), bitsPerSample: u16(body + 14), dataBytes: 0)
            case "data":
                data = body..<body + length
            default:
                break
            }
            offset = body + length + (length & 1)  // chunks are padded to an even length
        }
        guard var header, let data else { throw .truncated }
        header.dataBytes = data.count
        guard header.format == 1, header.channels == 1, header.bitsPerSample == 16, header.sampleRate > 0 else {
            throw .unsupportedFormat(header)
        }
        var samples: [Int16] = []
        samples.reserveCapacity(data.count / 2)
        var index = data.lowerBound
        while index + 1 < data.upperBound {
            samples.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
            index += 2
        }
        return (header, PCMAudio(samples: samples, sampleRate: header.sampleRate))
    }

    /// `decode(_:)` of the file at `path`.
    public static func read(from path: String) throws(Failure) -> (header: Header, audio: PCMAudio) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .io(path: path, reason: "cannot be read")
        }
        return try decode([UInt8](data))
    }
}
