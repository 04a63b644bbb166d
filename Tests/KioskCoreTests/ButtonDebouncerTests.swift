import KioskCore
import Testing

@Suite struct ButtonDebouncerTests {
    static let ms: UInt64 = 1_000_000

    @Test func bouncingPressIsOnePress() {
        var debouncer = ButtonDebouncer(interval: .milliseconds(30))
        for (index, level) in [true, false, true, false, true].enumerated() {
            debouncer.edge(to: level, atNanoseconds: UInt64(index) * Self.ms)
            #expect(debouncer.settle(atNanoseconds: UInt64(index) * Self.ms + Self.ms / 2) == nil)
        }
        #expect(debouncer.deadlineNanoseconds == 34 * Self.ms)
        #expect(debouncer.settle(atNanoseconds: 33 * Self.ms) == nil)
        #expect(debouncer.settle(atNanoseconds: 34 * Self.ms) == true)
        #expect(debouncer.stableLevel)
        #expect(debouncer.deadlineNanoseconds == nil)
        #expect(debouncer.settle(atNanoseconds: 100 * Self.ms) == nil)
    }

    @Test func glitchShorterThanTheIntervalIsNothing() {
        var debouncer = ButtonDebouncer(interval: .milliseconds(30))
        debouncer.edge(to: true, atNanoseconds: 0)
        debouncer.edge(to: false, atNanoseconds: 5 * Self.ms)
        #expect(debouncer.settle(atNanoseconds: 40 * Self.ms) == nil)
        #expect(debouncer.stableLevel == false)
    }

    @Test func pressThenReleaseAreTwoEvents() {
        var debouncer = ButtonDebouncer(interval: .milliseconds(20))
        debouncer.edge(to: true, atNanoseconds: 0)
        #expect(debouncer.settle(atNanoseconds: 20 * Self.ms) == true)
        debouncer.edge(to: false, atNanoseconds: 500 * Self.ms)
        debouncer.edge(to: true, atNanoseconds: 501 * Self.ms)
        debouncer.edge(to: false, atNanoseconds: 502 * Self.ms)
        #expect(debouncer.settle(atNanoseconds: 521 * Self.ms) == nil)
        #expect(debouncer.settle(atNanoseconds: 522 * Self.ms) == false)
    }

    @Test func startsFromTheInitialLevel() {
        var debouncer = ButtonDebouncer(interval: .milliseconds(10), initialLevel: true)
        debouncer.edge(to: true, atNanoseconds: 0)
        #expect(debouncer.settle(atNanoseconds: 10 * Self.ms) == nil)
        debouncer.edge(to: false, atNanoseconds: 20 * Self.ms)
        #expect(debouncer.settle(atNanoseconds: 30 * Self.ms) == false)
    }
}
