import KioskCore
import Testing

@testable import KioskDaemon

@Suite struct CardClaimTests {
    // A claim that outlived its timeout would hang the test past its time limit.
    @Test(.timeLimit(.minutes(1))) func aClaimNobodyAnswersEndsAtItsTimeoutAndLeavesNothingBehind() async {
        let claim = CardClaim()
        let read = await claim.next(timeout: .milliseconds(100))
        #expect(read == nil)
        // The withdrawn claim does not swallow the next card: it goes to the station.
        #expect(!claim.offer(.blank))
    }

    @Test func aWaitingClaimTakesTheNextCard() async throws {
        let claim = CardClaim()
        async let read = claim.next(timeout: .seconds(10))
        var offered = false
        for _ in 0..<200 where !offered {
            offered = claim.offer(.blank)
            if !offered { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(offered)
        #expect(await read == .blank)
    }
}
