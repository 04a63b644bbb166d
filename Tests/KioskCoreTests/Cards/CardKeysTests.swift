import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

@Suite struct CardKeysTests {
    let crypto = OpenSSLCrypto()
    let salt = [UInt8](repeating: 0x5a, count: 32)

    /// The derivation is HKDF-SHA256 with the documented salt and info strings: recompute it independently.
    @Test func derivationMatchesDocumentedHKDF() throws {
        let secret = try CardSecret(kind: .visitor, entropy: Array(repeating: 0xab, count: 16))
        let keys = try CardKeys(secret: secret, kioskSalt: salt, crypto: crypto)
        let ikm = [1, 1] + [UInt8](repeating: 0xab, count: 16)
        let fullSalt = Array("CheckInKiosk card v1".utf8) + salt
        #expect(
            keys.handle
                == (try crypto.hkdfSHA256(
                    inputKeyMaterial: ikm, salt: fullSalt, info: Array("lookup handle".utf8), length: 32)))
        #expect(keys.handle.count == 32)
    }

    @Test func differentCardsAndKindsGiveDifferentHandles() throws {
        let entropy = try crypto.randomBytes(count: 16)
        let visitor = try CardKeys(
            secret: CardSecret(kind: .visitor, entropy: entropy), kioskSalt: salt, crypto: crypto)
        let staff = try CardKeys(secret: CardSecret(kind: .staff, entropy: entropy), kioskSalt: salt, crypto: crypto)
        let other = try CardKeys(
            secret: CardSecret.generate(kind: .visitor, crypto: crypto), kioskSalt: salt, crypto: crypto)
        #expect(visitor.handle != staff.handle)
        #expect(visitor.handle != other.handle)
        let again = try CardKeys(secret: CardSecret(kind: .visitor, entropy: entropy), kioskSalt: salt, crypto: crypto)
        #expect(again.handle == visitor.handle)
    }

    @Test func theSameCardHasUnrelatedHandlesOnTwoKiosks() throws {
        let secret = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let here = try CardKeys(secret: secret, kioskSalt: salt, crypto: crypto)
        let there = try CardKeys(secret: secret, kioskSalt: try crypto.randomBytes(count: 32), crypto: crypto)
        #expect(here.handle != there.handle)
    }

    @Test func wipeZeroesHandleAndKeyThroughTheProvider() throws {
        let recorder = WipeRecordingCrypto(wrapping: crypto)
        let keys = try CardKeys(
            secret: CardSecret.generate(kind: .visitor, crypto: crypto), kioskSalt: salt, crypto: recorder)
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
            let keys = try CardKeys(
                secret: CardSecret.generate(kind: .visitor, crypto: crypto), kioskSalt: salt, crypto: recorder)
            handle = keys.handle
        }
        #expect(recorder.wipedBuffers.contains(handle))
        // Input key material, handle and record key: three 32/18-byte buffers wiped.
        #expect(recorder.wipedBuffers.filter { $0.count == 32 }.count >= 2)
    }
}
