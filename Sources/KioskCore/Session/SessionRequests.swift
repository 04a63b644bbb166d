/// What is left to do once a session's request was carried out with the card's keys (`CheckInDesk.serve`).
public enum ServedRequest: Sendable, Equatable {
    /// The PIN was checked (and a wrong one counted).
    case pin(CheckInDesk.PINCheck)
    /// Done; nothing to show again.
    case done
    /// The card's data changed: its contents are opened again and shown (with warnings, where the caller has them).
    case changed
    /// A consented report, for the caller to send out (printer, stick, upload).
    case deliver(Preview)
}

extension VisitorSession.Request {
    /// Whether the request deletes stays of the card (one, all, or all with the card blocked).
    public var deletesStays: Bool {
        switch self {
        case .deleteStay, .deleteAll, .block: true
        default: false
        }
    }
}

extension CheckInDesk {
    /// Carries out a request of the holder's session with the card's keys: the one place it is done, for the station's
    /// runner and the tests alike. Blocking store calls: run it off any actor. `now` is UNIX seconds.
    public func serve(_ request: VisitorSession.Request, of card: CardSecret, now: Int64) throws(TapRefusal)
        -> ServedRequest
    {
        switch request {
        case .checkPIN(let pin): return .pin(try checkPIN(pin, of: card, now: now))
        case .deliver(let preview): return .deliver(preview)
        case .acknowledgeWarning, .printWarningSlip: return .done
        case .setPIN(let pin): try setPIN(pin, of: card)
        case .saveProfile(let profile): try saveProfile(profile, of: card)
        case .deleteStay(let id): _ = try deleteStay(id, of: card)
        case .deleteAll: _ = try deleteAll(of: card)
        case .block:
            _ = try block(card)
            return .done
        case .markReported(let ids): _ = try markReported(ids, of: card)
        case .saveEnrolment(let matching, let pin, let language):
            try saveProfile(try profile(of: card).answering(matching: matching, language: language), of: card)
            if let pin { try setPIN(pin, of: card) }
            return .done
        }
        return .changed
    }
}
