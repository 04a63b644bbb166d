public import KioskCore

/// The consent walk-through that report tests share: a fresh `ConsentFlow` taken from the card to the holder's yes
/// with every given stay selected.
public enum ConsentWalkthrough {
    /// The flow did not reach the question (no stay recent enough, or all too short to report).
    public struct DidNotConsent: Error, Equatable, Sendable {
        public let state: ConsentFlow.State
    }

    /// The preview the holder said yes to, after selecting all of `stays` at `now`.
    public static func consentedPreview(
        stays: [ReportableStay], now: Int64, symptoms: SymptomIndication = .noInformation,
        output: ReportOutput = .print, parameters: PresenceTracingParameters = .cwaProduction
    ) throws(DidNotConsent) -> Preview {
        var flow = ConsentFlow(now: now, parameters: parameters)
        flow.handle(.cardPresented(stays: stays))
        for stay in stays { flow.handle(.toggle(stay.id)) }
        flow.handle(.confirmSelection)
        flow.handle(.details(symptoms: symptoms, output: output))
        flow.handle(.acknowledgeDisclosure)
        flow.handle(.answer(true))
        guard case .consented(let preview) = flow.state else { throw DidNotConsent(state: flow.state) }
        return preview
    }
}
