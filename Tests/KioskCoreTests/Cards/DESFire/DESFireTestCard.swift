import KioskCore
import KioskOpenSSL
import Synchronization
import Testing

/// A `DESFireTransport` that plays a script: each APDU the client sends must be the next one expected, and gets
/// the answer written beside it; nil as the answer is the card leaving the field at that APDU.
final class ScriptedDESFireCard: DESFireTransport {
    private var script: [(apdu: [UInt8], answer: [UInt8]?)]
    private(set) var sent: [[UInt8]] = []

    init(_ script: [(apdu: [UInt8], answer: [UInt8]?)]) { self.script = script }

    /// Whether every step was played.
    var finished: Bool { script.isEmpty }

    func transmit(_ apdu: [UInt8]) throws(DESFireTransportError) -> [UInt8] {
        sent.append(apdu)
        guard !script.isEmpty else {
            Issue.record("unexpected APDU \(Hex.encode(apdu))")
            throw DESFireTransportError(.cardGone)
        }
        let step = script.removeFirst()
        #expect(Hex.encode(apdu) == Hex.encode(step.apdu), "APDU \(sent.count)")
        guard let answer = step.answer else { throw DESFireTransportError(.cardGone) }
        return answer
    }
}

/// OpenSSL, with RndA fixed (the published traces' random numbers) and every wiped buffer recorded.
final class FixedRandomCrypto: CryptoProvider, AES128Cipher, TripleDESCipher {
    private let base = OpenSSLCrypto()
    private let random: [UInt8]
    private let wiped = Mutex<[[UInt8]]>([])

    init(random: [UInt8]) { self.random = random }

    /// Contents of buffers just before they were wiped.
    var wipedBuffers: [[UInt8]] { wiped.withLock { $0 } }

    func randomBytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count == random.count else { throw .randomUnavailable }
        return random
    }
    func wipe(_ bytes: inout [UInt8]) {
        let copy = bytes
        wiped.withLock { $0.append(copy) }
        base.wipe(&bytes)
    }
    func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] { try base.sha256(data) }
    func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.hmacSHA256(key: key, data: data)
    }
    func hkdfSHA256(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError)
        -> [UInt8]
    {
        try base.hkdfSHA256(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, length: length)
    }
    func aesCTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aesCTR(key: key, iv: iv, data: data)
    }
    func aes256CBCEncrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes256CBCEncrypt(key: key, iv: iv, plaintext: plaintext)
    }
    func aes256CBCDecrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes256CBCDecrypt(key: key, iv: iv, ciphertext: ciphertext)
    }
    func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try base.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, additionalData: additionalData)
    }
    func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try base.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, additionalData: additionalData)
    }
    func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool { base.constantTimeEquals(a, b) }
    func aes128ECBEncrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes128ECBEncrypt(key: key, blocks: blocks)
    }
    func aes128ECBDecrypt(key: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes128ECBDecrypt(key: key, blocks: blocks)
    }
    func aes128CBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes128CBCEncrypt(key: key, iv: iv, blocks: blocks)
    }
    func aes128CBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes128CBCDecrypt(key: key, iv: iv, blocks: blocks)
    }
    func tdesCBCEncrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.tdesCBCEncrypt(key: key, iv: iv, blocks: blocks)
    }
    func tdesCBCDecrypt(key: [UInt8], iv: [UInt8], blocks: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.tdesCBCDecrypt(key: key, iv: iv, blocks: blocks)
    }
    func aes128CMAC(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try base.aes128CMAC(key: key, message: message)
    }
}

/// Hex with spaces, for the traces.
func desfireBytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " })! }

/// The ISO/IEC 7816-4 wrapping of a native frame, written out by hand for the tests: 90 INS 00 00 [Lc data] 00.
func wrapped(_ native: String) -> [UInt8] {
    let bytes = desfireBytes(native)
    let data = Array(bytes.dropFirst())
    return [0x90, bytes[0], 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data) + [0x00]
}

/// A card's native answer as a response APDU: data ‖ 91 ‖ status.
func answered(_ data: String, status: UInt8 = 0x00) -> [UInt8] { desfireBytes(data) + [0x91, status] }
