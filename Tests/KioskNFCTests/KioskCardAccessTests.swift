import KioskCore
import KioskNFC
import KioskOpenSSL
import KioskSimulation
import Testing

/// The card logic against in-memory tags (fast); `LibNFCIntegrationTests` runs it through libnfc.
@Suite struct KioskCardAccessTests {
    let access = KioskCardAccess(cardKey: [UInt8](repeating: 0x42, count: 32), crypto: OpenSSLCrypto())
    let uid: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]
    let content = CardContent(kind: .visitor, secret: (1...32).map { UInt8($0) })

    @Test(arguments: NTAGModel.allCases)
    func enrolsAndReadsBack(_ model: NTAGModel) throws {
        let link = EmulatedTagLink(EmulatedTag(model: model, uid: uid))
        #expect(try access.read(link.target, over: link) == .notAKioskCard(.blank))
        link.replace()
        try access.enrol(content, on: link.target, over: link)
        link.replace()
        #expect(try access.read(link.target, over: link) == .kioskCard(content))
        // Protected: without the password the user memory is unreadable.
        link.replace()
        #expect(link.tag.auth0 == 4)
        #expect(throws: NFCError(code: .refused)) { try NTAGCommands(link: link).read(page: 4) }
        // Another kiosk (other key) sees a card it cannot open.
        link.replace()
        let other = KioskCardAccess(cardKey: [UInt8](repeating: 0x43, count: 32), crypto: OpenSSLCrypto())
        #expect(try other.read(link.target, over: link) == .notAKioskCard(.otherPassword))
        link.replace()
        #expect(throws: CardEnrolmentError.protectedByAnotherPassword) {
            try other.enrol(content, on: link.target, over: link)
        }
    }

    @Test func reEnrolsWithNewSecret() throws {
        let link = EmulatedTagLink(EmulatedTag(model: .ntag215, uid: uid))
        try access.enrol(content, on: link.target, over: link)
        let newer = CardContent(kind: .staff, secret: [UInt8](repeating: 0xEE, count: 16))
        link.replace()
        try access.enrol(newer, on: link.target, over: link)
        link.replace()
        #expect(try access.read(link.target, over: link) == .kioskCard(newer))
    }

    @Test func foreignContentIsNotAKioskCard() throws {
        var tag = EmulatedTag(model: .ntag213, uid: uid)
        tag.setPage(4, to: [0x03, 0x0C, 0xD1, 0x01])  // an NDEF message
        let link = EmulatedTagLink(tag)
        #expect(try access.read(link.target, over: link) == .notAKioskCard(.otherContent))
        #expect(
            try access.read(NFCTarget(atqa: [0, 4], sak: 0x20, uid: [1, 2, 3, 4], ats: [0x78]), over: link)
                == .notAKioskCard(.unsupportedCardType))
    }

    /// A card pulled away at every possible write, fresh and re-enrolled: it never reads as a valid card with
    /// content other than what a complete enrolment wrote.
    @Test(arguments: [false, true])
    func tearingAtEveryWrite(previouslyEnrolled: Bool) throws {
        let old = CardContent(kind: .visitor, secret: [UInt8](repeating: 0x11, count: 20))
        var tornAt = 0
        while true {
            let link = EmulatedTagLink(EmulatedTag(model: .ntag213, uid: uid))
            if previouslyEnrolled {
                try access.enrol(old, on: link.target, over: link)
                link.replace()
            }
            let writesBefore = link.tag.writeCount
            link.writesBeforeTear = tornAt
            do {
                try access.enrol(content, on: link.target, over: link)
                #expect(link.tag.writeCount - writesBefore == tornAt, "every write was tried")
                break
            } catch {
                #expect(error == .cardRemoved)
            }
            link.replace()
            let result = try access.read(link.target, over: link)
            switch result {
            case .kioskCard(let found): #expect(previouslyEnrolled && found == old, "torn at write \(tornAt)")
            case .incompleteEnrolment, .notAKioskCard: break
            case .unsupportedLayout, .diaryCard, .newDiaryCard: Issue.record("torn at write \(tornAt): \(result)")
            }
            // Enrolling again after the tear completes the card.
            link.replace()
            try access.enrol(content, on: link.target, over: link)
            link.replace()
            #expect(try access.read(link.target, over: link) == .kioskCard(content))
            tornAt += 1
        }
        #expect(tornAt >= 11)
    }
}
