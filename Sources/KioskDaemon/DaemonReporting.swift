internal import Foundation
internal import KioskCore
internal import KioskExchange
internal import KioskPrinter
internal import Synchronization

/// The simulated card a `report` request places on the reader, taken for the report conversation instead of the
/// station. Armed before the card is placed, so the read cannot slip past it; never armed on a board.
final class CardClaim: Sendable {
    private enum State {
        case idle
        case armed
        case taken(CardRead)
        case waiting(CheckedContinuation<CardRead?, Never>)
    }

    private let state = Mutex<State>(.idle)

    /// Takes the next card read from now on.
    func arm() { state.withLock { $0 = .armed } }

    /// True if the claim was armed or waiting and took `read`.
    func offer(_ read: CardRead) -> Bool {
        let waiting = state.withLock { current -> CheckedContinuation<CardRead?, Never>?? in
            switch current {
            case .armed:
                current = .taken(read)
                return .some(nil)
            case .waiting(let continuation):
                current = .idle
                return .some(continuation)
            case .idle, .taken: return nil
            }
        }
        guard let waiting else { return false }
        waiting?.resume(returning: read)
        return true
    }

    /// The card read taken since `arm()`, waiting for it up to `timeout`; disarms.
    func next(timeout: Duration) async -> CardRead? {
        await withTimeout(timeout) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<CardRead?, Never>) in
                    let ready = self.state.withLock { current -> CardRead?? in
                        switch current {
                        case .taken(let read):
                            current = .idle
                            return .some(read)
                        case .armed:
                            current = .waiting(continuation)
                            return nil
                        case .idle, .waiting: return .some(nil)
                        }
                    }
                    if let ready { continuation.resume(returning: ready) }
                    if Task.isCancelled { self.disarm() }
                }
            } onCancel: {
                self.disarm()
            }
        } ?? nil
    }

    /// Ends the claim: a waiting conversation gets nil.
    func disarm() {
        state.withLock { current -> CheckedContinuation<CardRead?, Never>? in
            defer { current = .idle }
            if case .waiting(let continuation) = current { return continuation }
            return nil
        }?.resume(returning: nil)
    }
}

extension KioskDaemon {
    /// `report`: on a simulated kiosk only, the consent flow with scripted answers for simulated card N, which the
    /// request itself places on the reader (a card without a PIN). Prints every question, the answer given, and how
    /// it ended. Nothing on the control socket ever takes a card read that the station would see: on a board a
    /// card's stays are shown and shared only in its holder's session on the kiosk's screen, after their PIN.
    func report(card number: Int?, answers: [String]) async -> ControlResponse {
        guard let number, let reader = simulation?.cards else {
            return .failure(
                "Reports are shared by the card's holder in their session on the kiosk's screen, after their PIN; "
                    + "the control socket reads no card. (A simulated kiosk takes `report` for a simulated card: "
                    + "kiosk simulate report --card N.)")
        }
        await liftCard()
        cardClaim.arm()
        reader.place(card: number)
        defer { simulation?.cards.remove() }
        guard let read = await cardClaim.next(timeout: .seconds(30)) else {
            cardClaim.disarm()
            return .failure("the simulated card was not read")
        }
        guard case .card(let secret) = read, secret.kind == .visitor else {
            return .failure("this is not a visitor's kiosk card: reports need the card the stays were made with")
        }
        let desk = self.desk
        let reading = clock.read()
        var conversation = ReportConversation(
            now: Int64(reading.now.timeIntervalSince1970), delivery: reportDelivery, crypto: crypto
        ) { card throws(StayLoadError) in
            try desk.reportableStaysWithoutPIN(of: card, clock: reading)
        }
        var lines = [String]()
        var remaining = answers[...]
        let ending = await conversation.run(card: secret) { prompt in
            lines += prompt.lines
            if let problem = prompt.problem { lines.append("! \(problem)") }
            lines.append("? \(prompt.question)")
            let answer = remaining.popFirst()
            lines.append("> \(answer ?? "(no more answers)")")
            return answer
        }
        lines.append(ending.message)
        var ok = false
        if case .delivered = ending.outcome { ok = true }
        if !conversation.deliveredStayIDs.isEmpty {
            // Their own report must not warn them at their next tap.
            do { try desk.markReported(conversation.deliveredStayIDs, of: secret) } catch {
                lines.append("The kiosk could not note the shared stays: \(error)")
            }
        }
        return ControlResponse(
            ok: ok, lines: lines, steps: [ControlStep(type: "report", kind: Self.name(ending.outcome))])
    }

    static func name(_ outcome: ConsentFlow.Outcome) -> String {
        switch outcome {
        case .declined: "declined"
        case .aborted: "aborted"
        case .nothingToReport: "nothingToReport"
        case .delivered: "delivered"
        case .failed: "failed"
        }
    }
}
