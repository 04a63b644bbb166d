import KioskCore
import KioskOpenSSL
import Testing

@Suite struct CardImageTests {
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let content = CardContent(kind: .visitor, secret: (0..<32).map { UInt8($0 * 7 & 0xFF) })

    @Test func crc32KnownAnswer() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test(arguments: [16, 17, 24, 32])
    func roundTrips(_ length: Int) throws {
        let content = CardContent(kind: .staff, secret: (0..<length).map { UInt8(255 - $0) })
        let image = try CardImage.encode(content, uid: uid)
        #expect(image.count == 44)
        #expect(Array(image[0..<4]) == [0x4B, 0x43, 0x01, 0x02])
        #expect(CardImage.decode(image, uid: uid) == .enrolled(content))
    }

    @Test(arguments: [0, 15, 33])
    func rejectsSecretLength(_ length: Int) {
        #expect(throws: CardLayoutError.secretLength(length)) {
            try CardImage.encode(CardContent(kind: .visitor, secret: [UInt8](repeating: 1, count: length)), uid: uid)
        }
    }

    @Test func blankForeignAndOtherVersion() throws {
        #expect(CardImage.decode([UInt8](repeating: 0, count: 44), uid: uid) == .blank)
        #expect(CardImage.decode([0x03, 0x10, 0xD1, 0x01] + [UInt8](repeating: 0, count: 40), uid: uid) == .foreign)
        var image = try CardImage.encode(content, uid: uid)
        image[2] = 2
        #expect(CardImage.decode(image, uid: uid) == .unsupportedLayout(version: 2))
    }

    @Test func commitPageBindsContentAndUID() throws {
        let image = try CardImage.encode(content, uid: uid)
        var otherUID = uid
        otherUID[6] ^= 1
        #expect(CardImage.decode(image, uid: otherUID) == .incomplete)
        var uncommitted = image
        uncommitted.replaceSubrange(40..<44, with: [0, 0, 0, 0])
        #expect(CardImage.decode(uncommitted, uid: uid) == .incomplete)
        for index in 0..<44 {
            var flipped = image
            flipped[index] ^= 0x10
            #expect(CardImage.decode(flipped, uid: uid) != .enrolled(content), "byte \(index)")
        }
    }

    /// Writes the enrolment steps in order over an old image and stops after each one with the page half written:
    /// the result is never a valid card with content other than the old or (only when complete) the new.
    @Test func tornWritesNeverYieldWrongContent() throws {
        let old = CardContent(kind: .visitor, secret: [UInt8](repeating: 0xAA, count: 16))
        let oldImage = try CardImage.encode(old, uid: uid)
        let newImage = try CardImage.encode(content, uid: uid)
        let password = try CardPassword(cardKey: [UInt8](repeating: 9, count: 32), uid: uid, crypto: OpenSSLCrypto())
        let steps = CardEnrolment.steps(
            image: newImage, password: password, configPage: 41, cfg0: [4, 0, 0, 4],
            cfg1: [0x80, 0, 0, 0], alreadyProtected: true)
        let writes = steps.compactMap { step -> (Int, [UInt8])? in
            if case .write(let page, let bytes) = step { return (page, bytes) }
            return nil
        }
        #expect(writes.first?.0 == CardImage.commitPage && writes.first?.1 == [0, 0, 0, 0])
        #expect(writes.last?.0 == CardImage.commitPage)
        for tornAt in 0..<writes.count {
            for startImage in [oldImage, [UInt8](repeating: 0, count: 44)] {
                var memory = startImage
                for (index, (page, bytes)) in writes.enumerated() where index <= tornAt {
                    let offset = (page - CardImage.firstPage) * 4
                    let written = index == tornAt ? Array(bytes[0..<2]) + Array(memory[offset + 2..<offset + 4]) : bytes
                    memory.replaceSubrange(offset..<offset + 4, with: written)
                }
                switch CardImage.decode(memory, uid: uid) {
                case .enrolled(let found):
                    #expect(found == old && startImage == oldImage, "torn at write \(tornAt)")
                default: break
                }
            }
        }
    }

    @Test func enrolmentSetsPasswordBeforeAnyData() throws {
        let crypto = OpenSSLCrypto()
        let password = try CardPassword(cardKey: [UInt8](repeating: 1, count: 32), uid: uid, crypto: crypto)
        let image = try CardImage.encode(content, uid: uid)
        let steps = CardEnrolment.steps(
            image: image, password: password, configPage: 41, cfg0: [4, 0, 0, 0xFF],
            cfg1: [0, 0, 0, 0], alreadyProtected: false)
        #expect(
            Array(steps.prefix(5)) == [
                .write(page: 43, bytes: password.password),
                .write(page: 44, bytes: password.acknowledge + [0, 0]),
                .write(page: 42, bytes: [0x80, 0, 0, 0]),
                .write(page: 41, bytes: [4, 0, 0, 4]),
                .authenticate,
            ])
        #expect(steps.count == 5 + 1 + 11)
        // ACCESS: PROT set (reads need the password), CFGLCK clear, AUTHLIM as decided (0: no lockout), and the
        // card's other ACCESS bits (NFC counter) kept.
        #expect(CardEnrolment.authenticationLimit == 0)
        let kept = CardEnrolment.steps(
            image: image, password: password, configPage: 41, cfg0: [4, 0, 0, 0xFF],
            cfg1: [0x1F, 5, 0, 0], alreadyProtected: false)
        #expect(kept[2] == .write(page: 42, bytes: [0x98, 5, 0, 0]))
    }

    @Test func passwordIsPerCardAndDeterministic() throws {
        let crypto = OpenSSLCrypto()
        let key = [UInt8](repeating: 7, count: 32)
        let a = try CardPassword(cardKey: key, uid: uid, crypto: crypto)
        let again = try CardPassword(cardKey: key, uid: uid, crypto: crypto)
        let other = try CardPassword(cardKey: key, uid: [0x04] + [UInt8](repeating: 0, count: 6), crypto: crypto)
        let otherKey = try CardPassword(cardKey: [UInt8](repeating: 8, count: 32), uid: uid, crypto: crypto)
        #expect(a.password == again.password && a.acknowledge == again.acknowledge)
        #expect(a.password.count == 4 && a.acknowledge.count == 2)
        #expect(a.password != other.password)
        #expect(a.password != otherKey.password)
        var wiped = a
        wiped.wipe(using: crypto)
        #expect(wiped.password == [0, 0, 0, 0] && wiped.acknowledge == [0, 0])
    }
}
