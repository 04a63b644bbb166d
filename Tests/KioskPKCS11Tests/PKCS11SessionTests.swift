import Foundation
import Testing

@testable import KioskPKCS11

/// The kiosk's PKCS #11 owner against a real SoftHSM2 (Debian's softhsm2): each test makes its own token directory
/// and tokens. Serialized: SoftHSM2 is initialized once per process, from the `SOFTHSM2_CONF` of the test that
/// loads it.
@Suite(.serialized) struct PKCS11SessionTests {
    static let pin = "246810"

    /// A fresh SoftHSM2 with one token per label, its module loaded, and `body` given a logged-in session with the
    /// first; everything is closed and removed afterwards.
    func withToken(
        _ labels: [String] = ["kiosk"], _ body: (PKCS11Module, PKCS11Session) throws -> Void
    ) throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        for label in labels { try hsm.initToken(label: label, pin: Self.pin) }
        let module = try hsm.load()
        defer { module.close() }
        let session = try module.openSession(tokenLabel: labels[0], pin: PKCS11PIN(Self.pin))
        defer { session.close() }
        try body(module, session)
    }

    // MARK: AES-CMAC inside the token

    /// RFC 4493, section 4: the key and the four examples (0, 16, 40 and 64 bytes of the message).
    static let rfc4493Key = [UInt8](hex: "2b7e1516 28aed2a6 abf71588 09cf4f3c")
    static let rfc4493Message = [UInt8](
        hex: """
            6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51
            30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710
            """)
    static let rfc4493Examples: [(length: Int, mac: String)] = [
        (0, "bb1d6929 e9593728 7fa37d12 9b756746"),
        (16, "070a16b4 6b4d4144 f79bdd9d d04a287c"),
        (40, "dfa66747 de9ae630 30ca3261 1497c827"),
        (64, "51f0bebf 7e3b9d92 fc497417 79363cfe"),
    ]

    @Test func cmacInsideTheTokenMatchesRFC4493() throws {
        try withToken { _, session in
            let key = try session.importAESKey(label: "rfc4493", value: Self.rfc4493Key, usage: .mac)
            for example in Self.rfc4493Examples {
                let mac = try session.cmac(Array(Self.rfc4493Message.prefix(example.length)), key: key)
                #expect(mac == [UInt8](hex: example.mac), "example of \(example.length) bytes")
            }
            // Found again by its label, it is the same key.
            let found = try session.findSecretKey(label: "rfc4493")
            #expect(try session.cmac([], key: found) == [UInt8](hex: Self.rfc4493Examples[0].mac))
        }
    }

    /// Calls from many threads at once go one at a time through the module's lock, each with its own answer.
    @Test func concurrentCMACsThroughOneSessionAreEachRight() async throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        try hsm.initToken(label: "kiosk", pin: Self.pin)
        let module = try hsm.load()
        defer { module.close() }
        let session = try module.openSession(tokenLabel: "kiosk", pin: PKCS11PIN(Self.pin))
        defer { session.close() }
        let key = try session.importAESKey(label: "rfc4493", value: Self.rfc4493Key, usage: .mac)
        let wrong = try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<64 {
                let example = Self.rfc4493Examples[round % Self.rfc4493Examples.count]
                group.addTask {
                    let mac = try session.cmac(Array(Self.rfc4493Message.prefix(example.length)), key: key)
                    return mac != [UInt8](hex: example.mac)
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wrong == 0)
    }

    @Test func aGeneratedKeyMACsButItsValueCannotBeRead() throws {
        try withToken { _, session in
            let key = try session.generateAESKey(label: "region", usage: .mac)
            let uid = [UInt8](hex: "04 4e 3c 2a 61 70 80")
            let mac = try session.cmac(uid, key: key)
            #expect(mac.count == 16)
            #expect(try session.cmac(uid, key: key) == mac)
            #expect(try session.cmac(uid + [0x01], key: key) != mac)
            // The token refuses CKA_VALUE of a sensitive key, generated or imported.
            #expect(try session.checkValueUnreadable(key) == .attributeSensitive)
            let imported = try session.importAESKey(label: "imported", value: Self.rfc4493Key, usage: .mac)
            #expect(try session.checkValueUnreadable(imported) == .attributeSensitive)
            // A key made for CMAC only may not be used to derive or wrap.
            #expect(throws: PKCS11Error.failed(function: "C_DeriveKey", code: .keyFunctionNotPermitted)) {
                _ = try session.deriveAESKey(
                    from: key, .aesECBEncryptData([UInt8](repeating: 0, count: 16)), label: "x", usage: .mac)
            }
        }
    }

    @Test func theTokenOffersEveryMechanismTheKioskUses() throws {
        try withToken { _, session in
            for mechanism in PKCS11Mechanism.allCases {
                let supported = try session.supports(mechanism)
                #expect(supported, "\(mechanism)")
            }
        }
    }

    // MARK: Deriving inside the token (the daily ratchet)

    /// FIPS 197, appendix C.1: AES-128 of 00112233…ff under 00010203…0f.
    static let fips197Key = [UInt8](hex: "00010203 04050607 08090a0b 0c0d0e0f")
    static let fips197Plaintext = [UInt8](hex: "00112233 44556677 8899aabb ccddeeff")
    static let fips197Ciphertext = [UInt8](hex: "69c4e0d8 6a7b0430 d8cdb780 70b4c55a")

    @Test func aKeyDerivedByEncryptingDataIsThatEncryption() throws {
        try withToken { _, session in
            let base = try session.importAESKey(label: "day-0", value: Self.fips197Key, usage: [.derive])
            let expected = try session.importAESKey(label: "expected", value: Self.fips197Ciphertext, usage: .mac)
            let byECB = try session.deriveAESKey(
                from: base, .aesECBEncryptData(Self.fips197Plaintext), label: "ecb", usage: .mac)
            // One block under a zero IV is the same encryption.
            let byCBC = try session.deriveAESKey(
                from: base, .aesCBCEncryptData(iv: [UInt8](repeating: 0, count: 16), data: Self.fips197Plaintext),
                label: "cbc", usage: .mac)
            let message = Array("day key check".utf8)
            let wanted = try session.cmac(message, key: expected)
            #expect(try session.cmac(message, key: byECB) == wanted)
            #expect(try session.cmac(message, key: byCBC) == wanted)
            #expect(try session.checkValueUnreadable(byECB) == .attributeSensitive)
        }
    }

    @Test func aRatchetStepMakesADifferentKeyAndTheOldOneIsGone() throws {
        try withToken { _, session in
            let step = [UInt8](repeating: 0x5a, count: 16)
            let today = try session.generateAESKey(label: "day-2026-11-27", usage: [.mac, .derive])
            let tomorrow = try session.deriveAESKey(
                from: today, .aesECBEncryptData(step), label: "day-2026-11-28", usage: [.mac, .derive])
            let message = Array("stay".utf8)
            let todayMAC = try session.cmac(message, key: today)
            let tomorrowMAC = try session.cmac(message, key: tomorrow)
            #expect(todayMAC != tomorrowMAC)
            try session.destroy(today)
            #expect(throws: PKCS11Error.keyNotFound(label: "day-2026-11-27")) {
                _ = try session.findSecretKey(label: "day-2026-11-27")
            }
            // Its handle names nothing any more.
            #expect(throws: PKCS11Error.self) { _ = try session.cmac(message, key: today) }
            // The new day's key works, and another step from it does again.
            let found = try session.findSecretKey(label: "day-2026-11-28")
            #expect(try session.cmac(message, key: found) == tomorrowMAC)
            let after = try session.deriveAESKey(
                from: found, .aesECBEncryptData(step), label: "day-2026-11-29", usage: [.mac, .derive])
            #expect(try session.cmac(message, key: after) != tomorrowMAC)
        }
    }

    @Test func derivationInputsOfTheWrongLengthAreRefused() throws {
        try withToken { _, session in
            let base = try session.generateAESKey(label: "base", usage: .derive)
            #expect(throws: PKCS11Error.self) {
                _ = try session.deriveAESKey(from: base, .aesECBEncryptData([1, 2, 3]), label: "x", usage: .mac)
            }
            #expect(throws: PKCS11Error.self) {
                _ = try session.deriveAESKey(
                    from: base, .aesCBCEncryptData(iv: [0], data: [UInt8](repeating: 0, count: 16)), label: "x",
                    usage: .mac)
            }
        }
    }

    // MARK: Copying a key to another token, wrapped

    @Test(arguments: [PKCS11KeyWrapping.aesKeyWrap, .aesKeyWrapPad])
    func aWrappedKeyUnwrapsIntoAnotherTokenWithTheSameCMACs(_ wrapping: PKCS11KeyWrapping) throws {
        try withToken(["kiosk-a", "kiosk-b"]) { module, first in
            let second = try module.openSession(tokenLabel: "kiosk-b", pin: PKCS11PIN(Self.pin))
            defer { second.close() }
            // The same transport key in both tokens.
            let transport = [UInt8](hex: "000102030405060708090a0b0c0d0e0f")
            let wrapA = try first.importAESKey(label: "transport", value: transport, usage: .wrap)
            let wrapB = try second.importAESKey(label: "transport", value: transport, usage: .wrap)
            let region = try first.generateAESKey(label: "region", usage: .mac, export: .underAnyWrappingKey)
            let wrapped = try first.wrap(region, with: wrapA, wrapping)
            #expect(wrapped.count == 24)
            let copy = try second.unwrapAESKey(wrapped, with: wrapB, wrapping, label: "region", usage: .mac)
            for message in [[], Array("04:4e:3c:2a:61:70:80".utf8), [UInt8](repeating: 7, count: 100)] {
                #expect(try first.cmac(message, key: region) == second.cmac(message, key: copy))
            }
            // The copy is sensitive and never leaves its token again, not even wrapped.
            #expect(try second.checkValueUnreadable(copy) == .attributeSensitive)
            #expect(try second.findSecretKey(label: "region") == copy)
            #expect(throws: PKCS11Error.failed(function: "C_WrapKey", code: .keyUnextractable)) {
                _ = try second.wrap(copy, with: wrapB, wrapping)
            }
            // The original is extractable (wrapped only): a kiosk's lookup refuses it unless told.
            #expect(
                throws: PKCS11Error.keyNotUsable(label: "region", reason: "it is extractable (CKA_EXTRACTABLE true)")
            ) {
                _ = try first.findSecretKey(label: "region")
            }
            #expect(try first.findSecretKey(label: "region", allowing: .underAnyWrappingKey) == region)
        }
    }

    /// Split control: the transport key is the exclusive or of two custodians' components, installed as trusted by
    /// each token's security officer; the region's key, made to leave only under trusted keys, cannot be wrapped
    /// under a key the user made.
    @Test func theRegionKeyLeavesOnlyUnderATrustedKeyTheSecurityOfficerInstalled() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        try hsm.initToken(label: "kiosk-a", pin: Self.pin)
        try hsm.initToken(label: "kiosk-b", pin: Self.pin)
        let module = try hsm.load()
        defer { module.close() }
        let components = [
            [UInt8](hex: "0f1e2d3c 4b5a6978 8796a5b4 c3d2e1f0"), [UInt8](hex: "11223344 55667788 99aabbcc ddeeff00"),
        ]
        for token in ["kiosk-a", "kiosk-b"] {
            let officer = try module.openSession(
                tokenLabel: token, pin: PKCS11PIN(SoftHSM.securityOfficerPIN), as: .securityOfficer)
            _ = try officer.importWrappingKey(label: "transport", components: components, trusted: true)
            officer.close()
        }
        let first = try module.openSession(tokenLabel: "kiosk-a", pin: PKCS11PIN(Self.pin))
        defer { first.close() }
        let second = try module.openSession(tokenLabel: "kiosk-b", pin: PKCS11PIN(Self.pin))
        defer { second.close() }
        // The user cannot make a trusted key of their own.
        #expect(throws: PKCS11Error.failed(function: "C_CreateObject", code: .attributeReadOnly)) {
            _ = try first.importWrappingKey(label: "mine", components: components, trusted: true)
        }
        let untrusted = try first.importWrappingKey(label: "untrusted", components: components, trusted: false)
        let region = try first.generateAESKey(label: "region", usage: .mac, export: .underTrustedKeys)
        #expect(throws: PKCS11Error.failed(function: "C_WrapKey", code: .keyNotWrappable)) {
            _ = try first.wrap(region, with: untrusted, .aesKeyWrapPad)
        }
        let wrapped = try first.wrap(region, with: first.findSecretKey(label: "transport"), .aesKeyWrapPad)
        let copy = try second.unwrapAESKey(
            wrapped, with: second.findSecretKey(label: "transport"), .aesKeyWrapPad, label: "region", usage: .mac)
        let uid = [UInt8](hex: "04 4e 3c 2a 61 70 80")
        #expect(try first.cmac(uid, key: region) == second.cmac(uid, key: copy))
        #expect(try second.checkValueUnreadable(copy) == .attributeSensitive)
        // The original is found only when its export under trusted keys is allowed.
        #expect(throws: PKCS11Error.keyNotUsable(label: "region", reason: "it is extractable (CKA_EXTRACTABLE true)")) {
            _ = try first.findSecretKey(label: "region")
        }
        #expect(try first.findSecretKey(label: "region", allowing: .underTrustedKeys) == region)
    }

    @Test func anAlteredWrappedKeyIsRefused() throws {
        try withToken { _, session in
            let transport = try session.generateAESKey(label: "transport", usage: .wrap)
            let region = try session.generateAESKey(label: "region", usage: .mac, export: .underAnyWrappingKey)
            var wrapped = try session.wrap(region, with: transport, .aesKeyWrapPad)
            wrapped[5] ^= 0x01
            // The integrity check of RFC 5649 fails inside the token: no key is made.
            #expect(throws: PKCS11Error.self) {
                _ = try session.unwrapAESKey(wrapped, with: transport, .aesKeyWrapPad, label: "copy", usage: .mac)
            }
            #expect(throws: PKCS11Error.keyNotFound(label: "copy")) { _ = try session.findSecretKey(label: "copy") }
            #expect(throws: PKCS11Error.invalidArgument("a wrapped AES-128 key has 24 bytes, not 32")) {
                _ = try session.unwrapAESKey(
                    wrapped + [UInt8](repeating: 0, count: 8), with: transport, .aesKeyWrapPad, label: "copy",
                    usage: .mac)
            }
        }
    }

    @Test func aKeyThatIsNotExtractableCannotBeWrapped() throws {
        try withToken { _, session in
            let wrappingKey = try session.generateAESKey(label: "transport", usage: .wrap)
            let key = try session.generateAESKey(label: "region", usage: .mac)
            #expect(throws: PKCS11Error.failed(function: "C_WrapKey", code: .keyUnextractable)) {
                _ = try session.wrap(key, with: wrappingKey, .aesKeyWrapPad)
            }
        }
    }

    // MARK: PIN, token and module

    @Test func aWrongPINFailsWithAClearErrorAndNoPIN() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        try hsm.initToken(label: "kiosk", pin: Self.pin)
        let module = try hsm.load()
        defer { module.close() }
        let wrong = "13579111"
        do {
            _ = try module.openSession(tokenLabel: "kiosk", pin: PKCS11PIN(wrong))
            Issue.record("a wrong PIN opened a session")
        } catch {
            #expect(error == .failed(function: "C_Login", code: .pinIncorrect))
            #expect(error.code?.name == "CKR_PIN_INCORRECT")
            #expect(error.description.contains("CKR_PIN_INCORRECT"))
            #expect(!error.description.contains(wrong))
        }
        // The right PIN still works afterwards.
        let session = try module.openSession(tokenLabel: "kiosk", pin: PKCS11PIN(Self.pin))
        session.close()
    }

    @Test func thePINIsReadFromAFileAndNeverShown() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        try hsm.initToken(label: "kiosk", pin: Self.pin)
        let file = hsm.directory + "/pin"
        try (Self.pin + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let pin = try PKCS11PIN(contentsOfFile: file)
        for shown in [String(describing: pin), String(reflecting: pin), "\(pin)"] {
            #expect(!shown.contains(Self.pin), "\(shown)")
        }
        var dumped = ""
        dump(pin, to: &dumped)
        #expect(!dumped.contains(Self.pin))
        let module = try hsm.load()
        defer { module.close() }
        let session = try module.openSession(tokenLabel: "kiosk", pin: pin)
        session.close()
        #expect(throws: PKCS11Error.pinUnreadable(path: hsm.directory + "/none", errno: ENOENT)) {
            _ = try PKCS11PIN(contentsOfFile: hsm.directory + "/none")
        }
        try "\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: PKCS11Error.pinInvalid(path: file, reason: "is empty")) {
            _ = try PKCS11PIN(contentsOfFile: file)
        }
    }

    @Test func anUnknownTokenOrKeyIsNamed() throws {
        try withToken { module, session in
            #expect(try module.tokenLabels() == ["kiosk"])
            #expect(throws: PKCS11Error.tokenNotFound(label: "other", present: ["kiosk"])) {
                _ = try module.openSession(tokenLabel: "other", pin: PKCS11PIN(Self.pin))
            }
            #expect(throws: PKCS11Error.keyNotFound(label: "region")) {
                _ = try session.findSecretKey(label: "region")
            }
            _ = try session.generateAESKey(label: "twice", usage: .mac)
            _ = try session.generateAESKey(label: "twice", usage: .mac)
            #expect(throws: PKCS11Error.keyAmbiguous(label: "twice", count: 2)) {
                _ = try session.findSecretKey(label: "twice")
            }
        }
    }

    @Test func aMissingModuleIsNamedWithWhatToInstall() {
        do {
            _ = try PKCS11Module(path: "/nonexistent/libpkcs11-module.so")
            Issue.record("a missing module loaded")
        } catch {
            guard case .moduleNotLoadable(let path, _) = error else {
                Issue.record("expected moduleNotLoadable, got \(error)")
                return
            }
            #expect(path == "/nonexistent/libpkcs11-module.so")
            #expect(error.description.contains("install"))
        }
    }

    /// Without SoftHSM2 every test of this suite fails with what to install; none is skipped.
    @Test func withoutSoftHSM2TheSuiteSaysWhatToInstall() {
        #expect {
            _ = try SoftHSM(required: ["/nonexistent/softhsm2-util"])
        } throws: { error in
            String(describing: error).contains("apt-get install softhsm2")
        }
    }

    @Test func closingFinalizesTheModuleAndEndsItsSessions() throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        try hsm.initToken(label: "kiosk", pin: Self.pin)
        let module = try hsm.load()
        // Initialized once per process: a second instance is refused while the first is open.
        #expect(throws: PKCS11Error.failed(function: "C_Initialize", code: .cryptokiAlreadyInitialized)) {
            _ = try hsm.load()
        }
        let session = try module.openSession(tokenLabel: "kiosk", pin: PKCS11PIN(Self.pin))
        let key = try session.generateAESKey(label: "region", usage: .mac)
        module.close()
        #expect(throws: PKCS11Error.closed) { _ = try session.cmac([1], key: key) }
        #expect(throws: PKCS11Error.closed) { _ = try module.tokenLabels() }
        module.close()
        // C_Finalize ran: the module initializes again, and the key is still on the token.
        let again = try hsm.load()
        defer { again.close() }
        let reopened = try again.openSession(tokenLabel: "kiosk", pin: PKCS11PIN(Self.pin))
        defer { reopened.close() }
        _ = try reopened.findSecretKey(label: "region")
    }
}
