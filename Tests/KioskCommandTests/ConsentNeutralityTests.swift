import Foundation
import KioskCore
import Testing

/// The consent question as a holder sees it at the staff console: yes and no are offered alike (the specification's
/// UI requirement 6: same size, colour, font and attributes), with no default and nothing that makes one stand out.
@Suite struct ConsentNeutralityTests {
    @Test func yesAndNoArePrintedAlikeWithNoDefaultAndNoEmphasis() throws {
        let reports = ReportCommandTests()
        let kiosk = try reports.makeKiosk()
        defer { kiosk.remove() }
        let result = try reports.report(kiosk, answers: ["1", "done", "symptoms", "export", "ok", "", "no"])
        #expect(result.status == 2, "stderr: \(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\n")
        let question = try #require(lines.lastIndex { $0.hasPrefix("Share these reports? Type yes or no:") })
        // The two answers, as listed just before the question.
        let choices = lines[..<question].suffix(4).filter { $0.hasPrefix("  ") }
        let yes = try #require(choices.first { $0.hasPrefix("  yes ") })
        let no = try #require(choices.first { $0.hasPrefix("  no ") })
        func layout(_ line: String) -> (indent: Int, labelColumn: Int) {
            let indent = line.prefix { $0 == " " }.count
            let afterAnswer = line.dropFirst(indent).drop { $0 != " " }
            return (indent, line.count - afterAnswer.drop { $0 == " " }.count)
        }
        #expect(layout(yes) == layout(no), "\(yes) | \(no)")
        let labels = ConsentFlow.answers().map(\.label)
        #expect(yes.hasSuffix(labels[0]) && no.hasSuffix(labels[1]))
        // Nothing singles one out: no escape sequences (colour, bold), no markers, no capitals beyond the first letter.
        #expect(!result.stdout.contains("\u{1B}"))
        for label in labels {
            #expect(!label.contains { "*![]()<>".contains($0) }, "\(label)")
            #expect(label.dropFirst().allSatisfy { !$0.isUppercase }, "\(label)")
        }
        // No default: an empty answer is asked again, and the question names both answers in the same way.
        #expect(result.stdout.contains("! Please answer yes or no: there is no default."))
        #expect(!result.stdout.contains("[Y/n]") && !result.stdout.contains("[y/N]"))
    }
}
