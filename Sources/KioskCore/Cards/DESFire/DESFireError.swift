/// Why a step of MIFARE DESFire's authentication or secure messaging failed. Carries no key, random or data.
///
/// After any of them the card has dropped its authentication, or must be treated as if it had: the channel is
/// closed and the kiosk authenticates again.
public enum DESFireError: Error, Equatable, Sendable {
    /// A key, random number, cryptogram or MAC had the wrong length.
    case invalidLength(String)
    /// The card's answer to the authentication (RndA rotated) was not ours: a wrong key, or not the card.
    case authenticationFailed
    /// A response's CMAC did not verify.
    case macMismatch
    /// An enciphered response's CRC32 (or its zero padding) did not verify.
    case integrityError
    /// The AES port failed.
    case crypto(CryptoError)
}

extension DESFireError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidLength(let what): "DESFire: wrong length of \(what)"
        case .authenticationFailed: "DESFire: the card's authentication answer does not match"
        case .macMismatch: "DESFire: the response's CMAC does not verify"
        case .integrityError: "DESFire: the enciphered response's CRC32 does not verify"
        case .crypto(let error): "DESFire: \(error)"
        }
    }
}

/// Byte helpers the DESFire files share.
enum DESFireBytes {
    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = a
        for index in 0..<min(a.count, b.count) { out[index] ^= b[index] }
        return out
    }

    /// Compares in time that depends only on the lengths (lengths are public).
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// `value` as `count` bytes, least significant first (DESFire's offsets, lengths, sizes and AIDs).
    static func littleEndian(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The number `bytes` hold, least significant first.
    static func integer(_ bytes: some Collection<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// `bytes` rotated left by one byte (the first byte goes to the end), as DESFire rotates RndA and RndB.
    static func rotatedLeft(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first else { return bytes }
        return Array(bytes.dropFirst()) + [first]
    }
}

/// Runs a port call and turns its `CryptoError` into `DESFireError.crypto`.
@inline(__always)
func desfireCrypto<T>(_ body: () throws(CryptoError) -> T) throws(DESFireError) -> T {
    do {
        return try body()
    } catch {
        throw .crypto(error)
    }
}
