/// The kiosk's side of MIFARE DESFire EV1's three-pass authentications in EV1's scheme: AuthenticateAES (native
/// command AA) with an AES-128 key, and AuthenticateISO (1A) with a DES or two-key triple DES key — the one a
/// factory-new card's master key needs. Both are the same exchange over their cipher's block (16 or 8 bytes):
///
/// 1. The kiosk sends AA or 1A ‖ key number; the card answers AF ‖ E(K, RndB), one block.
/// 2. `answer(encryptedRndB:rndA:)` deciphers RndB (CBC from a zero IV), and enciphers RndA ‖ RndB′ (RndB rotated left
///    by one byte) in CBC from the IV EV1 chains: the last block received, E(K, RndB). The kiosk sends AF ‖ those two
///    blocks; the card answers 00 ‖ E(K, RndA′).
/// 3. `finish(encryptedRndAPrime:)` deciphers RndA′ from the last block sent, checks it is RndA rotated left by one
///    byte, and returns the secure channel under the session key (`sessionKey`) with a zero IV.
///
/// RndA must come from a cryptographic random generator (`CryptoProvider.randomBytes`); it is a parameter so that
/// the steps are pure and testable. A value is single-use: each step works once, in order.
public struct DESFireAuthentication: Sendable {
    /// AuthenticateAES.
    public static let aesCommand: UInt8 = 0xAA
    /// AuthenticateISO (DES, 2K3DES and 3K3DES keys; the kiosk uses it for DES and 2K3DES keys).
    public static let isoCommand: UInt8 = 0x1A
    /// The status and command byte of a further frame.
    public static let additionalFrame: UInt8 = 0xAF

    private enum Step: Sendable {
        case awaitingRndB
        case awaitingRndAPrime(rndA: [UInt8], rndB: [UInt8], lastSent: [UInt8])
        case done
    }

    private var key: [UInt8]
    private let isTripleDES: Bool
    private let blocks: any DESFireBlockCipher
    private var step = Step.awaitingRndB

    /// The command that opens this authentication: AA for an AES key, 1A for a triple DES one.
    public var command: UInt8 { isTripleDES ? Self.isoCommand : Self.aesCommand }
    /// The length of RndA, RndB and each cryptogram's block: 16 for AES, 8 for triple DES.
    public var blockSize: Int { blocks.blockSize }

    /// Starts an AuthenticateAES with the card's AES-128 `key` (its diversified key, `AN10922`).
    public init(key: [UInt8], cipher: any AES128Cipher) throws(DESFireError) {
        try self.init(key: key, tripleDES: false, blocks: DESFireAESBlocks(cipher))
    }

    /// Starts an authentication with `key`: AuthenticateAES for an AES key, AuthenticateISO for a triple DES one.
    public init(key: DESFireKey, crypto: any AES128Cipher & TripleDESCipher) throws(DESFireError) {
        switch key {
        case .aes(let bytes): try self.init(key: bytes, tripleDES: false, blocks: DESFireAESBlocks(crypto))
        case .tripleDES(let bytes): try self.init(key: bytes, tripleDES: true, blocks: DESFireTripleDESBlocks(crypto))
        }
    }

    private init(key: [UInt8], tripleDES: Bool, blocks: any DESFireBlockCipher) throws(DESFireError) {
        guard key.count == AES128Size.key else { throw .invalidLength(tripleDES ? "2K3DES key" : "AES key") }
        self.key = key
        self.isTripleDES = tripleDES
        self.blocks = blocks
    }

    /// The two blocks to send after AF: E(K, RndA ‖ RndB′), from the card's one-block E(K, RndB) and a fresh RndA of
    /// one block.
    public mutating func answer(encryptedRndB: [UInt8], rndA: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard case .awaitingRndB = step else { throw .authenticationFailed }
        let size = blocks.blockSize
        guard encryptedRndB.count == size else { throw .invalidLength("E(K, RndB)") }
        guard rndA.count == size else { throw .invalidLength("RndA") }
        step = .done
        var rndB: [UInt8]
        do {
            rndB = try desfireCrypto { () throws(CryptoError) in
                try blocks.decryptCBC(key: key, iv: [UInt8](repeating: 0, count: size), blocks: encryptedRndB)
            }
        } catch {
            blocks.wipe(&key)
            throw error
        }
        var token = rndA + DESFireBytes.rotatedLeft(rndB)
        defer { blocks.wipe(&token) }
        let sent: [UInt8]
        do {
            sent = try desfireCrypto { () throws(CryptoError) in
                try blocks.encryptCBC(key: key, iv: encryptedRndB, blocks: token)
            }
        } catch {
            blocks.wipe(&rndB)
            blocks.wipe(&key)
            throw error
        }
        step = .awaitingRndAPrime(rndA: rndA, rndB: rndB, lastSent: Array(sent.suffix(size)))
        return sent
    }

    /// Checks the card's one-block E(K, RndA′) and returns the secure channel under the session key, its IV zero.
    /// Throws `.authenticationFailed` when RndA′ is not RndA rotated: the card does not hold the key.
    public mutating func finish(encryptedRndAPrime: [UInt8]) throws(DESFireError) -> DESFireSecureChannel {
        guard case .awaitingRndAPrime(var rndA, var rndB, let lastSent) = step else { throw .authenticationFailed }
        step = .done
        defer {
            blocks.wipe(&rndA)
            blocks.wipe(&rndB)
            blocks.wipe(&key)
        }
        guard encryptedRndAPrime.count == blocks.blockSize else { throw .invalidLength("E(K, RndA')") }
        var rndAPrime = try desfireCrypto { () throws(CryptoError) in
            try blocks.decryptCBC(key: key, iv: lastSent, blocks: encryptedRndAPrime)
        }
        defer { blocks.wipe(&rndAPrime) }
        guard DESFireBytes.equalInConstantTime(rndAPrime, DESFireBytes.rotatedLeft(rndA)) else {
            throw .authenticationFailed
        }
        var sessionKey =
            isTripleDES
            ? Self.tripleDESSessionKey(rndA: rndA, rndB: rndB, singleDES: Self.isSingleDES(key))
            : Self.sessionKey(rndA: rndA, rndB: rndB)
        defer { blocks.wipe(&sessionKey) }
        return try DESFireSecureChannel(sessionKey: sessionKey, blocks: blocks)
    }

    /// EV1's AES session key: RndA[0..3] ‖ RndB[0..3] ‖ RndA[12..15] ‖ RndB[12..15].
    public static func sessionKey(rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        Array(rndA[0..<4]) + Array(rndB[0..<4]) + Array(rndA[12..<16]) + Array(rndB[12..<16])
    }

    /// EV1's session key after AuthenticateISO, as 2K3DES: for a DES key (both halves equal) the DES key
    /// RndA[0..3] ‖ RndB[0..3], twice; for a 2K3DES key RndA[0..3] ‖ RndB[0..3] ‖ RndA[4..7] ‖ RndB[4..7].
    public static func tripleDESSessionKey(rndA: [UInt8], rndB: [UInt8], singleDES: Bool) -> [UInt8] {
        let first = Array(rndA[0..<4]) + Array(rndB[0..<4])
        return first + (singleDES ? first : Array(rndA[4..<8]) + Array(rndB[4..<8]))
    }

    /// Whether a 16-byte triple DES key is a DES key: its halves equal bit for bit, as the card compares them
    /// (parity bits included: libfreefare sets the second half's parity bits of a 2K3DES key so that it never
    /// reads as DES).
    public static func isSingleDES(_ key: [UInt8]) -> Bool {
        guard key.count == TripleDESSize.key else { return false }
        return DESFireBytes.equalInConstantTime(Array(key[0..<8]), Array(key[8..<16]))
    }
}
