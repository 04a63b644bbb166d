import KioskCore
import KioskOpenSSL
import KioskTesting
import Testing

@Suite struct CardKeysTests {
    let crypto = OpenSSLCrypto()

    /// The derivation is HKDF-SHA256 with the documented salt and info strings: recompute it independently.
    @Test func derivationMatchesDocumentedHKDF() throws {
        let secret = try CardSecret(kind: .visitor, entropy: Array(repeating: 0xab, count: 16))
        let keys = try CardKeys(secret: secret, crypto: crypto)
        let ikm = [1, 1] + [UInt8](repeating: 0xab, count: 16)
        let salt = Array("CheckInKiosk card v1".utf8)
        #expect(keys.handle == (try crypto.hkdfSHA256(inputKeyMaterial: ikm, salt: salt, info: Array("lookup handle".utf8), length: 32)))
        #expect(keys.handle.count == 32)
    }

    @Test func differentCardsAndKindsGiveDifferentHandles() throws {
        let entropy = try crypto.randomBytes(count: 16)
        let visitor = try CardKeys(secret: CardSecret(kind: .visitor, entropy: entropy), crypto: crypto)
        let staff = try CardKeys(secret: CardSecret(kind: .staff, entropy: entropy), crypto: crypto)
        let other = try CardKeys(secret: CardSecret.generate(kind: .visitor, crypto: crypto), crypto: crypto)
        #expect(visitor.handle != staff.handle)
        #expect(visitor.handle != other.handle)
        let again = try CardKeys(secret: CardSecret(kind: .visitor, entropy: entropy), crypto: crypto)
        #expect(again.handle == visitor.handle)
    }

    @Test func wipeZeroesHandleAndKeyThroughTheProvider() throws {
        let recorder = WipeRecordingCrypto(wrapping: crypto)
        let keys = try CardKeys(secret: CardSecret.generate(kind: .visitor, crypto: crypto), crypto: recorder)
        let handle = keys.handle
        #expect(!keys.isWiped)
        keys.wipe()
        #expect(keys.isWiped)
        #expect(recorder.wipedBuffers.contains(handle))
    }

    @Test func keysAreWipedWhenReleased() throws {
        let recorder = WipeRecordingCrypto(wrapping: crypto)
        var handle: [UInt8] = []
        do {
            let keys = try CardKeys(secret: CardSecret.generate(kind: .visitor, crypto: crypto), crypto: recorder)
            handle = keys.handle
        }
        #expect(recorder.wipedBuffers.contains(handle))
        // Input key material, handle and record key: three 32/18-byte buffers wiped.
        #expect(recorder.wipedBuffers.filter { $0.count == 32 }.count >= 2)
    }
}
