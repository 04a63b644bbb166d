import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL

/// Sealing a holder's consented stays into a CKPB/1 batch (and the CWA submission payload).
struct SealBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seal",
        abstract: "Time preparing, sealing and batching 14 days of stays, and building the CWA submission payload."
    )

    @Option(help: "Stays selected by the holder, spread over the last 14 days.") var stays = 60
    @Option(help: "Repetitions.") var repetitions = 200

    func run() throws {
        let crypto = OpenSSLCrypto()
        let now: Int64 = 1_700_000_000
        var selection = [ReportableStay]()
        for index in 0..<stays {
            let start = now - Int64(index % 14 + 1) * 86_400 + Int64(index % 5) * 7200
            selection.append(
                ReportableStay(
                    id: String(index), venueName: "v\(index % 12)",
                    locationId: try crypto.sha256(Array("venue \(index % 12)".utf8)),
                    start: start, end: start + 5400))
        }
        var timings = [Duration]()
        var payloadTimings = [Duration]()
        var recordCount = 0
        let clock = ContinuousClock()
        for _ in 0..<repetitions {
            var flow = ConsentFlow(now: now)
            flow.handle(.cardPresented(stays: selection))
            for stay in selection { flow.handle(.toggle(stay.id)) }
            flow.handle(.confirmSelection)
            flow.handle(.details(symptoms: .symptomsInLastSevenDays, output: .export))
            flow.handle(.acknowledgeDisclosure)
            flow.handle(.answer(true))
            guard case .consented(let preview) = flow.state else { throw ValidationError("no consent") }
            var batch: ReportBatch?
            timings.append(try clock.measure { batch = try ReportSealer.batch(for: preview, crypto: crypto) })
            payloadTimings.append(
                try clock.measure { _ = try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto) })
            recordCount = batch?.records.count ?? 0
        }
        func describe(_ values: [Duration]) -> String {
            let sorted = values.map(\.fractionalMilliseconds).sorted()
            return String(
                format: "p50 %.3f ms, p99 %.3f ms", sorted[sorted.count / 2],
                sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
        }
        print("\(stays) stays → \(recordCount) records in the batch; \(repetitions) repetitions")
        print("seal + batch (CKPR/1 + CKPB/1): \(describe(timings))")
        print("CWA SubmissionPayload: \(describe(payloadTimings))")
    }
}
