import KioskCore
import Testing

/// The day ratchet's decisions: its step's input, how far to step, which days are reachable.
@Suite struct DayRatchetTests {
    @Test func theStepInputIsTheConstantFittedToOneBlock() {
        #expect(DayRatchet.stepInput.count == 16)
        #expect(DayRatchet.stepInput == Array("kiosk day ratche".utf8))
    }

    @Test func advancingKeepsFourteenDaysAndNeverStepsBack() {
        #expect(DiaryRetention.oldestOpenDay(today: 100) == 86)
        #expect(DayRatchet.stepsToAdvance(from: 86, today: 100) == 0)
        #expect(DayRatchet.stepsToAdvance(from: 86, today: 101) == 1)
        // A kiosk off for a week takes a week of steps.
        #expect(DayRatchet.stepsToAdvance(from: 86, today: 107) == 7)
        // A clock set back moves nothing.
        #expect(DayRatchet.stepsToAdvance(from: 86, today: 90) == 0)
    }

    @Test func aDayIsReachableFromTheOldestUpToToday() {
        #expect(DayRatchet.stepsToReach(day: 86, from: 86, today: 100) == 0)
        #expect(DayRatchet.stepsToReach(day: 100, from: 86, today: 100) == 14)
        #expect(DayRatchet.stepsToReach(day: 101, from: 86, today: 100) == nil)
        #expect(DayRatchet.stepsToReach(day: 85, from: 86, today: 100) == nil)
        // The ratchet not moved yet: a day past its 14 days is refused all the same.
        #expect(DayRatchet.stepsToReach(day: 86, from: 80, today: 101) == nil)
        #expect(DayRatchet.stepsToReach(day: 87, from: 80, today: 101) == 7)
    }
}
