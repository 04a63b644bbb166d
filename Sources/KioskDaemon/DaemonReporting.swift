internal import Foundation
internal import KioskCore
internal import KioskExchange
internal import KioskPrinter
internal import Synchronization

/// The next card read, taken for the report conversation instead of the station (the holder proves presence with
/// their card; it is not a check-in).
final class CardClaim: Sendable {
    private let waiter = Mutex<CheckedContinuation<CardRead?, Never>?>(nil)

    /// True if a claim was waiting and took `read`.
    func offer(_ read: CardRead) -> Bool {
        guard
            let continuation = waiter.withLock({ current -> CheckedContinuation<CardRead?, Never>? in
                defer { current = nil }
                return current
            })
        else { return false }
        continuation.resume(returning: read)
        return true
    }

    /// Waits for the next card, up to `timeout`.
    func next(timeout: Duration) async -> CardRead? {
        await withTimeout(timeout) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<CardRead?, Never>) in
                    self.waiter.withLock { $0 = continuation }
                    if Task.isCancelled { self.withdraw() }
                }
            } onCancel: {
                self.withdraw()
            }
        } ?? nil
    }

    /// Ends a waiting claim with nil.
    private func withdraw() {
        waiter.withLock { current -> CheckedContinuation<CardRead?, Never>? in
            defer { current = nil }
            return current
        }?.resume(returning: nil)
    }
}

extension KioskDaemon {
    /// `report`: the consent flow with scripted answers for the holder of the card tapped next (card N in
    /// simulation). Prints every question, the answer given, and how it ended.
    func report(card number: Int?, answers: [String]) async -> ControlResponse {
        let claimed = Task { await cardClaim.next(timeout: .seconds(number == nil ? 60 : 10)) }
        try? await Task.sleep(for: .milliseconds(20))
        if let number {
            guard let reader = simulation?.cards else {
                return .failure("cards are simulated only on a simulated kiosk")
            }
            await liftCard()
            reader.place(card: number)
        }
        defer {
            if number != nil { simulation?.cards.remove() }
        }
        guard let read = await claimed.value else { return .failure("no card was tapped in time") }
        guard case .card(let secret) = read, secret.kind == .visitor else {
            return .failure("this is not a visitor's kiosk card: reports need the card the stays were made with")
        }
        let desk = self.desk
        let reading = clock.read()
        var conversation = ReportConversation(
            now: Int64(reading.now.timeIntervalSince1970), delivery: reportDelivery, crypto: crypto
        ) { card throws(StayLoadError) in
            do { return try desk.reportableStays(of: card, clock: reading) } catch { throw StayLoadError("\(error)") }
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
