import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Scenarios on the pure machine with a manual clock; taps are carried out by a desk over the in-memory store.
@Suite struct CheckInMachineTests {
    // MARK: Binding

    @Test(arguments: StationFixtures.codes.indices)
    func staffBindsVenueByScanningItsCode(_ index: Int) throws {
        let (format, code) = StationFixtures.codes[index]
        var harness = MachineHarness()
        // An event's code is scanned while the event runs (an ended one is not bound: `anEndedEventIsNotBound`).
        let parsed = try VenueCodeParser(cwaDescriptors: CWAQRCodeDescriptor.production).parse(
            code, crypto: OpenSSLCrypto())
        if let start = parsed.startTimestamp, start > 0 {
            harness.clock.set(Date(timeIntervalSince1970: Double(start)))
        }
        harness.openStaff()
        let actions = harness.run(.codeScanned(code))
        let venue = try #require(harness.machine.state.venue)
        #expect(venue.format == format.rawValue)
        #expect(venue.locationId.count == 32)
        #expect(venue.posterURL == nil)
        // Saved before anything is shown, and no poster for a scanned venue.
        #expect(actions.first == .persist(harness.machine.state))
        #expect(harness.persisted?.venue == venue)
        #expect(actions.messages.first?.title == "Venue bound")
        #expect(actions.printJobs.isEmpty)
        if format == .clea {
            #expect(
                venue.locationId
                    == (try OpenSSLCrypto().sha256(
                        Array("CheckInKiosk Clea location v1".utf8)
                            + VenueCodeParser.parse(code, crypto: OpenSSLCrypto()).canonicalPayload)))
        } else {
            #expect(venue.locationId == (try VenueCodeParser.parse(code, crypto: OpenSSLCrypto()).locationId))
        }
        // A visitor's tap is now recorded at that venue.
        harness.run(.staffCommand(.leave))
        let tap = harness.send(.cardRead(.card(StationFixtures.card())))
        guard case .recordTap(_, let stayVenue) = tap.first else {
            Issue.record("no tap: \(tap)")
            return
        }
        #expect(stayVenue.locationId == venue.locationId)
    }

    @Test func stayRuleComesFromTheCode() throws {
        var harness = MachineHarness()
        harness.bind()
        // CWA's example: 120 minutes.
        #expect(harness.machine.state.venue?.maximumStay == TimeInterval(120 * 60))
        harness.bind(StationFixtures.codes[2].1)
        // SwissCovid's automatic checkout: 12 hours.
        #expect(harness.machine.state.venue?.maximumStay == TimeInterval(12 * 3600))
    }

    /// Seed 001: the check-in says when the stay ends by itself, and at SwissCovid venues a check-out after the code's
    /// `checkoutWarningDelayMs` (8 hours by default) reminds the holder that a forgotten stay can be deleted.
    @Test func theCheckInSaysWhenTheStayEndsAndALongSwissCovidStayIsPointedOut() throws {
        var harness = MachineHarness()
        harness.bind(StationFixtures.codes[2].1)
        #expect(harness.machine.state.venue?.checkoutWarningDelay == TimeInterval(8 * 3600))
        let forgetful = StationFixtures.card()
        let brief = StationFixtures.card()
        let checkedIn = harness.run(.cardRead(.card(forgetful)))
        // 10:00 UTC + 12 hours: 23:00 at the venue (Europe/Rome), never "UTC" to a visitor.
        #expect(checkedIn.messages.first?.body.contains("ends by itself at 23:00.") == true, "\(checkedIn)")
        #expect(checkedIn.messages.first?.body.contains("UTC") == false)
        harness.clock.advance(by: 3600)
        _ = harness.run(.cardRead(.card(brief)))
        harness.clock.advance(by: 3600)
        #expect(harness.run(.cardRead(.card(brief))).messages.first == StationTexts().checkedOut)
        harness.clock.advance(by: 7 * 3600)
        let late = harness.run(.cardRead(.card(forgetful)))
        #expect(late.patterns == [.checkedOut])
        #expect(late.messages.first == StationTexts().checkedOutAfterLongStay(hours: 8), "\(late)")
        #expect(late.messages.first?.body.contains("more than 8 hours") == true)
        // A CWA venue has no such delay.
        var cwa = MachineHarness()
        cwa.bind()
        #expect(cwa.machine.state.venue?.checkoutWarningDelay == nil)
    }

    @Test func venueCodeOutsideStaffModeIsOnlyAHint() {
        var harness = MachineHarness()
        for (_, code) in StationFixtures.codes {
            let actions = harness.run(.codeScanned(code))
            #expect(actions == [.show(StationTexts().venueCodeHint), .indicate(.refused), .countRefusal(.codeRefused)])
        }
        #expect(harness.machine.state == .initial)
        #expect(harness.persisted == nil)
    }

    // MARK: Visitors

    @Test func threeCardsCheckInAndOut() throws {
        var harness = MachineHarness()
        harness.bind()
        let cards = (0..<3).map { _ in StationFixtures.card() }
        for card in cards {
            let actions = harness.run(.cardRead(.card(card)))
            #expect(actions.messages.first?.title == "Checked in")
            #expect(actions.patterns == [.accepted])
            harness.clock.advance(by: 60)
        }
        #expect(harness.machine.state.openCheckIns(at: harness.now.now) == 3)
        #expect(harness.store.allRows.count == 3)
        harness.clock.advance(by: 30 * 60)
        for card in cards {
            // The printed card code acts exactly like the card.
            let actions = harness.run(.codeScanned(card.printedText.lowercased()))
            #expect(actions.messages.first?.title == "Checked out")
            #expect(actions.patterns == [.checkedOut])
        }
        #expect(harness.machine.state.openCheckIns(at: harness.now.now) == 0)
        #expect(harness.persisted?.openCheckInEnds.isEmpty == true)
        for card in cards {
            let stays = try harness.desk.stays(of: card, clock: harness.now)
            #expect(stays.count == 1)
            #expect(stays.first?.end != nil)
        }
    }

    @Test func forgottenCheckoutIsEndedByTheVenueRuleAtTheNextTap() throws {
        var harness = MachineHarness()
        harness.bind()
        let forgetful = StationFixtures.card()
        harness.run(.cardRead(.card(forgetful)))
        #expect(harness.machine.state.openCheckIns(at: harness.now.now) == 1)
        // The example venue ends stays after 120 minutes; the visitor comes back the next day.
        harness.clock.advance(by: 26 * 3600)
        harness.run(.tick)
        #expect(harness.machine.state.openCheckIns(at: harness.now.now) == 0)
        let actions = harness.run(.cardRead(.card(forgetful)))
        #expect(actions.messages.first?.title == "Checked in")
        let stays = try harness.desk.stays(of: forgetful, clock: harness.now)
        #expect(stays.count == 2)
        let first = try #require(stays.last)
        #expect(first.end == StationFixtures.start.addingTimeInterval(120 * 60))
        #expect(stays.first?.end == nil)
    }

    @Test func unsynchronizedClockRefusesEveryVisitorAction() {
        var harness = MachineHarness()
        harness.bind()
        harness.clock.setSynchronized(false)
        let clockActions = harness.run(.clockChanged(harness.now))
        #expect(clockActions == [.show(StationTexts().clockNotSet), .indicate(.clockNotSet)])
        let card = StationFixtures.card()
        for event in [StationEvent.cardRead(.card(card)), .codeScanned(card.printedText)] {
            let actions = harness.run(event)
            #expect(
                actions == [
                    .show(StationTexts().clockNotSet), .indicate(.clockNotSet), .countRefusal(.clockNotSynchronized),
                ])
        }
        #expect(harness.store.allRows.isEmpty)
        // A clock that never knew the time: expiry runs (it deletes whatever may be past its 14 days: everything).
        let result1 = harness.run(.tick)
        #expect(result1.contains(.expireNow))
        harness.clock.setSynchronized(true)
        let result2 = harness.run(.clockChanged(harness.now))
        #expect(result2 == [.show(StationTexts().clockSet)])
        let result3 = harness.run(.cardRead(.card(card)))
        #expect(result3.taps == 1)
    }

    @Test func unboundKioskRefusesVisitors() {
        var harness = MachineHarness()
        let actions = harness.run(.cardRead(.card(StationFixtures.card())))
        #expect(actions == [.show(StationTexts().notSetUp), .indicate(.error), .countRefusal(.venueNotSetUp)])
        #expect(harness.store.allRows.isEmpty)
    }

    @Test(arguments: ["hello", "https://example.org/menu", "", "CKPB1:ABC", String(repeating: "x", count: 9000)])
    func anythingElseIsNotACheckInCode(_ text: String) {
        var harness = MachineHarness()
        harness.bind()
        let result4 = harness.run(.codeScanned(text))
        #expect(result4 == [.show(StationTexts().notACheckInCode), .indicate(.error), .countRefusal(.codeRefused)])
        #expect(harness.store.allRows.isEmpty)
    }

    @Test func invalidVenueCodeGivesTheParsersMessage() {
        var harness = MachineHarness()
        harness.openStaff()
        let payload = StationFixtures.cwaCode.split(separator: "#")[1]
        let actions = harness.run(.codeScanned("https://e.coronawarn.app?v=2#" + payload))
        #expect(
            actions == [
                .show(
                    StationMessage(
                        title: "Venue code not usable",
                        body: "This code cannot be used for check-ins: ask for a new code (INVALID_URL).",
                        kind: .error)),
                .indicate(.error), .countRefusal(.codeRefused),
            ])
        #expect(!actions.messages[0].body.contains("Friseur"))
        #expect(harness.machine.state.venue == nil)
    }

    @Test func mistypedCardCodeIsRefused() {
        var harness = MachineHarness()
        harness.bind()
        var text = Array(StationFixtures.card().printedText)
        text[text.count - 2] = text[text.count - 2] == "A" ? "B" : "A"
        let actions = harness.run(.codeScanned(String(text)))
        #expect(actions.patterns == [.refused])
        #expect(actions.messages.first?.title == "Card code not valid")
        #expect(harness.store.allRows.isEmpty)
    }

    @Test func foreignBlankAndDamagedCardsAreRefused() {
        var harness = MachineHarness()
        harness.bind()
        for reason in CardRead.ForeignCardReason.allCases {
            let actions = harness.run(.cardRead(.foreign(reason)))
            #expect(actions.patterns == [.refused])
            #expect(actions.messages.first?.title == "Not a kiosk card")
            #expect(actions.messages.first?.body.hasPrefix(StationTexts().foreignCard(reason)) == true)
        }
        let result5 = harness.run(.cardRead(.blank))
        #expect(result5 == [.show(StationTexts().blankCard), .indicate(.refused), .countRefusal(.blankCard)])
        let result6 = harness.run(.cardRead(.damaged))
        #expect(result6 == [.show(StationTexts().damagedCard), .indicate(.refused), .countRefusal(.damagedCard)])
        #expect(harness.store.allRows.isEmpty)
    }

    @Test func refusedTapShowsTheRefusalWithItsPattern() {
        var harness = MachineHarness()
        harness.bind()
        harness.store.fail(with: .storageFull)
        let actions = harness.run(.cardRead(.card(StationFixtures.card())))
        #expect(actions.messages.first?.body == StationTexts().refusal(.storeUnavailable(.storageFull)))
        #expect(actions.patterns == [.error])
        #expect(harness.machine.state.openCheckInEnds.isEmpty)
    }

    // MARK: Staff mode

    @Test func staffCodeOpensStaffModeAndOtherCodesDoNot() {
        var harness = MachineHarness()
        let result7 = harness.run(.codeScanned("STAFF-2026-secreT"))
        #expect(result7 == [.show(StationTexts().notACheckInCode), .indicate(.error), .countRefusal(.codeRefused)])
        #expect(harness.machine.mode == .visitor)
        harness.run(.codeScanned(" STAFF-2026-secret\n"))
        guard case .staff(.menu, _) = harness.machine.mode else {
            Issue.record("staff mode not open")
            return
        }
        // Without a configured staff code, nothing is one.
        var plain = MachineHarness(configuration: StationConfiguration())
        plain.run(.codeScanned("STAFF-2026-secret"))
        #expect(plain.machine.mode == .visitor)
    }

    /// Staff mode's menu is chosen on the screen (or with the two buttons): its entries are choices, each the
    /// command the staff terminal names the same way, leaving last.
    @Test func theStaffMenusEntriesAreChoicesOnTheScreen() {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        let menu = harness.machine.screen(now: harness.now)
        // A page at a time: the everyday entries and “More”, leaving last; then the others and “Back”.
        #expect(
            menu.choices.map(\.id) == ["staff:bind", "staff:enrol", "staff:status-slip", "staff:more", "staff:leave"])
        #expect(menu.choices.first?.label == "Bind venue" && menu.choices.last?.label == "Leave staff mode")
        harness.run(.chosen("staff:more"))
        let more = harness.machine.screen(now: harness.now)
        #expect(
            more.choices.map(\.id) == [
                "staff:reprint", "staff:rotate", "staff:enrol-staff", "staff:forget-staff", "staff:wipe", "staff:back",
            ])
        // Every entry of the staff terminal's menu is on one of the two pages.
        #expect(
            Set((menu.choices + more.choices).map(\.id))
                .isSuperset(of: StaffCommand.menu.map { "staff:" + $0.name }))
        harness.run(.chosen("staff:back"))
        #expect(harness.machine.screen(now: harness.now).choices.map(\.id) == menu.choices.map(\.id))
        let printed = harness.run(.chosen("staff:status-slip"))
        #expect(printed.contains { if case .print(.statusSlip) = $0 { true } else { false } })
        harness.run(.chosen("staff:bind"))
        let prompt = harness.machine.screen(now: harness.now)
        #expect(prompt.title == "Bind venue" && prompt.offers("cancel") && !prompt.offers("staff:bind"))
        harness.run(.chosen("cancel"))
        #expect(harness.machine.screen(now: harness.now).offers("staff:leave"))
        harness.run(.chosen("staff:leave"))
        #expect(harness.machine.mode == .visitor)
        // Outside staff mode no staff entry is offered, and naming one does nothing.
        #expect(harness.run(.chosen("staff:wipe")).isEmpty)
    }

    /// Staff mode says twenty seconds before it closes that it will, with a tone once, and offers more time; the
    /// enrolled card's questions are kept as they were (“More time” answers none of them).
    @Test func staffModeWarnsBeforeItClosesAndMoreTimeKeepsItOpen() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        harness.clock.advance(by: 279)
        #expect(!harness.run(.tick).contains(.indicate(.timeRunningOut)))
        #expect(!harness.machine.screen(now: harness.now).offers("more-time"))
        harness.clock.advance(by: 1)
        #expect(harness.run(.tick).contains(.indicate(.timeRunningOut)))
        let warned = harness.machine.screen(now: harness.now)
        #expect(warned.title == "Staff mode" && warned.offers("more-time"))
        #expect(warned.lines.last == "This screen closes in 20 seconds. Choose “More time” to stay.")
        harness.clock.advance(by: 1)
        #expect(!harness.run(.tick).contains(.indicate(.timeRunningOut)), "the tone once")
        harness.run(.chosen("more-time"))
        harness.clock.advance(by: 299)
        harness.run(.tick)
        #expect(harness.machine.mode != .visitor, "its whole time again")
        harness.clock.advance(by: 1)
        #expect(harness.run(.tick).messages.map(\.title) == ["Staff mode closed"])

        // The questions of a card just enrolled: more time keeps the question, and answers nothing.
        harness.openStaff()
        harness.run(.staffCommand(.enrolCard))
        harness.run(.cardRead(.blank))
        harness.run(.chosen("yes"))
        harness.clock.advance(by: 281)
        harness.run(.tick)
        let question = harness.machine.screen(now: harness.now)
        #expect(question.choices.map(\.id) == ["set-pin", "no-pin", "more-time"])
        let answered = harness.run(.chosen("more-time"))
        #expect(!answered.contains { if case .cardRequest = $0 { true } else { false } })
        #expect(harness.machine.screen(now: harness.now).choices.map(\.id) == ["set-pin", "no-pin"])
    }

    @Test func staffModeClosesAfterTheTimeout() {
        var harness = MachineHarness()
        harness.openStaff()
        harness.clock.advance(by: 200)
        harness.run(.staffCommand(.printStatus))  // extends to 200 + 300
        harness.clock.advance(by: 299)
        let result8 = harness.run(.tick)
        #expect(result8.messages.isEmpty)
        #expect(harness.machine.mode != .visitor)
        harness.clock.advance(by: 1)
        let result9 = harness.run(.tick)
        #expect(result9.messages.map(\.title) == ["Staff mode closed"])
        #expect(harness.machine.mode == .visitor)
        let refused = harness.run(.staffCommand(.wipe(confirmed: true)))
        #expect(refused.messages.first?.title == "Staff mode is closed")
        #expect(!refused.contains(.wipeStore))
        // A venue code now is only a hint.
        let result10 = harness.run(.codeScanned(StationFixtures.cwaCode))
        #expect(result10.messages.first == StationTexts().venueCodeHint)
    }

    @Test func staffCardTogglesStaffMode() throws {
        var harness = MachineHarness()
        let staffEnrolled = harness.enrolStaffCard()
        let staff = try #require(staffEnrolled)
        harness.run(.cardRead(.card(staff)))
        #expect(harness.machine.mode != .visitor)
        harness.run(.cardRead(.card(staff)))
        #expect(harness.machine.mode == .visitor)
    }

    @Test(arguments: CreationVector.all.indices)
    func createVenueFollowsCWACreationRules(_ index: Int) throws {
        let vector = CreationVector.all[index]
        var harness = MachineHarness()
        // CWA's vectors date from 2021: an event is created while it runs (an ended one is not bound).
        if let start = Double(vector.draft.startTimestamp ?? ""), start > 0 {
            harness.clock.set(Date(timeIntervalSince1970: start))
        }
        harness.openStaff()
        let first = harness.send(.staffCommand(.createVenue(vector.draft)))
        if vector.valid {
            #expect(first == [.requestRandom(.venueSeed)], "\(vector.name)")
            let actions = harness.run(.randomGenerated(.venueSeed, .success([UInt8](repeating: 9, count: 16))))
            let venue = try #require(harness.machine.state.venue, "\(vector.name)")
            let url = try #require(venue.posterURL)
            let parsed = try VenueCodeParser(cwaDescriptors: CWAQRCodeDescriptor.production).parse(
                url, crypto: OpenSSLCrypto())
            #expect(parsed.cryptographicSeed == [UInt8](repeating: 9, count: 16))
            #expect(parsed.name == vector.draft.description)
            #expect(parsed.cwa?.type == Int(vector.draft.type ?? ""))
            #expect(actions.first == .persist(harness.machine.state))
            #expect(
                actions.printJobs == [
                    .venuePoster(
                        VenuePoster(
                            url: url, description: venue.description,
                            address: venue.address))
                ])
        } else {
            #expect(first.patterns == [.refused], "\(vector.name)")
            #expect(first.taps == 0 && !first.contains(.requestRandom(.venueSeed)))
            #expect(throws: VenueDraftError.self) { try vector.draft.validated() }
            let field = try #require(VenueDraftError.Field(rawValue: vector.errorFor ?? ""), "\(vector.name)")
            do {
                _ = try vector.draft.validated()
            } catch {
                #expect(error.fields.contains(field), "\(vector.name): \(error.fields)")
                #expect(first.messages.first?.body.contains(field.rule) == true)
            }
            #expect(harness.machine.state.venue == nil)
        }
    }

    @Test func createdVenueGetsItsSeedFromTheRunnerAndPrintsThePoster() throws {
        var harness = MachineHarness()
        harness.openStaff()
        harness.randomByte = 0x11
        let draft = VenueDraft(
            description: "Library", address: "Main St 1", type: "7", defaultCheckInLengthInMinutes: "90")
        let actions = harness.run(.staffCommand(.createVenue(draft)))
        #expect(actions.contains(.requestRandom(.venueSeed)))
        let venue = try #require(harness.machine.state.venue)
        #expect(venue.maximumStay == 90 * 60)
        #expect(venue.cwaFields?.type == 7)
        #expect(actions.printJobs.count == 1)
        #expect(harness.persisted?.venue == venue)
    }

    /// A venue made on the staff terminal reads back as typed: a name or address with a control or bidi character
    /// (which a venue code may not carry) is refused by its field, never made and then altered.
    @Test func aVenueFormWithControlCharactersIsRefusedByItsField() throws {
        for text in ["Bar\u{1B}[31m", "Caf\u{7F}e", "Hall\u{202E}", "Inn\u{0}", "Ba\u{9B}r"] {
            #expect(throws: VenueDraftError.self) {
                try VenueDraft(description: text, address: "Main St 1", type: "7").validated()
            }
            do {
                _ = try VenueDraft(description: "Library", address: text, type: "7").validated()
                Issue.record("accepted \(text.unicodeScalars.map(\.value))")
            } catch { #expect(error.fields.contains(.address) && !error.fields.contains(.description)) }
        }
    }

    /// Staff are told when the code they scan is of an event that has ended; the kiosk stays as it was.
    @Test func anEndedEventIsNotBound() throws {
        var harness = MachineHarness()
        let now = UInt64(harness.now.now.timeIntervalSince1970)
        func code(start: UInt64, end: UInt64) -> String {
            let fields = CWAVenueEncoder.Fields(
                description: "Concert", address: "Hall", type: 9, startTimestamp: start, endTimestamp: end,
                defaultCheckInLengthInMinutes: 120)
            return CWAVenueEncoder.url(
                payload: CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 7, count: 16)))
        }
        harness.openStaff()
        let ended = harness.run(.codeScanned(code(start: now - 7200, end: now - 60)))
        #expect(ended.messages.first?.title == "Venue not bound")
        #expect(ended.messages.first?.body.hasPrefix("This event ended on ") == true)
        #expect(ended.patterns == [.error])
        #expect(harness.machine.state.venue == nil)
        // An event still running binds.
        let running = harness.run(.codeScanned(code(start: now - 7200, end: now + 3600)))
        #expect(running.messages.first?.title == "Venue bound")
        #expect(harness.machine.state.venue != nil)
    }

    @Test func rotationIsRefusedWhileSomeoneIsCheckedIn() throws {
        var harness = MachineHarness()
        harness.bind()
        let before = try #require(harness.machine.state.venue)
        let card = StationFixtures.card()
        harness.run(.cardRead(.card(card)))
        harness.openStaff()
        let refused = harness.run(.staffCommand(.rotateVenueCode))
        #expect(refused.messages.first?.title == "Not now")
        #expect(refused.messages.first?.body.hasPrefix("1 visitor is still checked in") == true)
        #expect(refused.patterns == [.refused])
        #expect(harness.machine.state.venue == before)
        harness.run(.staffCommand(.leave))
        harness.clock.advance(by: 600)
        harness.run(.cardRead(.card(card)))  // checks out
        harness.openStaff()
        harness.randomByte = 0x77
        let rotated = harness.run(.staffCommand(.rotateVenueCode))
        let after = try #require(harness.machine.state.venue)
        #expect(after.locationId != before.locationId)
        #expect(after.description == before.description && after.address == before.address)
        #expect(after.maximumStay == before.maximumStay)
        #expect(rotated.printJobs.count == 1)
        #expect(harness.persisted?.venue == after)
    }

    @Test func bindingAnotherVenueIsRefusedWhileSomeoneIsCheckedInAndTheSameVenueIsNot() throws {
        var harness = MachineHarness()
        harness.bind()
        let before = try #require(harness.machine.state.venue)
        let card = StationFixtures.card()
        harness.run(.cardRead(.card(card)))
        harness.openStaff()
        // Another venue: their leaving tap would start a stay there. Refused, as renewing the code is.
        let other = harness.run(.codeScanned(StationFixtures.codes[2].1))
        #expect(other.messages.first?.title == "Not now")
        #expect(
            other.messages.first?.body.hasPrefix("1 visitor is still checked in here. Try again when everyone has left")
                == true)
        #expect(other.patterns == [.refused])
        #expect(harness.machine.state.venue == before)
        // The same venue again changes nothing and is not refused.
        let same = harness.run(.codeScanned(StationFixtures.cwaCode))
        #expect(same.messages.first?.title == "Venue bound")
        #expect(harness.machine.state.openCheckIns(at: harness.now.now) == 1)
        harness.run(.staffCommand(.leave))
        // Once the visitor has left, the other venue binds.
        harness.clock.advance(by: 600)
        harness.run(.cardRead(.card(card)))
        harness.openStaff()
        let later = harness.run(.codeScanned(StationFixtures.codes[2].1))
        #expect(later.messages.first?.title == "Venue bound")
        #expect(harness.machine.state.venue?.locationId != before.locationId)
    }

    @Test func rotationCountsStaysThatEndedByThemselves() {
        var harness = MachineHarness()
        harness.bind()
        harness.run(.cardRead(.card(StationFixtures.card())))
        harness.clock.advance(by: 121 * 60)  // the example venue's stays end after 120 minutes
        harness.openStaff()
        let result11 = harness.run(.staffCommand(.rotateVenueCode))
        #expect(result11.contains(.requestRandom(.rotatedVenueSeed)))
    }

    @Test func rotationOfANonCWAVenueIsExplained() {
        var harness = MachineHarness()
        harness.bind(StationFixtures.codes[2].1)
        harness.openStaff()
        let actions = harness.run(.staffCommand(.rotateVenueCode))
        #expect(actions.messages.first?.title == "Code not renewable here")
        #expect(actions.patterns == [.refused])
    }

    @Test func enrolmentWritesAFreshSecretThenPrintsItsPersonalCard() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.openStaff()
        let result12 = harness.run(.staffCommand(.enrolCard))
        #expect(result12.messages.first?.title == "Enrol a card")
        // An enrolled card is not enrolled again.
        let result13 = harness.run(.cardRead(.card(StationFixtures.card())))
        #expect(result13.messages.first?.title == "Already enrolled")
        harness.randomByte = 0x5A
        let actions = harness.run(.cardRead(.blank))
        let expected = try CardSecret(kind: .visitor, entropy: [UInt8](repeating: 0x5A, count: 16))
        #expect(actions.contains(.requestRandom(.cardEntropy)))
        #expect(actions.contains(.enrolCard(expected)))
        #expect(actions.printJobs == [.personalCard(expected)])
        #expect(
            actions.firstIndex(of: .enrolCard(expected))! < actions.firstIndex(of: .print(.personalCard(expected)))!)
        harness.run(.staffCommand(.leave))
        // The new card (or its printed code) checks in.
        let result14 = harness.run(.codeScanned(expected.printedText))
        #expect(result14.messages.first?.title == "Checked in")
    }

    @Test func failedEnrolmentSaysWhyAndWaitsForAnotherCard() {
        var harness = MachineHarness()
        harness.openStaff()
        harness.run(.staffCommand(.enrolCard))
        harness.enrolResult = .failure(.cardRemoved)
        let actions = harness.run(.cardRead(.damaged))
        #expect(actions.printJobs.isEmpty)
        #expect(actions.messages.last?.title == "Card not enrolled")
        #expect(actions.messages.last?.body.hasPrefix(StationFailure.cardRemoved.description) == true)
        #expect(actions.patterns == [.error])
        #expect(harness.machine.mode != .visitor)
        harness.enrolResult = .success(())
        let result15 = harness.run(.cardRead(.blank))
        #expect(result15.printJobs.count == 1)
    }

    @Test func wipeAsksFirstAndKeepsTheVenue() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.run(.cardRead(.card(StationFixtures.card())))
        harness.openStaff()
        let ask = harness.run(.staffCommand(.wipe(confirmed: false)))
        #expect(ask.messages.first?.title == "Wipe the kiosk?")
        #expect(!ask.contains(.wipeStore))
        let result16 = harness.run(.buttonPressed(.cancel))
        #expect(result16.messages.first?.title == "Not wiped")
        #expect(harness.store.allRows.count == 1)
        harness.run(.staffCommand(.wipe(confirmed: false)))
        let wiped = harness.run(.buttonPressed(.confirm))
        #expect(wiped.contains(.wipeStore))
        #expect(harness.store.allRows.isEmpty)
        #expect(harness.machine.state.venue != nil)
        #expect(harness.machine.state.openCheckInEnds.isEmpty)
        #expect(harness.persisted?.venue != nil)
        harness.run(.staffCommand(.wipe(confirmed: true, forgetVenue: true)))
        #expect(harness.machine.state.venue == nil)
        #expect(harness.persisted?.venue == nil)
    }

    @Test func unsavedBindingIsNotUsed() {
        var harness = MachineHarness()
        harness.openStaff()
        harness.persistResult = .failure(.store(.readOnly))
        let actions = harness.run(.codeScanned(StationFixtures.cwaCode))
        #expect(actions.messages.last?.title == "Settings not saved")
        #expect(harness.machine.state.venue == nil)
        harness.persistResult = .success(())
        let result17 = harness.run(.tick)
        #expect(result17.persistedStates.count == 1)
    }

    // MARK: Warnings

    /// A warning belongs to the card: the tap only says there is news for it; its days, its slip and its
    /// acknowledgement are in its holder's session, and nobody else's button acknowledges it.
    @Test func aWarningIsTheCardsAndIsReadOnlyInItsHoldersSession() throws {
        var harness = MachineHarness()
        harness.bind()
        let exposed = StationFixtures.card()
        let other = StationFixtures.card()
        try harness.desk.saveProfile(CardProfile(matchingAllowed: true), of: exposed)
        let day = RetentionPolicy.dayNumber(StationFixtures.start) - 3
        let notice = WarningNotice(
            acknowledgementTag: [UInt8](repeating: 3, count: 32), exposureDays: [day],
            isHighRisk: true, expiryHour: RetentionPolicy.hourNumber(StationFixtures.start) + 14 * 24)
        harness.warnings[exposed.printedText] = notice
        let dayText = VisitorTime(.en, zone: StationFixtures.zone).calendarDay(day)

        let first = harness.run(.cardRead(.card(exposed)))
        // The news has no light or sound of its own: bystanders (and a camera) see an ordinary tap.
        #expect(first.patterns == [.accepted])
        #expect(first.messages.map(\.title) == ["Checked in", StationTexts().newsForCard.title])
        // The news replaces "Checked in" on the screen, so it says it first.
        #expect(first.messages.last?.body.hasPrefix("Checked in. There is news for you.") == true, "\(first.messages)")
        #expect(!first.messages.contains { $0.body.contains(dayText) }, "no day on the public screen")
        #expect(first.printJobs.isEmpty, "no slip without its holder asking")
        #expect(harness.persisted?.warnings.first?.acknowledged == false)
        // The tap's screen offers the session while the card lies on the reader; the public screen has no day.
        let offered = harness.machine.screen(now: harness.now)
        #expect(offered.choices.map(\.id) == ["session", "language"])
        #expect(!offered.readingOrder.joined().contains(dayText))

        // Anyone's confirm does nothing to it.
        #expect(harness.run(.buttonPressed(.confirm)).isEmpty)
        #expect(harness.machine.state.warnings.first?.acknowledged == false)

        // The holder opens the session: the warning is there, with its day.
        harness.run(.chosen("session"))
        var screen = harness.machine.screen(now: harness.now)
        #expect(screen.isPrivate && screen.offers("warning"))
        harness.run(.chosen("warning"))
        screen = harness.machine.screen(now: harness.now)
        #expect(screen.lines.joined().contains(dayText))
        let slip = harness.run(.chosen("print-slip"))
        #expect(slip.printJobs == [.warningSlip(WarningSlip(exposureDays: [day], isHighRisk: true))])
        let acknowledged = harness.run(.chosen("acknowledge"))
        #expect(acknowledged.contains(.acknowledgeWarning(tag: notice.acknowledgementTag)))
        #expect(harness.persisted?.warnings.first?.acknowledged == true)
        // Taking the card away closes the session: nothing of it stays on the screen.
        harness.run(.cardRemoved)
        screen = harness.machine.screen(now: harness.now)
        #expect(!screen.isPrivate && !screen.readingOrder.joined().contains(dayText))

        // Not shown to a card without a match, and no more news once acknowledged.
        harness.clock.advance(by: 600)
        #expect(harness.run(.cardRead(.card(other))).patterns == [.accepted])
        harness.clock.advance(by: 600)
        let later = harness.run(.cardRead(.card(exposed)))
        #expect(!later.messages.contains { $0.title == StationTexts().newsForCard.title })
        #expect(later.printJobs.isEmpty)
    }

    /// A card whose holder did not allow matching is never matched: no warning at the tap, none in the session.
    @Test func aCardWithoutPermissionIsNeverMatched() throws {
        var harness = MachineHarness()
        harness.bind()
        let card = StationFixtures.card()
        let notice = WarningNotice(
            acknowledgementTag: [1], exposureDays: [RetentionPolicy.dayNumber(StationFixtures.start) - 1],
            isHighRisk: false, expiryHour: RetentionPolicy.hourNumber(StationFixtures.start) + 14 * 24)
        harness.warnings[card.printedText] = notice
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("session"))
        let screen = harness.machine.screen(now: harness.now)
        #expect(!screen.offers("warning"))
        #expect(screen.lines.contains { $0.contains("not checked against warnings") })
    }

    /// When the warnings could not all be read, the holder's session says so: no news must not read as no warning.
    @Test func aSessionSaysWhenTheStaysCouldNotBeCheckedAgainstEveryWarning() throws {
        var harness = MachineHarness()
        harness.bind()
        let card = StationFixtures.card()
        try harness.desk.saveProfile(CardProfile(matchingAllowed: true), of: card)
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("session"))
        let checked = harness.machine.screen(now: harness.now)
        #expect(!checked.lines.contains(Catalog.english[.sessionWarningsUnchecked]))
        harness.run(.chosen("done"))
        harness.run(.cardRemoved)

        harness.warningsUnchecked.insert(card.printedText)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        let unchecked = harness.machine.screen(now: harness.now)
        #expect(unchecked.lines.contains(Catalog.english[.sessionWarningsUnchecked]), "\(unchecked.lines)")
        #expect(!unchecked.offers("warning"))
    }

    @Test func expiryRunsAtStartAndHourly() {
        var harness = MachineHarness()
        let result21 = harness.run(.tick)
        #expect(result21.contains(.expireNow))
        harness.clock.advance(by: 1800)
        let result22 = harness.run(.tick)
        #expect(!result22.contains(.expireNow))
        harness.clock.advance(by: 1800)
        let result23 = harness.run(.tick)
        #expect(result23.contains(.expireNow))
    }

    @Test func whatRunsOutGoesFromTheSavedStateAtTheNextTick() {
        var harness = MachineHarness()
        harness.bind()
        let card = StationFixtures.card()
        try? harness.desk.saveProfile(CardProfile(matchingAllowed: true), of: card)
        harness.warnings[card.printedText] = WarningNotice(
            acknowledgementTag: [7], exposureDays: [RetentionPolicy.dayNumber(StationFixtures.start) - 1],
            isHighRisk: false, expiryHour: RetentionPolicy.hourNumber(StationFixtures.start) + 30)
        harness.run(.cardRead(.card(card)))
        #expect(harness.persisted?.openCheckInEnds.count == 1)
        #expect(harness.persisted?.warnings.count == 1)
        // Past the check-in's automatic end and the warning record's expiry hour: the next tick saves the state
        // without them, though no tap changed anything.
        harness.clock.advance(by: 31 * 3600)
        harness.run(.tick)
        #expect(harness.persisted?.openCheckInEnds.isEmpty == true)
        #expect(harness.persisted?.warnings.isEmpty == true)
    }

    @Test func stationStateRoundTripsThroughJSON() throws {
        var harness = MachineHarness()
        harness.bind()
        harness.run(.cardRead(.card(StationFixtures.card())))
        let state = harness.machine.state
        let decoded = try JSONDecoder().decode(StationState.self, from: JSONEncoder().encode(state))
        #expect(decoded == state)
    }
}

/// `cwa/transcribed/event-qr-code-creation-validation.json`: values may be numbers or numeric strings.
struct CreationVector: Sendable {
    let name: String
    let draft: VenueDraft
    let valid: Bool
    let errorFor: String?

    static let all: [CreationVector] = {
        let json =
            try! JSONSerialization.jsonObject(
                with: VectorFiles.data("cwa/transcribed/event-qr-code-creation-validation.json")) as! [String: Any]
        func text(_ value: Any?) -> String? {
            switch value {
            case let string as String: string
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
        return (json["cases"] as! [[String: Any]]).map { item in
            let location = item["locationData"] as! [String: Any]
            let vendor = item["vendorData"] as! [String: Any]
            return CreationVector(
                name: item["description"] as! String,
                draft: VenueDraft(
                    description: text(location["description"]), address: text(location["address"]),
                    type: text(vendor["type"]), startTimestamp: text(location["startTimestamp"]),
                    endTimestamp: text(location["endTimestamp"]),
                    defaultCheckInLengthInMinutes: text(vendor["defaultCheckInLengthInMinutes"])),
                valid: item["expIsValid"] as! Bool, errorFor: item["expErrorFor"] as? String)
        }
    }()
}
