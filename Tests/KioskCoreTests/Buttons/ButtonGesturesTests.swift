import KioskCore
import Testing

@Suite struct ButtonGesturesTests {
    enum Button: Hashable, Sendable { case left, right }
    static let second: UInt64 = 1_000_000_000

    @Test func aShortPressIsATapOnRelease() {
        var gestures = ButtonGestures<Button>(holdNanoseconds: 2 * Self.second)
        #expect(gestures.edge(.left, pressed: true, at: 10 * Self.second) == nil)
        #expect(gestures.nextDeadline == 12 * Self.second)
        #expect(gestures.due(at: 11 * Self.second).isEmpty)
        #expect(gestures.edge(.left, pressed: false, at: 11 * Self.second) == .tap(.left))
        #expect(gestures.nextDeadline == nil)
    }

    @Test func aHoldIsReportedOnceWhileTheButtonIsDownAndItsReleaseDoesNothing() {
        var gestures = ButtonGestures<Button>(holdNanoseconds: 2 * Self.second)
        _ = gestures.edge(.right, pressed: true, at: 0)
        #expect(gestures.due(at: 2 * Self.second - 1).isEmpty)
        #expect(gestures.due(at: 2 * Self.second) == [.hold(.right)])
        #expect(gestures.due(at: 5 * Self.second).isEmpty, "reported once")
        #expect(gestures.nextDeadline == nil)
        #expect(gestures.edge(.right, pressed: false, at: 6 * Self.second) == nil, "no tap after a hold")
    }

    @Test func aHoldNobodyPolledForIsStillAHoldAtRelease() {
        var gestures = ButtonGestures<Button>(holdNanoseconds: 2 * Self.second)
        _ = gestures.edge(.left, pressed: true, at: 0)
        #expect(gestures.edge(.left, pressed: false, at: 3 * Self.second) == .hold(.left))
    }

    @Test func theTwoButtonsAreTimedApartAndStrayEdgesAreIgnored() {
        var gestures = ButtonGestures<Button>(holdNanoseconds: 2 * Self.second)
        #expect(gestures.edge(.left, pressed: false, at: 0) == nil, "a release without a press")
        _ = gestures.edge(.left, pressed: true, at: 0)
        _ = gestures.edge(.right, pressed: true, at: Self.second)
        #expect(gestures.edge(.left, pressed: true, at: Self.second) == nil, "a repeated press keeps its start")
        #expect(gestures.due(at: 2 * Self.second) == [.hold(.left)])
        #expect(gestures.edge(.right, pressed: false, at: 2 * Self.second) == .tap(.right))
    }
}
