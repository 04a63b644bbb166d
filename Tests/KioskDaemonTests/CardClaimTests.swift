import KioskCore
import Testing

@testable import KioskDaemon

@Suite struct CardClaimTests {
    // A claim that outlived its timeout would hang the test past its time limit.
    @Test(.timeLimit(.minutes(1))) func aClaimNobodyAnswersEndsAtItsTimeoutAndLeavesNothingBehind() async {
        let claim = CardClaim()
        claim.arm()
        let read = await claim.next(timeout: .milliseconds(100))
        #expect(read == nil)
        // The ended claim does not swallow the next card: it goes to the station.
        #expect(!claim.offer(.blank))
    }

    @Test func aClaimNeverArmedTakesNothing() {
        // On a board nothing arms a claim: every card goes to the station.
        #expect(!CardClaim().offer(.blank))
    }

    @Test func anArmedClaimTakesTheNextCardWhetherItArrivesBeforeOrWhileItWaits() async throws {
        let early = CardClaim()
        early.arm()
        #expect(early.offer(.blank))
        #expect(!early.offer(.damaged), "one card per claim")
        #expect(await early.next(timeout: .seconds(30)) == .blank)

        let late = CardClaim()
        late.arm()
        async let read = late.next(timeout: .seconds(30))
        // Offered until the waiting claim takes it (the claim was armed, so the first offer is taken either way).
        #expect(late.offer(.blank))
        #expect(await read == .blank)
        #expect(!late.offer(.blank))
    }
}
