public import KioskCore

/// Writes a consented batch to a directory (a mounted USB stick): the CKPB/1 batch file, its text form, a CWA
/// `SubmissionPayload` where one is given, and a plain-text summary. Every file is written atomically; nothing names
/// a venue.
public struct ReportExporter: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The files written, by name.
    public struct Written: Equatable, Sendable {
        public let batchFile: String
        public let textFile: String
        public let summaryFile: String
        public let submissionPayloadFile: String?
    }

    /// Exports `batch` for `preview`; `stamp` (e.g. `20210304-101500`) makes the names unique.
    public func export(batch: ReportBatch, preview: Preview, stamp: String, cwaSubmissionPayload: [UInt8]? = nil)
        throws(ExportError) -> Written
    {
        let base = "checkin-reports-\(stamp)"
        let batchFile = base + ".ckpb"
        let textFile = base + ".txt"
        let summaryFile = base + "-summary.txt"
        // The summary first and the batch last: a stick pulled midway leaves no batch without its explanation.
        try AtomicFile.write(
            Array(Self.summary(batch: batch, preview: preview).utf8), named: summaryFile, in: directory)
        var payloadFile: String?
        if let cwaSubmissionPayload {
            payloadFile = base + ".cwa-submission.pb"
            try AtomicFile.write(cwaSubmissionPayload, named: payloadFile!, in: directory)
        }
        try AtomicFile.write(Array((batch.text + "\n").utf8), named: textFile, in: directory)
        try AtomicFile.write(batch.bytes, named: batchFile, in: directory)
        return Written(
            batchFile: batchFile, textFile: textFile, summaryFile: summaryFile, submissionPayloadFile: payloadFile)
    }

    /// Plain text for the holder and the test centre: what the files hold, without venue names or addresses.
    public static func summary(batch: ReportBatch, preview: Preview) -> String {
        var lines = [
            "Protected check-in reports",
            "",
            "Made on \(TimeText.dateTime(unixSeconds: preview.createdAt)) UTC with the holder's consent.",
            "\(preview.reportCount) report\(preview.reportCount == 1 ? "" : "s") and \(preview.dummyCount) decoy record\(preview.dummyCount == 1 ? "" : "s"), \(batch.records.count) records in all.",
            "",
            "Times sent (UTC, rounded to 10 minutes):",
        ]
        for (_, report) in preview.sealingPlan.sorted(by: {
            $0.report.startIntervalNumber < $1.report.startIntervalNumber
        }) {
            lines.append(
                "  \(TimeText.day(report.day)) \(TimeText.intervalWindow(report)), risk level \(report.transmissionRiskLevel) of 8"
            )
        }
        lines += [
            "",
            "Venues are not named here: only devices that saw a venue's code can read its reports.",
            "Give the .ckpb file (or the text in the .txt file) to the test centre or health authority.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
