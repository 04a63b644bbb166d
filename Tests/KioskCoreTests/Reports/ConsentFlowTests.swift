import KioskCore
import Testing

/// The consent flow follows the Off-Device Venue Check-Ins specification's UI requirements 5–9 and leaves nothing behind on abort.
@Suite struct ConsentFlowTests {
    let now: Int64 = 1_615_000_000  // 2021-03-06 03:06:40 UTC
    var stays: [ReportableStay] {
        [
            ReportableStay(
                id: "a", venueName: "Bakery", locationId: [UInt8](repeating: 1, count: 32), start: now - 86_400,
                end: now - 86_400 + 3600),
            ReportableStay(
                id: "b", venueName: "Library", locationId: [UInt8](repeating: 2, count: 32), start: now - 2 * 86_400,
                end: now - 2 * 86_400 + 5 * 60),
            ReportableStay(
                id: "old", venueName: "Museum", locationId: [UInt8](repeating: 3, count: 32), start: now - 20 * 86_400,
                end: now - 20 * 86_400 + 3600),
        ]
    }

    @Test func staysAreListedNoneSelectedAndOlderThan14DaysLeftOut() {
        var flow = ConsentFlow(now: now)
        do {
            let accepted = flow.handle(.cardPresented(stays: stays))
            #expect(accepted)
        }
        guard case .selecting(let listed, let selected) = flow.state else {
            Issue.record("not selecting")
            return
        }
        #expect(selected.isEmpty)
        #expect(listed.map(\.id) == ["a", "b"])
        // Nothing selected: the holder cannot go on.
        do {
            let accepted = flow.handle(.confirmSelection)
            #expect(!accepted)
        }
    }

    @Test func fullFlowDisclosesThenAsksWithExactPreview() throws {
        var flow = ConsentFlow(now: now)
        flow.handle(.cardPresented(stays: stays))
        flow.handle(.toggle("a"))
        flow.handle(.toggle("b"))
        flow.handle(.toggle("b"))  // deselect again
        do {
            let accepted = flow.handle(.confirmSelection)
            #expect(accepted)
        }
        do {
            let accepted = flow.handle(.details(symptoms: .noInformation, output: .print))
            #expect(accepted)
        }
        guard case .disclosing(let preview) = flow.state else {
            Issue.record("no disclosure before the question")
            return
        }
        #expect(preview.items.map(\.stay.id) == ["a"])
        // The answer cannot come before the disclosure is read.
        do {
            let accepted = flow.handle(.answer(true))
            #expect(!accepted)
        }
        do {
            let accepted = flow.handle(.acknowledgeDisclosure)
            #expect(accepted)
        }
        guard case .asking(let asked) = flow.state else {
            Issue.record("not asking")
            return
        }
        #expect(asked.reportCount == 1)
        #expect(asked.dummyCount == 15)
        let report = try #require(asked.items.first?.reports.first)
        // 02:06:40–03:06:40 the day before: 60 min + 30 min decay → 9 intervals, aligned.
        #expect(report.period == 9)
        // How strongly the stay counts, in words: the level itself is not shown.
        let weight = Catalog.english[Preview.weight(ofLevel: report.transmissionRiskLevel)]
        #expect(asked.lines.contains { $0.contains(TimeText.intervalWindow(report)) && $0.hasSuffix(". " + weight) })
        #expect(asked.lines.contains { $0.contains("made-up records are mixed in") })
        do {
            let accepted = flow.handle(.answer(true))
            #expect(accepted)
        }
        guard case .consented(let plan) = flow.state else {
            Issue.record("not consented")
            return
        }
        #expect(plan.sealingPlan.count == 1)
        #expect(plan.sealingPlan[0].locationId == stays[0].locationId)
        do {
            let accepted = flow.handle(.outputFinished(.delivered(.print, reportCount: 1)))
            #expect(accepted)
        }
        #expect(flow.state == .finished(.delivered(.print, reportCount: 1)))
    }

    @Test func noIsFinalAndNothingIsKept() {
        var flow = ConsentFlow(now: now)
        flow.handle(.cardPresented(stays: stays))
        flow.handle(.toggle("a"))
        flow.handle(.confirmSelection)
        flow.handle(.details(symptoms: .noSymptoms, output: .export))
        flow.handle(.acknowledgeDisclosure)
        do {
            let accepted = flow.handle(.answer(false))
            #expect(accepted)
        }
        #expect(flow.state == .finished(.declined))
        do {
            let accepted = flow.handle(.outputFinished(.delivered(.export, reportCount: 1)))
            #expect(!accepted)
        }
    }

    @Test(arguments: 0..<6)
    func abortAtAnyStepEndsWithNothing(_ step: Int) {
        var flow = ConsentFlow(now: now)
        let events: [ConsentFlow.Event] = [
            .cardPresented(stays: stays), .toggle("a"), .confirmSelection,
            .details(symptoms: .noInformation, output: .upload(verificationCode: "ABC-123")), .acknowledgeDisclosure,
            .answer(true),
        ]
        for event in events.prefix(step) { flow.handle(event) }
        do {
            let accepted = flow.handle(.abort)
            #expect(accepted)
        }
        #expect(flow.state == .finished(.aborted))
    }

    @Test func theQuestionHasNoDefaultAndBothAnswersLookAlike() {
        #expect(ConsentFlow.answers().count == 2)
        #expect(Set(ConsentFlow.answers().map(\.answer)) == [true, false])
        // In every language the two labels are alike: plain words of a similar length, no emphasis, no marker, no
        // capitals beyond the first letter, neither naming itself the default (the screen draws every choice with one
        // style: ScreenPageTests/everyButtonLooksTheSame).
        for language in Language.allCases {
            let labels = ConsentFlow.answers(in: Catalog.of(language)).map(\.label)
            #expect(labels.count == 2 && Set(labels).count == 2, "\(language)")
            for label in labels {
                #expect(!label.isEmpty && label.count <= 40, "\(language): \(label)")
                #expect(!label.contains { "*!_[]()<>#".contains($0) }, "\(language): \(label)")
                #expect(label.dropFirst().allSatisfy { !$0.isUppercase }, "\(language): \(label)")
                #expect(!label.lowercased().contains("recommend") && !label.lowercased().contains("default"))
            }
            let lengths = labels.map(\.count)
            #expect(lengths.max()! <= 2 * lengths.min()! + 4, "\(language): \(labels)")
        }
        // Only an explicit answer leaves the question.
        var flow = ConsentFlow(now: now)
        flow.handle(.cardPresented(stays: stays))
        flow.handle(.toggle("a"))
        flow.handle(.confirmSelection)
        flow.handle(.details(symptoms: .noInformation, output: .print))
        flow.handle(.acknowledgeDisclosure)
        for event: ConsentFlow.Event in [
            .confirmSelection, .acknowledgeDisclosure, .toggle("a"), .outputFinished(.declined),
        ] {
            do {
                let accepted = flow.handle(event)
                #expect(!accepted)
            }
        }
        guard case .asking = flow.state else {
            Issue.record("left the question without an answer")
            return
        }
    }

    @Test func aStayTooShortToMatterLeadsToNothingToReport() {
        var flow = ConsentFlow(now: now)
        flow.handle(.cardPresented(stays: stays))
        flow.handle(.toggle("b"))
        flow.handle(.confirmSelection)
        flow.handle(.details(symptoms: .noInformation, output: .print))
        #expect(flow.state == .finished(.nothingToReport))
    }

    @Test func noStaysAtAll() {
        var flow = ConsentFlow(now: now)
        flow.handle(.cardPresented(stays: []))
        #expect(flow.state == .finished(.nothingToReport))
    }

    @Test func timeText() {
        #expect(TimeText.dateTime(unixSeconds: 0) == "1970-01-01 00:00")
        #expect(TimeText.dateTime(unixSeconds: 1_614_850_800) == "2021-03-04 09:40")
        #expect(TimeText.day(18690) == "2021-03-04")
        #expect(
            TimeText.intervalWindow(
                PresenceReport(startIntervalNumber: 18690 * 144 + 138, period: 6, transmissionRiskLevel: 5))
                == "23:00–24:00")
    }
}
