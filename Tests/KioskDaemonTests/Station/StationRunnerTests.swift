import Foundation
import KioskCamera
import KioskCore
import KioskDaemon
import KioskOpenSSL
import KioskPrinter
import KioskSimulation
import Logging
import Synchronization
import Testing

/// The runner carries out the machine's actions in order over real ports' fakes (in-memory store, recording
/// indicator and printer) and reports failures clearly without losing anything.
@Suite struct StationRunnerTests {
    @Test func tapIsStoredBeforeItsLightAndReported() async throws {
        let bench = try StationBench()
        await bench.bind()
        #expect(bench.settings.saved?.venue?.description == "Friseur")
        let card = try bench.card()
        let report = await bench.runner.handle(.cardRead(.card(card)))
        guard case .tapRecorded(.checkedIn) = report.steps.first else {
            Issue.record("first step: \(report.steps)")
            return
        }
        #expect(report.shown.first?.title == "Checked in")
        #expect(report.indicated == [.accepted])
        #expect(bench.store.allRows.count == 1)
        #expect(await bench.indicator.patterns.suffix(1) == [.accepted])
        // The counter of open check-ins was saved after the feedback.
        #expect(report.steps.last == .persisted)
        #expect(bench.settings.saved?.openCheckInEnds.count == 1)
        let counters = await bench.runner.counters
        #expect(counters.taps == 1 && counters.checkIns == 1)

        bench.clock.advance(by: 3600)
        let out = await bench.runner.handle(.codeScanned(card.printedText))
        #expect(out.indicated == [.checkedOut])
        #expect(await bench.runner.counters.checkOuts == 1)
        #expect(bench.settings.saved?.openCheckInEnds.isEmpty == true)
    }

    @Test func fullStoreRefusesClearlyAndKeepsWhatWasStored() async throws {
        let bench = try StationBench()
        await bench.bind()
        let first = try bench.card()
        _ = await bench.runner.handle(.cardRead(.card(first)))
        let rows = bench.store.allRows
        bench.store.fail(with: .storageFull)
        bench.clock.advance(by: 600)
        let report = await bench.runner.handle(.cardRead(.card(try bench.card())))
        #expect(report.steps.first == .tapRecorded(.refused(.storeUnavailable(.storageFull))))
        #expect(report.shown.first?.body == StationTexts().refusal(.storeUnavailable(.storageFull)))
        #expect(report.indicated == [.error])
        #expect(bench.store.allRows == rows)
        #expect(await bench.runner.counters.refusals["storeUnavailable"] == 1)
        bench.store.heal()
        bench.clock.advance(by: 600)
        #expect(await bench.runner.handle(.cardRead(.card(first))).indicated == [.checkedOut])
    }

    @Test func unsavedSettingsStopTheBatch() async throws {
        let bench = try StationBench()
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        bench.settings.fail(with: .readOnly)
        let report = await bench.runner.handle(.codeScanned(StationBench.cwaCode))
        #expect(report.steps.first == .persistFailed(.store(.readOnly)))
        #expect(!report.shown.contains { $0.title == "Venue bound" })
        #expect(report.shown.last?.title == "Settings not saved")
        #expect(report.indicated == [.error])
        #expect(await bench.runner.state.venue == nil)
        bench.settings.heal()
        let retry = await bench.runner.handle(.codeScanned(StationBench.cwaCode))
        #expect(retry.steps.first == .persisted)
        #expect(bench.settings.saved?.venue != nil)
    }

    @Test func enrolmentPrintsAPersonalCardWhoseQRCodeIsTheCard() async throws {
        let bench = try StationBench()
        await bench.bind()
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.enrolCard))
        let report = await bench.runner.handle(.cardRead(.blank))
        #expect(report.steps.contains(.cardEnrolled))
        #expect(report.printed == [.personalCard])
        let enrolled = try #require(await bench.enroller.enrolled.first)
        #expect(enrolled.kind == .visitor)
        let receipt = try #require(await bench.printer.receipts.first)
        let rendering = try ESCPOSInterpreter.render(receipt, paper: .mm58)
        #expect(rendering.lines.map(\.text).joined().contains(enrolled.printedText))
        let scanner = try ZBarImageScanner()
        let codes = try scanner.scan(
            GreyImage(width: rendering.width, height: rendering.height, pixels: rendering.pixels))
        #expect(codes.map(\.text) == [enrolled.printedText])
        // The printed code checks in like the card.
        _ = await bench.runner.handle(.staffCommand(.leave))
        #expect(await bench.runner.handle(.codeScanned(codes[0].text)).indicated == [.accepted])
        #expect(await bench.runner.counters.enrolments == 1)
    }

    @Test func anEnrolledStaffCardStillOpensStaffModeAfterARestart() async throws {
        let settings = InMemoryStationStateStore()
        let before = try StationBench(settings: settings)
        _ = await before.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await before.runner.handle(.staffCommand(.enrolStaffCard))
        let enrol = await before.runner.handle(.cardRead(.blank))
        #expect(enrol.steps.contains(.cardEnrolled) && enrol.steps.contains(.persisted))
        #expect(enrol.printed.isEmpty)
        let staff = try #require(await before.enroller.enrolled.first)
        #expect(staff.kind == .staff)
        #expect(settings.saved?.staffCards.count == 1)
        // The logs name no card.
        #expect(!before.logLines.joined().contains(staff.printedText))

        // A new runner over the same saved state: the card opens and closes staff mode; a forged one does not.
        let after = try StationBench(settings: settings)
        let forged = await after.runner.handle(.cardRead(.card(try after.card(.staff))))
        #expect(forged.indicated == [.refused])
        #expect(await after.runner.mode == .visitor)
        let open = await after.runner.handle(.cardRead(.card(staff)))
        #expect(open.indicated == [.accepted])
        guard case .staff = await after.runner.mode else {
            Issue.record("staff mode not open after the restart")
            return
        }
        let slip = await after.runner.handle(.staffCommand(.printStatus))
        #expect(slip.printed == [.statusSlip])
        let receipt = try #require(await after.printer.receipts.first)
        let text = try ESCPOSInterpreter.render(receipt, paper: .mm58).lines.map(\.text).joined(separator: "\n")
        #expect(text.contains("Staff cards enrolled: 1"))
        _ = await after.runner.handle(.cardRead(.card(staff)))
        #expect(await after.runner.mode == .visitor)
    }

    @Test(arguments: [StationFailure.cardRemoved, .enrolment(reason: "this card type cannot be enrolled")])
    func failedEnrolmentIsExplainedAndNothingIsPrinted(_ failure: StationFailure) async throws {
        let bench = try StationBench()
        await bench.enroller.setFailure(failure)
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.enrolCard))
        let report = await bench.runner.handle(.cardRead(.blank))
        #expect(report.steps.contains(.enrolmentFailed(failure)))
        #expect(report.shown.last?.body.hasPrefix(StationTexts().failure(failure)) == true)
        #expect(report.indicated == [.error])
        #expect(report.printed.isEmpty)
        #expect(await bench.printer.receipts.isEmpty)
        // Still waiting for a card: the next blank card is enrolled.
        await bench.enroller.setFailure(nil)
        #expect(await bench.runner.handle(.cardRead(.blank)).printed == [.personalCard])
    }

    /// The configured code page (`receiptPrinter.codePage`) is the one every receipt selects.
    @Test(arguments: PrinterCodePage.allCases)
    func receiptsSelectTheConfiguredCodePage(codePage: PrinterCodePage) async throws {
        let bench = try StationBench(codePage: codePage)
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        #expect(await bench.runner.handle(.staffCommand(.printStatus)).printed == [.statusSlip])
        let receipt = try #require(await bench.printer.receipts.first)
        #expect(receipt.starts(with: [0x1B, 0x40, 0x1B, 0x74, codePage.escposTable]))
        #expect(try ESCPOSInterpreter.render(receipt, paper: .mm58).codePage == codePage)
    }

    @Test func missingPrinterIsReportedAndNothingPrintsLater() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("station-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/printer"
        let bench = try StationBench(printer: AttendedPrinter(device: PrinterDevice(path: path)))
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        let report = await bench.runner.handle(.staffCommand(.printStatus))
        guard case .printFailed(.statusSlip, .printer(let reason)) = report.steps.first else {
            Issue.record("steps: \(report.steps)")
            return
        }
        #expect(reason.contains("plug it in"))
        #expect(report.shown.first?.title == "Not printed")
        #expect(report.shown.first?.body.contains("Nothing will be printed later") == true)
        #expect(report.indicated == [.error])
        #expect(await bench.runner.counters.printFailures == 1)

        // The printer comes back; staff do something else. Nothing of the failed slip comes out on its own.
        FileManager.default.createFile(atPath: path, contents: nil)
        _ = await bench.runner.handle(.tick)
        _ = await bench.runner.handle(.staffCommand(.enrolCard))
        #expect(FileManager.default.contents(atPath: path)?.isEmpty == true)
    }

    /// A personal QR card that does not print is offered again at once: confirm prints it now; a later receipt,
    /// anyone's, never carries it.
    @Test func aPersonalCardThatDidNotPrintIsOfferedAgainNowAndNeverPrintsLater() async throws {
        let bench = try StationBench()
        await bench.printer.setFailure(.notFound(path: "/dev/kiosk-printer"))
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.enrolCard))
        let enrol = await bench.runner.handle(.cardRead(.blank))
        #expect(
            enrol.steps.contains(
                .printFailed(
                    .personalCard, .printer(reason: PrinterError.notFound(path: "/dev/kiosk-printer").description))))
        let offer = try #require(enrol.shown.last)
        #expect(offer.title == "Not printed")
        #expect(offer.body.contains("personal QR card") && offer.body.contains("Press confirm to try again now"))
        #expect(!offer.body.contains("kept"))

        // The printer is fixed and the holder presses confirm: the same card code prints, once.
        await bench.printer.setFailure(nil)
        let retry = await bench.runner.handle(.buttonPressed(.confirm))
        #expect(retry.printed == [.personalCard])
        let enrolled = try #require(await bench.enroller.enrolled.first)
        let lines = try await bench.printer.lines()
        #expect(lines.count == 1)
        #expect(lines.first?.joined().contains(enrolled.printedText) == true)
        // A second press does nothing more: the offer was used.
        #expect(await bench.runner.handle(.buttonPressed(.confirm)).printed.isEmpty)
        #expect(await bench.printer.receipts.count == 1)
    }

    @Test func aReceiptOfferedAgainIsDroppedOnCancelOrWhenTheOfferRunsOut() async throws {
        for answer in ["cancel", "timeout", "leave"] {
            let bench = try StationBench()
            await bench.printer.setFailure(.outOfPaper(path: "/dev/kiosk-printer"))
            _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
            _ = await bench.runner.handle(.staffCommand(.enrolCard))
            _ = await bench.runner.handle(.cardRead(.blank))
            await bench.printer.setFailure(nil)
            switch answer {
            case "cancel":
                let cancelled = await bench.runner.handle(.buttonPressed(.cancel))
                #expect(cancelled.shown.last?.body == "Nothing was printed, and nothing will be printed later.")
            case "timeout":
                bench.clock.advance(by: StationConfiguration().sessionInactivity + 1)
                _ = await bench.runner.handle(.tick)
            default:
                _ = await bench.runner.handle(.staffCommand(.leave))
            }
            // Confirm now prints nothing: the card code is gone from the kiosk.
            _ = await bench.runner.handle(.buttonPressed(.confirm))
            _ = await bench.runner.handle(.tick)
            #expect(await bench.printer.receipts.isEmpty, "\(answer)")
        }
    }

    /// A receipt offered again waits the venue's time to answer, says twenty seconds before the end that it will
    /// stop waiting, with a tone, and “More time” gives it that time again.
    @Test func aReceiptOfferedAgainWarnsBeforeItEndsAndMoreTimeKeepsIt() async throws {
        let bench = try StationBench()
        await bench.printer.setFailure(.outOfPaper(path: "/dev/kiosk-printer"))
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.printStatus))
        await bench.printer.setFailure(nil)
        let wait = StationConfiguration().sessionInactivity
        bench.clock.advance(by: wait - CheckInMachine.timeWarning - 1)
        #expect(await bench.runner.handle(.tick).indicated.isEmpty)
        bench.clock.advance(by: 1)
        #expect(await bench.runner.handle(.tick).indicated == [.timeRunningOut])
        let warned = await bench.runner.screen()
        #expect(warned.offers("confirm") && warned.offers("more-time"), "\(warned.choices)")
        _ = await bench.runner.handle(.chosen("more-time"))
        bench.clock.advance(by: wait - 1)
        _ = await bench.runner.handle(.tick)
        _ = await bench.runner.handle(.chosen("confirm"))
        #expect(await bench.printer.receipts.count == 1, "still offered after more time, and printed now")
    }

    /// Paper speaks the language of the person at the kiosk: chosen on the idle screen, a slip prints in it (its
    /// bytes decoded back to the catalog's texts); once the kiosk is left alone, the kiosk's own language again.
    @Test(arguments: [Language.de, .fr, .it])
    func aReceiptPrintsInTheLanguageChosenAtTheKiosk(_ language: Language) async throws {
        let bench = try StationBench()
        await bench.bind()
        _ = await bench.runner.handle(.chosen("language"))
        _ = await bench.runner.handle(.chosen("language:\(language.rawValue)"))
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.printStatus))
        let texts = Catalog.of(language)
        // A no-break space prints as a space on paper.
        func printed(_ key: TextKey) -> String { texts[key].replacingOccurrences(of: "\u{00A0}", with: " ") }
        let lines = try #require(try await bench.printer.lines().last)
        #expect(lines.contains(printed(.receiptStatusTitle)), "\(lines)")
        #expect(lines.contains(printed(.receiptStatusClockSynchronized)))
        #expect(!lines.contains(Catalog.english[.receiptStatusTitle]))
        _ = await bench.runner.handle(.staffCommand(.leave))
        bench.clock.advance(by: CheckInMachine.visitorLanguageTime + 1)
        _ = await bench.runner.handle(.tick)
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        _ = await bench.runner.handle(.staffCommand(.printStatus))
        #expect(try await bench.printer.lines().last?.contains(Catalog.english[.receiptStatusTitle]) == true)
    }

    @Test func statusSlipCarriesCountsAndNoVenueName() async throws {
        let bench = try StationBench()
        await bench.bind()
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        let report = await bench.runner.handle(.staffCommand(.printStatus))
        #expect(report.printed == [.statusSlip])
        let lines = try #require(try await bench.printer.lines().first)
        let fingerprint = try #require(await bench.runner.state.venue?.fingerprint)
        #expect(lines.contains("Venue: Corona-Warn-App"))
        #expect(lines.contains("Venue code: \(fingerprint)"))
        #expect(lines.contains("Checked in now: 1"))
        #expect(lines.contains("Stored stays: 1"))
        #expect(lines.contains("Clock: synchronized"))
        #expect(!lines.joined().contains("Friseur") && !lines.joined().contains("Berlin"))
    }

    @Test func tapsAreMatchedOnlyWhileWarningsAreHeld() async throws {
        let bench = try StationBench()
        await bench.bind()
        let card = try bench.card(matching: true)
        let locationId = try #require(await bench.runner.state.venue?.locationId)
        _ = await bench.runner.handle(.cardRead(.card(card)))
        #expect(bench.warnings.matchCalls.withLock { $0 } == 0)
        try bench.warnings.publish(
            locationId: locationId, start: bench.clock.read().now.addingTimeInterval(-86_400), minutes: 60)
        bench.clock.advance(by: 3600)
        let tap = await bench.runner.handle(.cardRead(.card(card)))
        #expect(tap.indicated == [.checkedOut])
        #expect(bench.warnings.matchCalls.withLock { $0 } == 1)
    }

    @Test func warningFromThePublishedReportsIsShownUntilAcknowledged() async throws {
        let bench = try StationBench()
        await bench.bind()
        let exposed = try bench.card(matching: true)
        let other = try bench.card(matching: true)
        let locationId = try #require(await bench.runner.state.venue?.locationId)
        // Exposed visits 10:00–11:00; the other card comes at 14:00. A positive visitor was there 10:00–11:00.
        _ = await bench.runner.handle(.cardRead(.card(exposed)))
        bench.clock.advance(by: 3600)
        _ = await bench.runner.handle(.cardRead(.card(exposed)))
        try bench.warnings.publish(
            locationId: locationId, start: bench.clock.read().now.addingTimeInterval(-3600), minutes: 60)
        bench.clock.advance(by: 3 * 3600)
        let unrelated = await bench.runner.handle(.cardRead(.card(other)))
        #expect(!unrelated.shown.contains { $0.title == StationTexts().newsForCard.title })

        bench.clock.advance(by: 86_400)
        let tap = await bench.runner.handle(.cardRead(.card(exposed)))
        // News for the card in words only: its light and sound are an ordinary tap's (bystanders learn nothing).
        #expect(tap.indicated == [.accepted])
        #expect(tap.shown.map(\.title) == ["Checked in", StationTexts().newsForCard.title])
        // Nothing printed and no day on the public screen: only that there is news for this card.
        #expect(tap.printed.isEmpty)
        // The day as the holder reads it (natural, in the venue's zone, no-break spaces inside).
        let day = "Monday\u{00A0}2\u{00A0}March"
        #expect(!(await bench.runner.screen()).readingOrder.joined().contains(day))
        #expect(!(await bench.runner.screen()).readingOrder.joined().contains("2026-03-02"))
        // The holder, card still on the reader, opens the session, reads it and asks for the slip.
        _ = await bench.runner.handle(.chosen("session"))
        _ = await bench.runner.handle(.chosen("warning"))
        #expect((await bench.runner.screen()).lines.joined().contains(day))
        let printed = await bench.runner.handle(.chosen("print-slip"))
        #expect(printed.printed == [.warningSlip])
        let slip = try #require(try await bench.printer.lines().last)
        #expect(slip.contains { $0.replacingOccurrences(of: "\u{00A0}", with: " ") == "Monday 2 March" }, "\(slip)")
        #expect(!slip.joined().contains("Friseur") && !slip.joined().contains("Berlin"))
        // Counted nowhere: a counter that rose at this tap would say a warning was printed for this visitor.
        let counters = await bench.runner.counters
        #expect(counters.prints == 0 && counters.printFailures == 0)
        let ack = await bench.runner.handle(.chosen("acknowledge"))
        #expect(ack.steps.contains(.warningAcknowledged))
        #expect(bench.settings.saved?.warnings.first?.acknowledged == true)
        _ = await bench.runner.handle(.cardRemoved)
        bench.clock.advance(by: 3600)
        let later = await bench.runner.handle(.cardRead(.card(exposed)))
        #expect(later.indicated == [.checkedOut])
        #expect(later.printed.isEmpty)
    }

    /// At the daemon's default level (info) the log is no visit log: no line per tap, and no line says that a
    /// warning was shown or its slip printed (the journal stamps every line with its time).
    @Test func theDefaultLogLevelKeepsNoLinePerTapAndNoWordOfAWarning() async throws {
        let bench = try StationBench(logLevel: .info)
        let card = try await Self.cardCheckedInWhereAWarningWasPublished(bench)
        let warned = await bench.runner.handle(.cardRead(.card(card)))
        #expect(warned.shown.contains { $0.title == StationTexts().newsForCard.title })
        // Its holder reads it and prints the slip in the session: no line says so either.
        _ = await bench.runner.handle(.chosen("session"))
        _ = await bench.runner.handle(.chosen("warning"))
        #expect(await bench.runner.handle(.chosen("print-slip")).printed == [.warningSlip])
        _ = await bench.runner.handle(.chosen("acknowledge"))
        _ = await bench.runner.handle(.cardRemoved)
        bench.clock.advance(by: 3600)
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        // Expiry runs as the hour begins: no count of what it deleted stays in the journal either.
        bench.clock.advance(by: 15 * 86_400)
        let expired = await bench.runner.handle(.tick)
        #expect(expired.steps.contains { if case .expired(let count) = $0 { count > 0 } else { false } })
        let text = bench.logLines.joined(separator: "\n").lowercased()
        #expect(!text.contains("expir"), "\(bench.logLines)")
        #expect(!text.contains("tap"), "\(bench.logLines)")
        #expect(!text.contains("warning"), "\(bench.logLines)")
        #expect(!text.contains("receipt"), "\(bench.logLines)")
    }

    /// Binds the bench, checks a card in, publishes a warning for that hour and lets the hour pass: the card's next
    /// tap checks out and finds the warning.
    static func cardCheckedInWhereAWarningWasPublished(_ bench: StationBench) async throws -> CardSecret {
        await bench.bind()
        let card = try bench.card(matching: true)
        let locationId = try #require(await bench.runner.state.venue?.locationId)
        _ = await bench.runner.handle(.cardRead(.card(card)))
        try bench.warnings.publish(locationId: locationId, start: bench.clock.read().now, minutes: 60)
        bench.clock.advance(by: 3600)
        return card
    }

    /// UI-4B: a holder's deletion takes what the station derived from their stays with it — the record of their
    /// warning (its tag, expiry hour, acknowledgement) goes from memory and from the saved state.
    @Test func deletingEverythingDeletesTheCardsWarningRecordToo() async throws {
        let bench = try StationBench()
        let card = try await Self.cardCheckedInWhereAWarningWasPublished(bench)
        _ = await bench.runner.handle(.cardRead(.card(card)))
        let records = await bench.runner.state.warnings
        #expect(records.count == 1 && records.allSatisfy { $0.owner != nil }, "\(records)")
        _ = await bench.runner.handle(.chosen("session"))
        _ = await bench.runner.handle(.chosen("delete"))
        _ = await bench.runner.handle(.chosen("delete-all"))
        _ = await bench.runner.handle(.chosen("delete"))
        #expect(await bench.runner.state.warnings.isEmpty)
        #expect(bench.settings.saved?.warnings.isEmpty == true, "gone from the saved state too")
        let desk = CheckInDesk(store: bench.store, crypto: OpenSSLCrypto())
        #expect(try desk.contents(of: card, clock: bench.clock.read()).stays.isEmpty)
    }

    @Test func aTapWithWarningsHeldOpensTheCardsStaysOnce() async throws {
        let bench = try StationBench()
        let card = try await Self.cardCheckedInWhereAWarningWasPublished(bench)
        let reads = bench.store.readCount
        let tap = await bench.runner.handle(.cardRead(.card(card)))
        #expect(tap.indicated == [.checkedOut])
        #expect(tap.shown.last?.title == StationTexts().newsForCard.title)
        #expect(bench.store.readCount == reads + 1)
        #expect(bench.warnings.matchCalls.withLock { $0 } == 1)
    }

    @Test func refusalsAreCountedByReasonOnly() async throws {
        let bench = try StationBench()
        // Not set up: a visitor card finds no venue.
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        await bench.bind()
        _ = await bench.runner.handle(.cardRead(.blank))
        _ = await bench.runner.handle(.cardRead(.damaged))
        _ = await bench.runner.handle(.codeScanned("https://example.org/not-a-code"))
        bench.store.fail(with: .storageFull)
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        bench.store.heal()
        bench.clock.setSynchronized(false)
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        let refusals = await bench.runner.counters.refusals
        #expect(
            refusals == [
                "venueNotSetUp": 1, "blankCard": 1, "damagedCard": 1, "codeRefused": 1,
                "storeUnavailable": 1, "clockNotSynchronized": 1,
            ])
        // No key is a light pattern.
        #expect(Set(refusals.keys).isDisjoint(with: IndicatorPattern.allCases.map(\.rawValue)))
    }

    @Test func restartKeepsTheVenueAndWipeKeepsSettings() async throws {
        let bench = try StationBench()
        await bench.bind()
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        let restarted = try StationBench(settings: bench.settings)
        #expect(await restarted.runner.state == bench.settings.saved)
        #expect(await restarted.runner.state.venue?.description == "Friseur")
        _ = await bench.runner.handle(.codeScanned("STAFF-CODE-1"))
        let wipe = await bench.runner.handle(.staffCommand(.wipe(confirmed: true)))
        #expect(wipe.steps.first == .storeWiped)
        #expect(bench.store.allRows.isEmpty)
        #expect(bench.settings.saved?.venue != nil)
        #expect(bench.settings.saved?.openCheckInEnds.isEmpty == true)
    }

    @Test func expiryRunsOnTheFirstTickAndIsCounted() async throws {
        let bench = try StationBench()
        let report = await bench.runner.handle(.tick)
        #expect(report.steps == [.expired(0)])
        #expect(await bench.runner.counters.expiryRuns == 1)
    }

    @Test func logsCarryNoVenueOrCardData() async throws {
        let bench = try StationBench()
        await bench.bind()
        let card = try bench.card()
        _ = await bench.runner.handle(.cardRead(.card(card)))
        _ = await bench.runner.handle(.codeScanned("https://example.org/not-a-code"))
        bench.clock.advance(by: 600)
        _ = await bench.runner.handle(.codeScanned(card.printedText))
        let text = bench.logLines.joined(separator: "\n")
        #expect(text.contains("Tap served"))
        for secret in ["Friseur", "Berlin", card.printedText, "STAFF-CODE-1", "example.org", "coronawarn"] {
            #expect(!text.contains(secret), "log contains \(secret)")
        }
        let venue = try #require(await bench.runner.state.venue)
        #expect(!text.contains(Hex.encode(venue.locationId)))
    }

    /// Nothing sounds over speech (EN 301 549 5.1.3.10): while the kiosk speaks for the person at it, a tap's
    /// pattern plays its lights without the buzzer, and the screen's words are said instead; without speech the
    /// buzzer sounds as before, for the next person too (speech was not theirs).
    @Test func theBuzzerIsSilentWhileTheKioskSpeaks() async throws {
        let bench = try StationBench()
        await bench.bind()
        _ = await bench.runner.handle(.cardRead(.card(try bench.card())))
        let beeped = try #require(await bench.indicator.history.played.last)
        #expect(beeped.pattern == .accepted && beeped.sound)
        #expect(await bench.indicator.states.contains { $0.contains(.buzzer) })
        // That visitor leaves; the next one asks for speech, then taps.
        _ = await bench.runner.handle(.cardRemoved)
        _ = await bench.runner.handle(.speakRequested)
        let report = await bench.runner.handle(.cardRead(.card(try bench.card())))
        let quiet = try #require(await bench.indicator.history.played.last)
        #expect(quiet.pattern == .accepted && !quiet.sound)
        // The newest pattern's states are the last ones recorded, in full.
        let timeline = FeedbackTable.default.timeline(for: [.accepted], sound: false).map(\.on)
        let states = await bench.indicator.states.suffix(timeline.count)
        #expect(Array(states) == timeline)
        #expect(states.contains { $0.contains(.green) }, "the light still shows")
        #expect(!states.contains { $0.contains(.buzzer) }, "no beep over speech")
        let said = report.steps.compactMap { if case .spoke(.say(let text, _, _)) = $0 { text } else { nil } }
        #expect(said.first?.hasPrefix("Checked in") == true, "the result is said instead: \(report.steps)")
        // Another card is another person: their tap beeps and is not said.
        let next = await bench.runner.handle(.cardRead(.card(try bench.card())))
        let loud = try #require(await bench.indicator.history.played.last)
        #expect(loud.pattern == .accepted && loud.sound)
        #expect(!next.steps.contains { if case .spoke(.say) = $0 { true } else { false } })
    }
}
