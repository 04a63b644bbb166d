import Foundation
import KioskCore
import Testing

@Suite struct FeedbackTableTests {
    @Test func defaultTableHasAValidSequenceForEveryPattern() throws {
        for pattern in IndicatorPattern.allCases {
            let sequence = FeedbackTable.default[pattern]
            try sequence.validate(as: pattern)
            #expect(sequence.totalMilliseconds > 0)
        }
        #expect(FeedbackTable.default.sequences.count == IndicatorPattern.allCases.count)
    }

    @Test func defaultPatternsAreDistinguishable() {
        let timelines = IndicatorPattern.allCases.map { FeedbackTable.default[$0] }
        #expect(Set(timelines).count == IndicatorPattern.allCases.count)
        #expect(FeedbackTable.default[.accepted].steps.first?.on == [.green, .buzzer])
        #expect(FeedbackTable.default[.refused].steps.allSatisfy { !$0.on.contains(.green) })
    }

    @Test func configurationOverridesOnePatternAndKeepsTheRest() throws {
        let json = Data(
            """
            {"accepted": {"steps": [{"on": ["green"], "ms": 2000}], "hold": ["green"]},
             "refused": {"steps": [{"on": ["red", "buzzer"], "ms": 100}, {"on": [], "ms": 100}], "repeat": 3}}
            """.utf8)
        let table = try FeedbackTable.decode(json: json)
        #expect(
            table[.accepted]
                == FeedbackSequence(
                    steps: [FeedbackStep(on: [.green], milliseconds: 2000)],
                    hold: [.green]))
        #expect(table[.refused].repeatCount == 3)
        #expect(table[.refused].totalMilliseconds == 600)
        #expect(table[.error] == FeedbackTable.default[.error])
    }

    @Test(arguments: [
        #"{"acepted": {"steps": [{"on": ["green"], "ms": 10}]}}"#,
        #"{"accepted": {"steps": [{"on": ["blue"], "ms": 10}]}}"#,
        #"{"accepted": {"steps": [{"on": ["green"]}]}}"#,
        #"{"accepted": {"steps": "green"}}"#,
        #"[1, 2]"#,
        #"not json"#,
    ])
    func malformedConfigurationIsRefused(json: String) {
        let error = #expect(throws: FeedbackTableError.self) { try FeedbackTable.decode(json: Data(json.utf8)) }
        guard case .malformed = error else {
            Issue.record("expected .malformed, got \(String(describing: error))")
            return
        }
    }

    @Test func unknownPatternErrorListsTheKnownNames() {
        let error = #expect(throws: FeedbackTableError.self) {
            try FeedbackTable.decode(json: Data(#"{"welcome": {"steps": [{"on": [], "ms": 1}]}}"#.utf8))
        }
        #expect(error?.description.contains("clockNotSet") == true)
    }

    @Test func limitsAreEnforced() {
        #expect(throws: FeedbackTableError.noSteps(.error)) {
            try FeedbackTable.default.overriding(with: [.error: FeedbackSequence(steps: [])])
        }
        #expect(throws: FeedbackTableError.stepTooLong(.accepted)) {
            try FeedbackTable.default.overriding(with: [
                .accepted: FeedbackSequence(steps: [FeedbackStep(on: [.buzzer], milliseconds: 60_000)])
            ])
        }
        #expect(throws: FeedbackTableError.patternTooLong(.warningPending)) {
            try FeedbackTable.default.overriding(with: [
                .warningPending: FeedbackSequence(
                    steps: [FeedbackStep(on: [.amber], milliseconds: 9000)],
                    repeatCount: 4)
            ])
        }
        #expect(throws: FeedbackTableError.badRepeatCount(.refused)) {
            try FeedbackTable.default.overriding(with: [
                .refused: FeedbackSequence(steps: [FeedbackStep(on: [.red], milliseconds: 10)], repeatCount: 0)
            ])
        }
    }

    @Test func timelineRepeatsMergesAndEndsInTheHoldState() {
        let sequence = FeedbackSequence(
            steps: [
                FeedbackStep(on: [.amber, .buzzer], milliseconds: 100),
                FeedbackStep(on: [.amber], milliseconds: 50),
                FeedbackStep(on: [.amber], milliseconds: 50),
                FeedbackStep(on: [], milliseconds: 0),
            ], repeatCount: 2, hold: [.amber])
        let timeline = sequence.timeline
        #expect(timeline.map(\.atMilliseconds) == [0, 100, 200, 300, 400])
        #expect(timeline.map(\.on) == [[.amber, .buzzer], [.amber], [.amber, .buzzer], [.amber], [.amber]])
    }

    @Test func timelineOfAPatternEndingDarkTurnsEverythingOff() {
        let timeline = FeedbackTable.default[.accepted].timeline
        #expect(timeline.first?.atMilliseconds == 0)
        #expect(timeline.last?.on == [])
        #expect(timeline.last?.atMilliseconds == FeedbackTable.default[.accepted].totalMilliseconds)
    }

    @Test func sequencesRoundTripThroughJSON() throws {
        for pattern in IndicatorPattern.allCases {
            let data = try JSONEncoder().encode(FeedbackTable.default[pattern])
            #expect(try JSONDecoder().decode(FeedbackSequence.self, from: data) == FeedbackTable.default[pattern])
        }
    }

    /// Without sound (the kiosk is speaking) every pattern keeps its lights and their times, and loses the buzzer.
    @Test func withoutSoundEveryPatternKeepsItsLightsAndLosesTheBuzzer() {
        let table = FeedbackTable.default
        for pattern in IndicatorPattern.allCases {
            let loud = table.timeline(for: [pattern, .warningPending])
            let quiet = table.timeline(for: [pattern, .warningPending], sound: false)
            #expect(!quiet.contains { $0.on.contains(.buzzer) }, "\(pattern)")
            #expect(quiet.last?.atMilliseconds == loud.last?.atMilliseconds, "\(pattern): same length")
            // At every moment the lights are what they are with sound.
            for time in stride(from: 0, through: loud.last?.atMilliseconds ?? 0, by: 10) {
                let withSound = loud.last { $0.atMilliseconds <= time }?.on.subtracting([.buzzer])
                #expect(quiet.last { $0.atMilliseconds <= time }?.on == withSound, "\(pattern) at \(time) ms")
            }
        }
        #expect(table.timeline(for: [.accepted]).contains { $0.on.contains(.buzzer) }, "with sound it beeps")
    }
}
