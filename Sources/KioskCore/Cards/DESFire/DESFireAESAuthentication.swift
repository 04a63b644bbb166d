/// The kiosk's side of MIFARE DESFire EV1's three-pass AES authentication (AuthenticateAES, native command AA).
///
/// 1. The kiosk sends AA ‖ key number; the card answers AF ‖ E(K, RndB), 16 bytes.
/// 2. `answer(encryptedRndB:rndA:)` deciphers RndB (CBC from a zero IV), and enciphers RndA ‖ RndB′ (RndB rotated left
///    by one byte) in CBC from the IV EV1 chains: the last block received, E(K, RndB). The kiosk sends AF ‖ those 32
///    bytes; the card answers 00 ‖ E(K, RndA′).
/// 3. `finish(encryptedRndAPrime:)` deciphers RndA′ from the last block sent, checks it is RndA rotated left by one
///    byte, and returns the secure channel: the session key RndA[0..3] ‖ RndB[0..3] ‖ RndA[12..15] ‖ RndB[12..15]
///    with a zero IV.
///
/// RndA must come from a cryptographic random generator (`CryptoProvider.randomBytes`); it is a parameter so that
/// the steps are pure and testable. A value is single-use: each step works once, in order.
public struct DESFireAESAuthentication: Sendable {
    /// AuthenticateAES.
    public static let command: UInt8 = 0xAA
    /// The status and command byte of a further frame.
    public static let additionalFrame: UInt8 = 0xAF

    private enum Step: Sendable {
        case awaitingRndB
        case awaitingRndAPrime(rndA: [UInt8], rndB: [UInt8], lastSent: [UInt8])
        case done
    }

    private var key: [UInt8]
    private let cipher: any AES128Cipher
    private var step = Step.awaitingRndB

    /// Starts an authentication with the card's AES-128 `key` (its diversified key, `AN10922`).
    public init(key: [UInt8], cipher: any AES128Cipher) throws(DESFireError) {
        guard key.count == AES128Size.key else { throw .invalidLength("AES key") }
        self.key = key
        self.cipher = cipher
    }

    /// The 32 bytes to send after AF: E(K, RndA ‖ RndB′), from the card's 16-byte E(K, RndB) and a fresh 16-byte RndA.
    public mutating func answer(encryptedRndB: [UInt8], rndA: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard case .awaitingRndB = step else { throw .authenticationFailed }
        guard encryptedRndB.count == AES128Size.block else { throw .invalidLength("E(K, RndB)") }
        guard rndA.count == AES128Size.block else { throw .invalidLength("RndA") }
        step = .done
        var rndB: [UInt8]
        do {
            rndB = try desfireCrypto { () throws(CryptoError) in
                try cipher.aes128CBCDecrypt(
                    key: key, iv: [UInt8](repeating: 0, count: AES128Size.block), blocks: encryptedRndB)
            }
        } catch {
            cipher.wipe(&key)
            throw error
        }
        var token = rndA + DESFireBytes.rotatedLeft(rndB)
        defer { cipher.wipe(&token) }
        let sent: [UInt8]
        do {
            sent = try desfireCrypto { () throws(CryptoError) in
                try cipher.aes128CBCEncrypt(key: key, iv: encryptedRndB, blocks: token)
            }
        } catch {
            cipher.wipe(&rndB)
            cipher.wipe(&key)
            throw error
        }
        step = .awaitingRndAPrime(rndA: rndA, rndB: rndB, lastSent: Array(sent.suffix(AES128Size.block)))
        return sent
    }

    /// Checks the card's 16-byte E(K, RndA′) and returns the secure channel under the session key, its IV zero.
    /// Throws `.authenticationFailed` when RndA′ is not RndA rotated: the card does not hold the key.
    public mutating func finish(encryptedRndAPrime: [UInt8]) throws(DESFireError) -> DESFireSecureChannel {
        guard case .awaitingRndAPrime(var rndA, var rndB, let lastSent) = step else { throw .authenticationFailed }
        step = .done
        defer {
            cipher.wipe(&rndA)
            cipher.wipe(&rndB)
            cipher.wipe(&key)
        }
        guard encryptedRndAPrime.count == AES128Size.block else { throw .invalidLength("E(K, RndA')") }
        var rndAPrime = try desfireCrypto { () throws(CryptoError) in
            try cipher.aes128CBCDecrypt(key: key, iv: lastSent, blocks: encryptedRndAPrime)
        }
        defer { cipher.wipe(&rndAPrime) }
        guard DESFireBytes.equalInConstantTime(rndAPrime, DESFireBytes.rotatedLeft(rndA)) else {
            throw .authenticationFailed
        }
        var sessionKey = Self.sessionKey(rndA: rndA, rndB: rndB)
        defer { cipher.wipe(&sessionKey) }
        return try DESFireSecureChannel(sessionKey: sessionKey, cipher: cipher)
    }

    /// EV1's AES session key: RndA[0..3] ‖ RndB[0..3] ‖ RndA[12..15] ‖ RndB[12..15].
    public static func sessionKey(rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        Array(rndA[0..<4]) + Array(rndB[0..<4]) + Array(rndA[12..<16]) + Array(rndB[12..<16])
    }
}
