import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Staff cards open staff mode only when this kiosk enrolled them.
@Suite struct StaffCardTests {
    static let notOurs = "Not a staff card of this kiosk"

    @Test func aForgedStaffCardIsRefusedAndOpensNothing() throws {
        var harness = MachineHarness()
        // A tag with the staff kind byte and fresh randomness: what anyone can write.
        let forged = StationFixtures.card(.staff)
        let actions = harness.run(.cardRead(.card(forged)))
        #expect(actions.messages.map(\.title) == [Self.notOurs])
        #expect(actions.messages.first?.kind == .error)
        #expect(actions.patterns == [.refused])
        #expect(actions.persistedStates.isEmpty && actions.taps == 0)
        #expect(harness.machine.mode == .visitor)
        #expect(harness.run(.staffCommand(.wipe(confirmed: true))).messages.first?.title == "Staff mode is closed")

        // Another kiosk's staff card does not open this one either, even when this one has staff cards of its own.
        var other = MachineHarness()
        let theirsEnrolled = other.enrolStaffCard()
        let theirs = try #require(theirsEnrolled)
        _ = harness.enrolStaffCard()
        #expect(harness.machine.state.staffCards.count == 1)
        let refused = harness.run(.cardRead(.card(theirs)))
        #expect(refused.messages.map(\.title) == [Self.notOurs])
        #expect(harness.machine.mode == .visitor)
    }

    @Test func aForgedStaffCardDoesNotCloseOrChangeStaffMode() {
        var harness = MachineHarness()
        harness.openStaff()
        let actions = harness.run(.cardRead(.card(StationFixtures.card(.staff))))
        #expect(actions.patterns == [.refused])
        guard case .staff(.menu, _) = harness.machine.mode else {
            Issue.record("staff mode should stay open at the menu")
            return
        }
    }

    @Test func aPrintedStaffCardCodeNeverOpensStaffMode() throws {
        var harness = MachineHarness()
        let forged = StationFixtures.card(.staff)
        let actions = harness.run(.codeScanned(forged.printedText))
        #expect(actions.messages.map(\.title) == ["Not a staff card"])
        #expect(actions.messages.first?.body.contains("printed card code never opens staff mode") == true)
        #expect(actions.patterns == [.refused])
        #expect(harness.machine.mode == .visitor)

        // Not even the printed form of an enrolled staff card.
        let enrolment = harness.enrolStaffCard()
        let enrolled = try #require(enrolment)
        let printed = harness.run(.codeScanned(enrolled.printedText))
        #expect(printed.patterns == [.refused])
        #expect(harness.machine.mode == .visitor)
        // The card itself does.
        harness.run(.cardRead(.card(enrolled)))
        #expect(harness.machine.mode != .visitor)
    }

    @Test func anEnrolledStaffCardOpensAndClosesStaffMode() throws {
        var harness = MachineHarness()
        harness.openStaff()
        let prompt = harness.run(.staffCommand(.enrolStaffCard))
        #expect(prompt.messages.map(\.title) == ["Enrol a staff card"])
        let actions = harness.run(.cardRead(.blank))
        let secret = try #require(actions.compactMap { if case .enrolCard(let s) = $0 { s } else { nil } }.first)
        #expect(secret.kind == .staff)
        // Saved before it is announced; no personal QR card for a staff card.
        let persistIndex = try #require(actions.firstIndex { if case .persist = $0 { true } else { false } })
        let shownIndex = try #require(actions.firstIndex { $0 == .show(actions.messages.last!) })
        #expect(persistIndex < shownIndex)
        #expect(actions.messages.last?.title == "Staff card enrolled")
        #expect(actions.printJobs.isEmpty)
        // Kept as a digest, never the secret.
        let stored = try #require(harness.machine.state.staffCards.first)
        #expect(harness.machine.state.staffCards.count == 1)
        #expect(stored.count == 32)
        #expect(stored.firstRange(of: secret.entropy) == nil)
        #expect(harness.persisted?.staffCards == harness.machine.state.staffCards)
        harness.run(.staffCommand(.leave))
        #expect(harness.machine.mode == .visitor)

        let open = harness.run(.cardRead(.card(secret)))
        #expect(open.messages.first?.title == "Staff mode")
        #expect(open.patterns == [.accepted])
        guard case .staff(.menu, _) = harness.machine.mode else {
            Issue.record("staff mode not open")
            return
        }
        let close = harness.run(.cardRead(.card(secret)))
        #expect(close.messages.map(\.title) == ["Staff mode closed"])
        #expect(harness.machine.mode == .visitor)
    }

    @Test func visitorEnrolmentStillMakesVisitorCards() throws {
        var harness = MachineHarness()
        _ = harness.enrolStaffCard()
        harness.openStaff()
        harness.run(.staffCommand(.enrolCard))
        let actions = harness.run(.cardRead(.blank))
        let secret = try #require(actions.compactMap { if case .enrolCard(let s) = $0 { s } else { nil } }.first)
        #expect(secret.kind == .visitor)
        #expect(actions.printJobs == [.personalCard(secret)])
        #expect(harness.machine.state.staffCards.count == 1)
    }

    @Test func aStaffCardWhoseDigestWasNotSavedDoesNotOpen() throws {
        var harness = MachineHarness()
        harness.persistResult = .failure(.store(.storageFull))
        let secretEnrolled = harness.enrolStaffCard()
        let secret = try #require(secretEnrolled)
        #expect(harness.machine.state.staffCards.isEmpty)
        harness.persistResult = .success(())
        let actions = harness.run(.cardRead(.card(secret)))
        #expect(actions.messages.map(\.title) == [Self.notOurs])
        #expect(harness.machine.mode == .visitor)
    }

    @Test func wipeForgetsStaffCards() throws {
        var harness = MachineHarness()
        let secretEnrolled = harness.enrolStaffCard()
        let secret = try #require(secretEnrolled)
        harness.run(.cardRead(.card(secret)))
        let asked = harness.run(.staffCommand(.wipe(confirmed: false)))
        #expect(asked.messages.first?.body.contains("every staff card forgotten") == true)
        harness.run(.buttonPressed(.confirm))
        #expect(harness.machine.state.staffCards.isEmpty)
        #expect(harness.persisted?.staffCards.isEmpty == true)
        harness.run(.staffCommand(.leave))
        let actions = harness.run(.cardRead(.card(secret)))
        #expect(actions.messages.map(\.title) == [Self.notOurs])
        #expect(harness.machine.mode == .visitor)
    }

    @Test func forgettingStaffCardsNeedsAStaffCode() throws {
        var harness = MachineHarness()
        let secretEnrolled = harness.enrolStaffCard()
        let secret = try #require(secretEnrolled)
        let saved = try #require(harness.persisted)

        // Staff cards only, no staff code: forgetting them would lock everyone out.
        var cardsOnly = MachineHarness(configuration: StationConfiguration(), state: saved)
        cardsOnly.run(.cardRead(.card(secret)))
        #expect(cardsOnly.machine.mode != .visitor)
        let kept = cardsOnly.run(.staffCommand(.forgetStaffCards))
        #expect(kept.messages.map(\.title) == ["Staff cards kept"])
        #expect(kept.patterns == [.refused] && kept.persistedStates.isEmpty)
        #expect(cardsOnly.machine.state.staffCards.count == 1)

        // With a staff code it forgets them.
        harness.run(.cardRead(.card(secret)))
        let forgot = harness.run(.staffCommand(.forgetStaffCards))
        #expect(forgot.messages.map(\.title) == ["Staff cards forgotten"])
        #expect(forgot.persistedStates.map(\.staffCards) == [[]])
        harness.run(.staffCommand(.leave))
        #expect(harness.run(.cardRead(.card(secret))).patterns == [.refused])
        #expect(harness.machine.mode == .visitor)
    }

    @Test func statusSlipCountsStaffCardsOnly() throws {
        var harness = MachineHarness()
        _ = harness.enrolStaffCard()
        _ = harness.enrolStaffCard()
        harness.openStaff()
        let actions = harness.run(.staffCommand(.printStatus))
        guard case .statusSlip(let slip) = try #require(actions.printJobs.first) else {
            Issue.record("no status slip")
            return
        }
        #expect(slip.staffCards == 2)
    }

    @Test func aStateSavedBeforeStaffCardsStillLoads() throws {
        let state = StationState(
            openCheckInEnds: [StationFixtures.start], staffCards: [[UInt8](repeating: 1, count: 32)])
        let encoded = try JSONEncoder().encode(state)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["staffCards"] != nil)
        #expect(try JSONDecoder().decode(StationState.self, from: encoded) == state)
        object.removeValue(forKey: "staffCards")
        let old = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(StationState.self, from: old)
        #expect(decoded.staffCards.isEmpty)
        #expect(decoded.openCheckInEnds == state.openCheckInEnds)
    }
}

/// `venue.code`: binding the configured venue at start.
@Suite struct ConfiguredVenueTests {
    let crypto = OpenSSLCrypto()
    let configuration = StationConfiguration()
    var now: ClockReading { ClockReading(now: StationFixtures.start, isSynchronized: true) }

    @Test func bindsAnUnboundKioskAsStaffWould() throws {
        let next = try #require(
            try StationState.initial.bindingConfiguredVenue(
                StationFixtures.cwaCode, configuration: configuration, crypto: crypto, now: now))
        // The same binding as scanning the poster in staff mode.
        var harness = MachineHarness()
        harness.bind()
        #expect(next.venue == harness.machine.state.venue)
    }

    @Test func theSameVenueAgainChangesNothing() throws {
        let bound = try #require(
            try StationState.initial.bindingConfiguredVenue(
                StationFixtures.cwaCode, configuration: configuration, crypto: crypto, now: now))
        var withVisitors = bound
        withVisitors.openCheckInEnds = [StationFixtures.start.addingTimeInterval(3600)]
        #expect(
            try withVisitors.bindingConfiguredVenue(
                StationFixtures.cwaCode, configuration: configuration,
                crypto: crypto, now: now) == nil)
    }

    @Test func anotherVenueReplacesTheBoundOneOnlyWhenNobodyIsCheckedIn() throws {
        let bound = try #require(
            try StationState.initial.bindingConfiguredVenue(
                StationFixtures.cwaCode, configuration: configuration, crypto: crypto, now: now))
        let other = StationFixtures.codes[2].1
        var withVisitors = bound
        withVisitors.openCheckInEnds = [StationFixtures.start.addingTimeInterval(3600)]
        #expect(throws: ConfiguredVenueError.checkInsOpen(1)) {
            try withVisitors.bindingConfiguredVenue(other, configuration: configuration, crypto: crypto, now: now)
        }
        // An unsynchronized clock counts every entry as open.
        var ended = bound
        ended.openCheckInEnds = [StationFixtures.start.addingTimeInterval(-3600)]
        #expect(throws: ConfiguredVenueError.checkInsOpen(1)) {
            try ended.bindingConfiguredVenue(
                other, configuration: configuration, crypto: crypto,
                now: ClockReading(now: StationFixtures.start, isSynchronized: false))
        }
        let replaced = try #require(
            try ended.bindingConfiguredVenue(
                other, configuration: configuration,
                crypto: crypto, now: now))
        #expect(replaced.venue != nil && replaced.venue?.locationId != bound.venue?.locationId)
        #expect(replaced.openCheckInEnds.isEmpty)
        #expect(ConfiguredVenueError.checkInsOpen(2).description.contains("venue.code"))
    }

    @Test func aCodeTheParserRejectsIsRefusedNamingTheKeyNotTheCode() throws {
        let bad = "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVy"
        do {
            _ = try StationState.initial.bindingConfiguredVenue(
                bad, configuration: configuration, crypto: crypto, now: now)
            Issue.record("a broken code was bound")
        } catch {
            guard case .notUsable = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.description.hasPrefix("venue.code cannot be bound"))
            #expect(!error.description.contains("CAESEwgBEgdGcmlzZXVy"))
            #expect(!error.description.contains("coronawarn"))
        }
    }
}
