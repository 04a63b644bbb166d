internal import CKioskZlib

/// One zlib stream (raw deflate, as zip entries hold it), inflating or deflating. Owns its `z_stream`, released in
/// `deinit` (the corresponding C functions are `inflateEnd` and `deflateEnd`).
final class ZStream {
    enum Mode { case inflate, deflate }

    /// zlib keeps the stream's address (`state->strm`) and checks it on every call, so the stream lives at one
    /// fixed, allocated address rather than in a Swift property.
    private let stream: UnsafeMutablePointer<z_stream>
    private let mode: Mode

    /// Raw deflate: negative window bits tell zlib there is no zlib header or trailer.
    private static let rawWindowBits: Int32 = -15

    init(_ mode: Mode) throws(ZipError) {
        self.mode = mode
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status =
            switch mode {
            case .inflate: kiosk_inflateInit2(stream, Self.rawWindowBits)
            case .deflate: kiosk_deflateInit2(stream, Z_BEST_COMPRESSION, Self.rawWindowBits)
            }
        guard status == Z_OK else {
            stream.deallocate()
            throw .zlibFailure
        }
        self.stream = stream
    }

    deinit {
        switch mode {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deallocate()
    }

    /// Inflates all of `input`; refuses output beyond `limit` bytes as soon as it is produced (a zip bomb never
    /// gets further than `limit` plus one chunk in memory).
    func inflate(_ input: ArraySlice<UInt8>, limit: Int) throws(ZipError) -> [UInt8] {
        precondition(mode == .inflate)
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = Array(input)
        var finished = false
        let result: ZipError? = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inputBuffer.count)
            while !finished {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.pointee.next_out = chunkBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(chunkBuffer.count)
                    let status = CKioskZlib.inflate(stream, Z_NO_FLUSH)
                    return (status, chunkBuffer.count - Int(stream.pointee.avail_out))
                }
                switch status {
                case Z_STREAM_END: finished = true
                case Z_OK, Z_BUF_ERROR: break  // Z_BUF_ERROR: no progress possible; caught below
                default: return .corrupt
                }
                guard output.count + produced <= limit else { return .oversized }
                output.append(contentsOf: chunk[0..<produced])
                // All input used and no more output: the stream ends before its end marker.
                if !finished && produced == 0 { return .truncated }
            }
            return nil
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if let result { throw result }
        return output
    }

    /// Inflates the input `next` hands over chunk by chunk (nil: no more) and hands the output to `deliver` as it is
    /// produced, 64 KiB at a time (`deliver` returns false to stop: a size limit reached, or enough read). Only one
    /// chunk of input and one of output are held.
    func inflate(
        _ next: () throws(ZipError) -> UnsafeRawBufferPointer?, _ deliver: (UnsafeRawBufferPointer) -> Bool
    ) throws(ZipError) {
        precondition(mode == .inflate)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer {
            output.deallocate()
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        while let input = try next() {
            guard let base = input.baseAddress, input.count > 0 else { continue }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(input.count)
            // Inflate until this input is used up and zlib has no more output for it.
            repeat {
                stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_out = UInt32(output.count)
                let status = CKioskZlib.inflate(stream, Z_NO_FLUSH)
                let produced = output.count - Int(stream.pointee.avail_out)
                switch status {
                case Z_OK, Z_BUF_ERROR, Z_STREAM_END: break
                default: throw .corrupt
                }
                if produced > 0, !deliver(UnsafeRawBufferPointer(rebasing: output[0..<produced])) { return }
                if status == Z_STREAM_END { return }
                if status == Z_BUF_ERROR && produced == 0 { break }
            } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
        }
        // All input used and no end marker: the stream is cut short.
        throw .truncated
    }

    /// Deflates all of `input` (best compression).
    func deflate(_ input: [UInt8]) throws(ZipError) -> [UInt8] {
        precondition(mode == .deflate)
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        let failed: Bool = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.pointee.next_in = inputBuffer.baseAddress
            stream.pointee.avail_in = UInt32(inputBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.pointee.next_out = chunkBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(chunkBuffer.count)
                    let status = CKioskZlib.deflate(stream, Z_FINISH)
                    return (status, chunkBuffer.count - Int(stream.pointee.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { return false }
                if status != Z_OK && status != Z_BUF_ERROR { return true }
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if failed { throw .zlibFailure }
        return output
    }

    /// zlib's CRC-32 of `bytes` continuing `crc` (the corresponding C function is `crc32`).
    static func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return UInt32(CKioskZlib.crc32(UInt(crc), base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count)))
    }

    /// zlib's CRC-32 of `bytes` (the corresponding C function is `crc32`).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(CKioskZlib.crc32(0, buffer.baseAddress, UInt32(buffer.count)))
        }
    }
}
