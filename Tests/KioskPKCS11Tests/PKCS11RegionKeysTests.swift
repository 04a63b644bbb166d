import Foundation
import KioskCore
import KioskOpenSSL
import Testing

@testable import KioskPKCS11

extension PKCS11SessionTests {
    /// The region's keys (`PKCS11RegionKeys`, docs/diary-card.md) in a real SoftHSM2. Nested in the session tests so
    /// that it shares their serialization: SoftHSM2 is initialized once per process.
    @Suite struct RegionKeysTests {
        static let pin = PKCS11SessionTests.pin
        static let region = "NXP Abu"
        static let aid: [UInt8] = [0x4B, 0x44, 0x31]
        static let uid = [UInt8](hex: "04782E21801D80")
        /// Known keys, imported so that the tests can compute what the token must answer and look for them.
        static let master = [UInt8](hex: "00112233445566778899AABBCCDDEEFF")
        static let dayKey = [UInt8](hex: "8e73b0f7da0e6452c810f32b809079e5")
        static let components = [
            [UInt8](hex: "0f1e2d3c 4b5a6978 8796a5b4 c3d2e1f0"), [UInt8](hex: "11223344 55667788 99aabbcc ddeeff00"),
        ]
        static let day0: DiaryDay = 20_405
        let cipher = OpenSSLCrypto()

        /// A SoftHSM2 with tokens `labels`, the module loaded, `body` given it; all removed afterwards.
        func withTokens(_ labels: [String], _ body: (SoftHSM, PKCS11Module) throws -> Void) throws {
            let hsm = try SoftHSM()
            defer { hsm.remove() }
            for label in labels { try hsm.initToken(label: label, pin: Self.pin) }
            let module = try hsm.load()
            defer { module.close() }
            try body(hsm, module)
        }

        func open(_ module: PKCS11Module, _ token: String, region: String = Self.region) throws -> PKCS11RegionKeys {
            PKCS11RegionKeys(
                session: try module.openSession(tokenLabel: token, pin: PKCS11PIN(Self.pin)), regionName: region)
        }

        /// Installs `region-wrap` from `components` as the token's security officer.
        static func installWrap(_ module: PKCS11Module, _ token: String, _ components: [[UInt8]] = Self.components)
            throws
        {
            let officer = try module.openSession(
                tokenLabel: token, pin: PKCS11PIN(SoftHSM.securityOfficerPIN), as: .securityOfficer)
            defer { officer.close() }
            try PKCS11RegionKeys.installWrappingKey(officer: officer, components: components)
        }

        /// The known master key as generation 1 and the known day key as K(`day0`), made as `init` makes them.
        func importKnownRegion(_ keys: PKCS11RegionKeys) throws {
            _ = try keys.session.importAESKey(
                label: RegionKeyLabels.card(generation: 1), value: Self.master, usage: .mac, export: .underTrustedKeys)
            _ = try keys.session.importAESKey(
                label: RegionKeyLabels.day, value: Self.dayKey, usage: [.derive, .mac], export: .underTrustedKeys,
                id: RegionKeyLabels.dayID(Self.day0))
        }

        /// K(`day`) computed in software from the known K(day0).
        func softwareDayKey(_ day: DiaryDay) throws -> [UInt8] {
            var key = Self.dayKey
            for _ in 0..<(day - Self.day0) {
                key = try cipher.aes128ECBEncrypt(key: key, blocks: DayRatchet.stepInput)
            }
            return key
        }

        func softwareStayMaterial(_ day: DiaryDay, uid: [UInt8] = Self.uid) throws -> [UInt8] {
            try cipher.aes128CMAC(key: softwareDayKey(day), message: [0x05] + uid)
        }

        // MARK: Card keys

        /// NXP AN10922's published AES-128 example still holds for the core's software diversification, and the
        /// token's CMAC of 01 ‖ M equals that diversification for every purpose of the 31-byte diary input.
        @Test func aCardKeyIsAN10922OfTheMasterKeyInsideTheToken() throws {
            // AN10922 (Rev. 2.2), section 2.2.1: the same example as the core's AN10922Tests.
            let example = try AN10922.diversifyAES128(
                masterKey: Self.master,
                input: AN10922.input(uid: Self.uid, aid: [0x30, 0x42, 0xF5], systemIdentifier: Array("NXP Abu".utf8)),
                cipher: cipher)
            #expect(example == [UInt8](hex: "a8dd63a3b89d54b37ca802473fda9175"))
            try withTokens(["kiosk"]) { _, module in
                let keys = try open(module, "kiosk")
                try importKnownRegion(keys)
                #expect(try keys.generations() == [1])
                #expect(keys.systemIdentifier == Array("NXP Abu".utf8) + [UInt8](repeating: 0, count: 13))
                for purpose in DiaryKeyPurpose.allCases {
                    let input = try DiaryDiversification.input(
                        purpose: purpose, uid: Self.uid, aid: Self.aid, systemIdentifier: keys.systemIdentifier)
                    #expect(input.count == 31)
                    let software = try AN10922.diversifyAES128(masterKey: Self.master, input: input, cipher: cipher)
                    let token = try keys.cardKey(purpose, uid: Self.uid, aid: Self.aid, generation: 1)
                    #expect(token == software, "\(purpose)")
                }
                // The identify key is the same for every card: its input's UID is seven zero bytes.
                let other = [UInt8](hex: "04112233445566")
                #expect(
                    try keys.cardKey(.identify, uid: other, aid: Self.aid, generation: 1)
                        == keys.cardKey(.identify, uid: Self.uid, aid: Self.aid, generation: 1))
                #expect(
                    try keys.cardKey(.diary, uid: other, aid: Self.aid, generation: 1)
                        != keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 1))
                #expect(throws: RegionKeyError.unknownGeneration(2)) {
                    _ = try keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 2)
                }
                #expect(throws: RegionKeyError.token("a card's UID has 7 bytes, not 4")) {
                    _ = try keys.cardKey(.diary, uid: [1, 2, 3, 4], aid: Self.aid, generation: 1)
                }
                #expect(throws: RegionKeyError.token("an application's AID has 3 bytes, not 2")) {
                    _ = try keys.cardKey(.diary, uid: Self.uid, aid: [1, 2], generation: 1)
                }
            }
        }

        // MARK: The day ratchet

        @Test func aStayKeyIsTheCMACUnderTheRatchetsDayKeyAndIntermediatesAreDestroyed() throws {
            try withTokens(["kiosk"]) { _, module in
                let keys = try open(module, "kiosk")
                try importKnownRegion(keys)
                let today = Self.day0 + 14
                for day in [Self.day0, Self.day0 + 1, Self.day0 + 7, today] {
                    #expect(
                        try keys.stayKeyMaterial(day: day, uid: Self.uid, today: today) == softwareStayMaterial(day))
                }
                // Only the token's own keys remain: no derived session object.
                let objects = try keys.session.secretKeys()
                #expect(Set(objects.map(\.label)) == ["region-card-g1", "region-day"])
                #expect(try objects.allSatisfy { try keys.session.isOnToken($0) })
                // A day after today, or older than 14 days, is not reachable.
                #expect(throws: RegionKeyError.dayUnavailable(today + 1)) {
                    _ = try keys.stayKeyMaterial(day: today + 1, uid: Self.uid, today: today)
                }
                #expect(throws: RegionKeyError.dayUnavailable(Self.day0)) {
                    _ = try keys.stayKeyMaterial(day: Self.day0, uid: Self.uid, today: today + 1)
                }
                #expect(throws: RegionKeyError.token("a card's UID has 7 bytes, not 8")) {
                    _ = try keys.stayKeyMaterial(day: today, uid: Self.uid + [0], today: today)
                }
            }
        }

        /// After `advance` past d + 14 the day's key is gone for good: only day keys of later days are on the token.
        @Test func afterAdvanceADayPastItsFourteenDaysCannotBeOpened() throws {
            try withTokens(["kiosk"]) { _, module in
                let keys = try open(module, "kiosk")
                try importKnownRegion(keys)
                let today = Self.day0 + 14 + 3
                try keys.advance(today: today)
                #expect(try keys.status().day == Self.day0 + 3)
                for day in Self.day0..<(Self.day0 + 3) {
                    #expect(throws: RegionKeyError.dayUnavailable(day)) {
                        _ = try keys.stayKeyMaterial(day: day, uid: Self.uid, today: today)
                    }
                }
                #expect(
                    try keys.stayKeyMaterial(day: Self.day0 + 3, uid: Self.uid, today: today)
                        == softwareStayMaterial(Self.day0 + 3))
                // Every key left: the card master key and one day key, of a later day than those gone.
                let objects = try keys.session.secretKeys()
                #expect(objects.map(\.label).sorted() == ["region-card-g1", "region-day"])
                let dayObjects = try keys.session.secretKeys(labelled: RegionKeyLabels.day)
                #expect(
                    try dayObjects.map { try RegionKeyLabels.day(fromID: keys.session.id(of: $0)) } == [Self.day0 + 3])
                // No key left MACs as K(d0) … K(d0 + 2) does.
                let probe = [UInt8](repeating: 0x42, count: 16)
                let gone = try (0..<3).map {
                    try cipher.aes128CMAC(key: softwareDayKey(Self.day0 + $0), message: probe)
                }
                for object in dayObjects {
                    #expect(try !gone.contains(keys.session.cmac(probe, key: object)))
                }
                // A clock set back never moves it back.
                try keys.advance(today: Self.day0 + 14)
                #expect(try keys.status().day == Self.day0 + 3)
                #expect(throws: RegionKeyError.dayUnavailable(Self.day0 + 2)) {
                    _ = try keys.stayKeyMaterial(day: Self.day0 + 2, uid: Self.uid, today: Self.day0 + 14)
                }
            }
        }

        /// A step stopped between the derivation of the new day key and the destruction of the old leaves two; the
        /// next use keeps the newer and destroys the older.
        @Test func aStepInterruptedBeforeTheDestructionIsFinishedAtTheNextUse() throws {
            try withTokens(["kiosk"]) { _, module in
                let keys = try open(module, "kiosk")
                try importKnownRegion(keys)
                let old = try keys.session.secretKeys(labelled: RegionKeyLabels.day)[0]
                // The first half of a step, as `advance` does it, then the "crash".
                _ = try keys.session.deriveAESKey(
                    from: old, .aesECBEncryptData(DayRatchet.stepInput), label: RegionKeyLabels.day,
                    usage: [.derive, .mac], export: .underTrustedKeys, id: RegionKeyLabels.dayID(Self.day0 + 1))
                #expect(try keys.session.secretKeys(labelled: RegionKeyLabels.day).count == 2)
                let today = Self.day0 + 15
                #expect(
                    try keys.stayKeyMaterial(day: today, uid: Self.uid, today: today) == softwareStayMaterial(today))
                let left = try keys.session.secretKeys(labelled: RegionKeyLabels.day)
                #expect(left.count == 1)
                #expect(try left.map { try RegionKeyLabels.day(fromID: keys.session.id(of: $0)) } == [Self.day0 + 1])
                #expect(throws: RegionKeyError.dayUnavailable(Self.day0)) {
                    _ = try keys.stayKeyMaterial(day: Self.day0, uid: Self.uid, today: Self.day0 + 14)
                }
            }
        }

        // MARK: Copying to another kiosk

        @Test func twoKiosksThatImportedOneExportGiveTheSameKeys() throws {
            try withTokens(["kiosk-a", "kiosk-b", "kiosk-c"]) { _, module in
                try Self.installWrap(module, "kiosk-a")
                try Self.installWrap(module, "kiosk-b")
                try Self.installWrap(module, "kiosk-c")
                let first = try open(module, "kiosk-a")
                let today = Self.day0 + 14
                try first.setUp(today: today)
                let export = try first.exportKeys()
                #expect(export.dayKey.day == Self.day0)
                #expect(export.cards.map(\.generation) == [1])
                let file = try RegionKeyExport.parse(export.text)
                #expect(file == export)
                let second = try open(module, "kiosk-b")
                let outcome = try second.importKeys(file)
                #expect(outcome == .init(added: [1], kept: [], day: Self.day0))
                for day in Self.day0...today {
                    #expect(
                        try first.stayKeyMaterial(day: day, uid: Self.uid, today: today)
                            == second.stayKeyMaterial(day: day, uid: Self.uid, today: today))
                }
                for purpose in DiaryKeyPurpose.allCases {
                    #expect(
                        try first.cardKey(purpose, uid: Self.uid, aid: Self.aid, generation: 1)
                            == second.cardKey(purpose, uid: Self.uid, aid: Self.aid, generation: 1))
                }
                // Two kiosks that imported the same file give the same stay key material.
                let third = try open(module, "kiosk-c")
                #expect(try third.importKeys(file) == .init(added: [1], kept: [], day: Self.day0))
                for day in Self.day0...today {
                    #expect(
                        try second.stayKeyMaterial(day: day, uid: Self.uid, today: today)
                            == third.stayKeyMaterial(day: day, uid: Self.uid, today: today))
                }
                // The second kiosk moved on; importing the older file again keeps its newer day key (same chain).
                try second.advance(today: today + 2)
                #expect(try second.importKeys(file) == .init(added: [], kept: [1], day: Self.day0 + 2))
                // The first kiosk, behind, takes the newer day key from the second's export.
                #expect(try first.importKeys(second.exportKeys()) == .init(added: [], kept: [1], day: Self.day0 + 2))
                #expect(try first.session.secretKeys(labelled: RegionKeyLabels.day).count == 1)
                #expect(
                    try first.stayKeyMaterial(day: today + 2, uid: Self.uid, today: today + 2)
                        == second.stayKeyMaterial(day: today + 2, uid: Self.uid, today: today + 2))
            }
        }

        @Test func aTokenWithoutTheExportOpensNothing() throws {
            try withTokens(["kiosk-a", "kiosk-c", "kiosk-d"]) { _, module in
                try Self.installWrap(module, "kiosk-a")
                let first = try open(module, "kiosk-a")
                try first.setUp(today: Self.day0 + 14)
                // Never imported: no generation, no card key, no day key.
                let other = try open(module, "kiosk-c")
                #expect(try other.generations() == [])
                #expect(throws: RegionKeyError.unknownGeneration(1)) {
                    _ = try other.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 1)
                }
                #expect(throws: RegionKeyError.token("no secret key labelled 'region-day' on the token")) {
                    _ = try other.stayKeyMaterial(day: Self.day0, uid: Self.uid, today: Self.day0 + 14)
                }
                // With a wrapping key of other components, the export does not unwrap, and nothing is left.
                try Self.installWrap(module, "kiosk-d", [Self.components[0], [UInt8](repeating: 0x5c, count: 16)])
                let wrongWrap = try open(module, "kiosk-d")
                #expect {
                    _ = try wrongWrap.importKeys(first.exportKeys())
                } throws: { error in
                    guard
                        case .token(.failed(function: "C_UnwrapKey", _)) = error
                            as? PKCS11RegionKeys.AdministrationError
                    else { return false }
                    return true
                }
                #expect(try wrongWrap.status() == .init(generations: [], day: nil, hasWrappingKey: true))
                // Without any wrapping key, nothing leaves or enters.
                #expect(throws: PKCS11RegionKeys.AdministrationError.noWrappingKey) {
                    _ = try other.importKeys(first.exportKeys())
                }
                // Another region's export is refused before anything is unwrapped.
                let elsewhere = try open(module, "kiosk-d", region: "Other region")
                #expect(throws: PKCS11RegionKeys.AdministrationError.otherRegion) {
                    _ = try elsewhere.importKeys(first.exportKeys())
                }
            }
        }

        /// The export file holds every key only wrapped: neither the card master key, nor the day key, nor the
        /// wrapping key, nor a day key derived from it is in it, in hexadecimal or as bytes.
        @Test func theExportFileHoldsNoKeyInClear() throws {
            try withTokens(["kiosk"]) { _, module in
                try Self.installWrap(module, "kiosk")
                let keys = try open(module, "kiosk")
                try importKnownRegion(keys)
                let text = try keys.exportKeys().text
                #expect(text.hasPrefix("kiosk-region-keys 1\n"))
                #expect(text.contains("card 1 region-card-g1 "))
                #expect(text.contains("day \(Self.day0) region-day "))
                let wrap = zip(Self.components[0], Self.components[1]).map { $0 ^ $1 }
                var secrets = [Self.master, Self.dayKey, wrap] + Self.components
                secrets += try (1...15).map { try softwareDayKey(Self.day0 + $0) }
                let bytes = Array(text.utf8)
                for secret in secrets {
                    #expect(!text.lowercased().contains(Hex.encode(secret)))
                    #expect(!bytes.contains(secret))
                    // Not even half a key.
                    #expect(!text.lowercased().contains(Hex.encode(secret.prefix(8))))
                    #expect(!text.lowercased().contains(Hex.encode(secret.suffix(8))))
                }
            }
        }

        // MARK: Rotation, retirement, set-up

        @Test func rotationAddsAGenerationAndRetirementDestroysOne() throws {
            try withTokens(["kiosk"]) { _, module in
                let keys = try open(module, "kiosk")
                #expect(throws: PKCS11RegionKeys.AdministrationError.notSetUp) { _ = try keys.rotate() }
                try keys.setUp(today: Self.day0 + 14)
                #expect(try keys.status() == .init(generations: [1], day: Self.day0, hasWrappingKey: false))
                #expect(throws: PKCS11RegionKeys.AdministrationError.alreadySetUp(generations: [1], hasDayKey: true)) {
                    try keys.setUp(today: Self.day0 + 20)
                }
                let oldKey = try keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 1)
                #expect(try keys.rotate() == 2)
                #expect(try keys.generations() == [1, 2])
                let newKey = try keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 2)
                #expect(newKey != oldKey)
                #expect(throws: PKCS11RegionKeys.AdministrationError.newestGeneration(2)) {
                    try keys.retire(generation: 2)
                }
                #expect(throws: PKCS11RegionKeys.AdministrationError.unknownGeneration(7)) {
                    try keys.retire(generation: 7)
                }
                try keys.retire(generation: 1)
                #expect(try keys.generations() == [2])
                #expect(throws: RegionKeyError.unknownGeneration(1)) {
                    _ = try keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 1)
                }
                #expect(try keys.cardKey(.diary, uid: Self.uid, aid: Self.aid, generation: 2) == newKey)
                // The keys a kiosk makes never leave in clear.
                for object in try keys.session.secretKeys() {
                    #expect(try keys.session.checkValueUnreadable(object) == .attributeSensitive)
                }
                // Generation 255 is the last.
                _ = try keys.session.generateAESKey(label: "region-card-g255", usage: .mac, export: .underTrustedKeys)
                #expect(throws: PKCS11RegionKeys.AdministrationError.generationsExhausted) { _ = try keys.rotate() }
            }
        }

        @Test func theWrappingKeyNeedsTwoDifferentComponentsAndTheSecurityOfficer() throws {
            try withTokens(["kiosk"]) { _, module in
                let officer = try module.openSession(
                    tokenLabel: "kiosk", pin: PKCS11PIN(SoftHSM.securityOfficerPIN), as: .securityOfficer)
                defer { officer.close() }
                typealias Failure = PKCS11RegionKeys.AdministrationError
                #expect(throws: Failure.components("a wrapping key needs two or more custodians' components, not 1")) {
                    try PKCS11RegionKeys.installWrappingKey(officer: officer, components: [Self.components[0]])
                }
                #expect(throws: Failure.components("two components are the same: each custodian makes their own")) {
                    try PKCS11RegionKeys.installWrappingKey(
                        officer: officer, components: [Self.components[0], Self.components[0]])
                }
                #expect(throws: Failure.components("the components cancel each other out: make new ones")) {
                    try PKCS11RegionKeys.installWrappingKey(
                        officer: officer,
                        components: [
                            Self.components[0], Self.components[1],
                            zip(Self.components[0], Self.components[1]).map { $0 ^ $1 },
                        ])
                }
                try PKCS11RegionKeys.installWrappingKey(officer: officer, components: Self.components)
                #expect(throws: Failure.wrappingKeyPresent) {
                    try PKCS11RegionKeys.installWrappingKey(officer: officer, components: Self.components)
                }
                // The token's user sees the trusted key the officer installed.
                officer.close()
                let user = try open(module, "kiosk")
                #expect(try user.status().hasWrappingKey)
            }
        }
    }
}
