import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Synchronization
import Testing

/// The report conversation: questions as values, typed answers, the consent rules kept, nothing left on abort.
@Suite struct ReportConversationTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_615_000_000  // 2021-03-06 03:06:40 UTC
    let bakery = [UInt8](repeating: 0xB0, count: 32)
    let library = [UInt8](repeating: 0x1B, count: 32)
    let card = try! CardSecret(kind: .visitor, entropy: [UInt8](repeating: 7, count: 16))

    var stays: [ReportableStay] {
        [
            ReportableStay(
                id: "b1", venueName: "Bakery, Main Street 1", locationId: bakery, start: now - 86_400,
                end: now - 86_400 + 3600),
            // Crosses midnight UTC two days ago: two reports.
            ReportableStay(
                id: "l1", venueName: "Library", locationId: library,
                start: (now / 86_400 - 2) * 86_400 - 3600, end: (now / 86_400 - 2) * 86_400 + 3600),
        ]
    }

    var onsetText: String { "onset " + TimeText.date(unixSeconds: now - 2 * 86_400) }

    func conversation(delivery: any ReportDelivering, stays: [ReportableStay]? = nil) -> ReportConversation {
        let listed = stays ?? self.stays
        return ReportConversation(now: now, delivery: delivery, crypto: crypto) { _ throws(StayLoadError) in listed }
    }

    @Test func scriptedExportWritesExactlyWhatThePreviewShowed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var conversation = self.conversation(delivery: ReportDelivery(exportDirectory: directory.path))
        let (ending, prompts) = await conversation.run(
            card: card, answers: ["1 2", "done", onsetText, "export", "ok", "yes"])

        #expect(prompts.map(\.kind) == [.staySelection, .staySelection, .symptoms, .output, .disclosure, .consent])
        #expect(prompts.allSatisfy { $0.problem == nil })
        // Listed newest first, none selected.
        #expect(prompts[0].lines.filter { $0.hasPrefix("[ ]") }.count == 2)
        #expect(!prompts[0].lines.contains { $0.hasPrefix("[x]") })
        #expect(prompts[0].lines[1].contains("Bakery") && prompts[0].lines[2].contains("Library"))
        #expect(prompts[1].lines.filter { $0.hasPrefix("[x]") }.count == 2)
        // The disclosure comes before the question, and the question shows the exact preview.
        #expect(prompts[4].lines == [ConsentFlow.disclosure()])
        let expected = try ConsentWalkthrough.consentedPreview(
            stays: stays, now: now, symptoms: .symptomOnset(day: now / 86_400 - 2), output: .export)
        #expect(prompts[5].lines == expected.lines)
        #expect(prompts[5].choices.map(\.answer) == ["yes", "no", "q"])
        #expect(prompts[5].lines.contains { $0.contains("made-up records") })

        #expect(ending.outcome == .delivered(.export, reportCount: 3))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let batchName = try #require(names.first { $0.hasSuffix(".ckpb") })
        let batch = try ReportBatch(
            bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + batchName))))
        var opened = [PresenceReport]()
        for venue in [bakery, library] {
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            for record in batch.records {
                for day in (now / 86_400 - 3)...(now / 86_400) {
                    if let report = try? CKPR.open(record, day: UInt32(day), keys: keys) { opened.append(report) }
                }
            }
        }
        #expect(Set(opened) == Set(expected.sealingPlan.map(\.report)))
        #expect(opened.count == 3)
    }

    @Test func badAnswersAreAskedAgainWithAReasonAndNoIsFinal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let delivery = RecordingDelivery(exportDirectory: directory.path)
        var conversation = self.conversation(delivery: delivery)
        let answers = [
            "", "7", "x", "done",  // selection: empty, out of range, not a number, nothing selected
            "1", "done",
            "", "onset 2099-01-01", "onset 2021-02-30", "onset", "banana",  // symptoms
            "none",
            // output: nothing printer, no authority
            "", "fax", "print", "upload ABCDE-FGHJK", "export /nonexistent/stick",
            "export",
            "", "sure",  // disclosure
            "ok",
            "", "maybe",  // consent: no default
            "no",
        ]
        let (ending, prompts) = await conversation.run(card: card, answers: answers)
        #expect(ending.outcome == .declined)
        #expect(delivery.deliveries.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let problems = prompts.compactMap(\.problem)
        #expect(problems.count == 18)
        #expect(problems[0].contains("numbers"))
        #expect(problems[1].contains("1 to 2"))
        #expect(problems[3].contains("Nothing is selected"))
        #expect(problems[4].contains("no default"))
        #expect(problems[5].contains("future"))
        #expect(problems[6].contains("not a day"))
        #expect(problems[7].contains("YYYY-MM-DD"))
        #expect(problems[10].contains("“fax”"))
        #expect(problems[11].contains("No receipt printer"))
        #expect(problems[12].contains("No health authority"))
        #expect(problems[13].contains("no folder"))
        #expect(problems.suffix(2).allSatisfy { $0.contains("yes or no") })
        #expect(problems.suffix(2).first?.contains("no default") == true)
        // Every re-ask is the same question again.
        #expect(prompts.last?.kind == .consent)
    }

    @Test(arguments: 0..<7)
    func stoppingAtAnyStepLeavesNothingBehind(_ step: Int) async throws {
        let script = ["1", "done", "none", "export", "ok", "yes"]
        for stop in [nil, "q"] as [String?] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let delivery = RecordingDelivery(exportDirectory: directory.path)
            var conversation = self.conversation(delivery: delivery)
            // `step` answers, then the end of input (nil) or q; step 6 stops only after the yes, when it is too late.
            let answers = Array(script.prefix(step)) + (stop.map { [$0] } ?? [])
            let (ending, _) = await conversation.run(card: card, answers: answers)
            if step < 6 {
                #expect(ending.outcome == .aborted)
                #expect(delivery.deliveries.isEmpty)
                #expect(ending.message.contains("Nothing was shared"))
            } else {
                #expect(ending.outcome == .delivered(.export, reportCount: 1))
                #expect(delivery.deliveries.count == 1)
            }
        }
    }

    @Test func aFailedUploadOffersOtherWaysAndAsksAgainBeforeEachSubmission() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let delivery = RecordingDelivery(
            exportDirectory: directory.path, canUpload: true, failures: [.upload(.unreachable), .upload(.unreachable)])
        var conversation = self.conversation(delivery: delivery)
        let (ending, prompts) = await conversation.run(
            card: card,
            answers: [
                "2", "done", "skip", "upload", "abc", "ABCDE-FGHJK", "ok", "yes",  // fails: unreachable
                "retry", "ok", "yes",  // fails again
                "fax", "export", "ok", "yes",  // another way
            ])
        #expect(ending.outcome == .delivered(.export, reportCount: 2))
        #expect(
            delivery.deliveries.map(\.output) == [
                .upload(verificationCode: "ABCDE-FGHJK"), .upload(verificationCode: "ABCDE-FGHJK"), .export,
            ])
        // The same reports each time.
        #expect(Set(delivery.deliveries.map { $0.reports }).count == 1)
        let kinds = prompts.map(\.kind)
        #expect(
            kinds == [
                .staySelection, .staySelection, .symptoms, .output, .verificationCode, .verificationCode, .disclosure,
                .consent,
                .afterFailure, .disclosure, .consent, .afterFailure, .afterFailure, .disclosure, .consent,
            ])
        let failure = try #require(prompts.first { $0.kind == .afterFailure })
        #expect(failure.lines.first == UploadError.unreachable.description)
        #expect(failure.choices.map(\.answer).contains("retry"))
        #expect(failure.choices.contains { $0.answer.hasPrefix("export") })
        // The last consent prompt shows the preview for the export.
        #expect(prompts.last?.lines.last?.contains("USB stick") == true)
    }

    @Test func theCardCodeIsAskedForAndCheckedBeforeAnyStayIsOpened() async throws {
        let loads = Mutex(0)
        let staff = try CardSecret(kind: .staff, entropy: [UInt8](repeating: 9, count: 16))
        let listed = stays
        var conversation = ReportConversation(
            now: now, delivery: RecordingDelivery(exportDirectory: nil), crypto: crypto
        ) { _ throws(StayLoadError) in
            loads.withLock { $0 += 1 }
            return listed
        }
        var typo = Array(card.printedText)
        typo[5] = typo[5] == "A" ? "B" : "A"
        let (ending, prompts) = await conversation.run(answers: [
            "", "hello", String(typo), staff.printedText, card.printedText.lowercased(), "q",
        ])
        #expect(ending.outcome == .aborted)
        #expect(prompts.map(\.kind) == [.cardCode, .cardCode, .cardCode, .cardCode, .cardCode, .staySelection])
        #expect(prompts[2].problem?.contains("not a kiosk card code") == true)
        #expect(prompts[3].problem?.contains("does not check out") == true)
        #expect(prompts[4].problem?.contains("staff card") == true)
        #expect(loads.withLock { $0 } == 1)
        // Error text never repeats the code.
        #expect(!prompts.compactMap(\.problem).contains { $0.contains(card.printedText) || $0.contains(String(typo)) })
    }

    @Test func nothingToReportEndsAtOnce() async throws {
        var empty = conversation(delivery: RecordingDelivery(exportDirectory: nil), stays: [])
        let (ending, prompts) = await empty.run(card: card, answers: [])
        #expect(ending.outcome == .nothingToReport)
        #expect(prompts.isEmpty)

        let short = ReportableStay(
            id: "s", venueName: "Kiosk", locationId: bakery, start: now - 3600, end: now - 3600 + 5 * 60)
        var tooShort = conversation(delivery: RecordingDelivery(exportDirectory: "/tmp"), stays: [short])
        let (shortEnding, _) = await tooShort.run(card: card, answers: ["1", "done", "none", "export"])
        #expect(shortEnding.outcome == .nothingToReport)
    }

    @Test func storeTroubleEndsWithItsMessage() async throws {
        var conversation = ReportConversation(
            now: now, delivery: RecordingDelivery(exportDirectory: nil), crypto: crypto
        ) { _ throws(StayLoadError) in
            throw StayLoadError("Check-ins are paused: the store is damaged.")
        }
        let (ending, _) = await conversation.run(card: card, answers: [])
        #expect(ending.outcome == .aborted)
        #expect(ending.message.contains("store is damaged"))
    }
}

/// A delivery that records what it was asked to send, failing with the given errors first.
final class RecordingDelivery: ReportDelivering, Sendable {
    struct Delivery: Sendable {
        let output: ReportOutput
        let reports: [PresenceReport]
        let records: Int
    }

    let canPrint = false
    let canUpload: Bool
    let defaultExportDirectory: String?
    private let state: Mutex<(deliveries: [Delivery], failures: [DeliveryError])>

    init(exportDirectory: String?, canUpload: Bool = false, failures: [DeliveryError] = []) {
        self.defaultExportDirectory = exportDirectory
        self.canUpload = canUpload
        self.state = Mutex(([], failures))
    }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    func deliver(
        _ batch: ReportBatch, preview: Preview, cwaSubmission: [UInt8]?, crowdNotifierUpload: [UInt8]?,
        exportDirectory: String?, language: Language, zone: VenueZone
    ) async throws(DeliveryError) -> String {
        let failure: DeliveryError? = state.withLock { state in
            state.deliveries.append(
                Delivery(
                    output: preview.output, reports: preview.sealingPlan.map(\.report), records: batch.records.count))
            return state.failures.isEmpty ? nil : state.failures.removeFirst()
        }
        if let failure { throw failure }
        return "done"
    }
}
