import KioskCore
import Testing

@Suite struct CodeDeduplicatorTests {
    @Test func framesWithoutCodesGiveNothing() {
        var deduplicator = CodeDeduplicator(framesToForget: 3)
        for _ in 0..<10 { #expect(deduplicator.frame([]).isEmpty) }
        #expect(deduplicator.remembered == 0)
    }

    @Test func aHeldCodeCountsOnce() {
        var deduplicator = CodeDeduplicator(framesToForget: 3)
        #expect(deduplicator.frame(["A"]) == ["A"])
        for _ in 0..<30 { #expect(deduplicator.frame(["A"]).isEmpty) }
    }

    @Test func shortDropoutsDoNotRepeatTheCode() {
        var deduplicator = CodeDeduplicator(framesToForget: 3)
        #expect(deduplicator.frame(["A"]) == ["A"])
        #expect(deduplicator.frame([]).isEmpty)
        #expect(deduplicator.frame([]).isEmpty)
        #expect(deduplicator.frame(["A"]).isEmpty)  // missing from 2 frames < 3: still the same sighting
    }

    @Test func aCodeThatLeftAndCameBackCountsAgain() {
        var deduplicator = CodeDeduplicator(framesToForget: 3)
        #expect(deduplicator.frame(["A"]) == ["A"])
        for _ in 0..<3 { #expect(deduplicator.frame([]).isEmpty) }
        #expect(deduplicator.remembered == 0)
        #expect(deduplicator.frame(["A"]) == ["A"])
    }

    @Test func codesAreTrackedIndependently() {
        var deduplicator = CodeDeduplicator(framesToForget: 2)
        #expect(deduplicator.frame(["A", "B", "A"]) == ["A", "B"])
        #expect(deduplicator.frame(["B"]).isEmpty)
        #expect(deduplicator.frame(["B"]).isEmpty)  // A now missing from 2 frames: forgotten
        #expect(deduplicator.frame(["A", "B", "C"]) == ["A", "C"])
    }

    @Test func resetForgetsEverything() {
        var deduplicator = CodeDeduplicator(framesToForget: 5)
        _ = deduplicator.frame(["A"])
        deduplicator.reset()
        #expect(deduplicator.frame(["A"]) == ["A"])
    }

    @Test func forgettingAfterOneFrame() {
        var deduplicator = CodeDeduplicator(framesToForget: 1)
        #expect(deduplicator.frame(["A"]) == ["A"])
        #expect(deduplicator.frame([]).isEmpty)
        #expect(deduplicator.frame(["A"]) == ["A"])
    }
}

@Suite struct RetryBackoffTests {
    @Test func doublesUpToTheCap() {
        var backoff = RetryBackoff(initial: .milliseconds(500), maximum: .seconds(30))
        let delays = (0..<10).map { _ in backoff.failed() }
        #expect(
            delays == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                .seconds(30), .seconds(30), .seconds(30), .seconds(30),
            ])
        #expect(backoff.failures == 10)
    }

    @Test func successStartsOver() {
        var backoff = RetryBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        _ = backoff.failed()
        _ = backoff.failed()
        backoff.succeeded()
        #expect(backoff.failed() == .milliseconds(100))
    }

    @Test func manyFailuresDoNotOverflow() {
        let backoff = RetryBackoff(initial: .milliseconds(500), maximum: .seconds(30))
        #expect(backoff.delay(afterFailures: 1_000_000) == .seconds(30))
        #expect(backoff.delay(afterFailures: 0) == .milliseconds(500))
    }
}

@Suite struct CameraUnavailableReasonTests {
    @Test(arguments: [
        CameraUnavailableReason.noCamera(device: "/dev/video0"), .unplugged(device: "/dev/video0"),
        .busy(device: "/dev/video0"), .permissionDenied(device: "/dev/video0"), .unsupported(device: "/dev/video0"),
        .failed(device: "/dev/video0", detail: "input/output error"),
    ])
    func everyReasonHasAMessageAndAFix(_ reason: CameraUnavailableReason) {
        #expect(reason.message.contains("/dev/video0"))
        #expect(reason.fix.count > 20)
        #expect(!reason.name.isEmpty && !reason.name.contains(" "))
    }
}
