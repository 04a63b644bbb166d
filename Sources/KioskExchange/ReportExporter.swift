internal import Foundation
public import KioskCore

/// Writes a consented batch to a directory (a mounted USB stick): the CKPB/1 batch file, its text form, a CWA
/// `SubmissionPayload` and a SwissCovid `UserUploadPayload` where they are given, and a short read-me. Every file is written atomically. Nothing on the stick
/// names a venue, a time of day, a risk level or how many of the records are real (the holder saw those on screen
/// before consenting): the names carry the calendar day the export was made and, when that day already has an export
/// on the stick, a number.
public struct ReportExporter: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The files written, by name.
    public struct Written: Equatable, Sendable {
        public let batchFile: String
        public let textFile: String
        public let readMeFile: String
        public let submissionPayloadFile: String?
        public let crowdNotifierUploadFile: String?
    }

    /// Exports `batch`, made at `madeAt` (UNIX seconds; only the UTC date is used).
    public func export(
        batch: ReportBatch, madeAt: Int64, cwaSubmissionPayload: [UInt8]? = nil, crowdNotifierUpload: [UInt8]? = nil
    ) throws(ExportError) -> Written {
        let base = Self.freeBase(day: TimeText.date(unixSeconds: madeAt).filter { $0 != "-" }, in: directory)
        let batchFile = base + ".ckpb"
        let textFile = base + ".txt"
        let readMeFile = base + "-read-me.txt"
        // The read-me first and the batch last: a stick pulled midway leaves no batch without its explanation.
        try AtomicFile.write(Array(Self.readMe(madeAt: madeAt).utf8), named: readMeFile, in: directory)
        var payloadFile: String?
        if let cwaSubmissionPayload {
            payloadFile = base + ".cwa-submission.pb"
            try AtomicFile.write(cwaSubmissionPayload, named: payloadFile!, in: directory)
        }
        var uploadFile: String?
        if let crowdNotifierUpload {
            uploadFile = base + Self.crowdNotifierUploadSuffix
            try AtomicFile.write(crowdNotifierUpload, named: uploadFile!, in: directory)
        }
        try AtomicFile.write(Array((batch.text + "\n").utf8), named: textFile, in: directory)
        try AtomicFile.write(batch.bytes, named: batchFile, in: directory)
        return Written(
            batchFile: batchFile, textFile: textFile, readMeFile: readMeFile, submissionPayloadFile: payloadFile,
            crowdNotifierUploadFile: uploadFile)
    }

    /// The name's end of the SwissCovid `UserUploadPayload` file.
    public static let crowdNotifierUploadSuffix = ".crowdnotifier-upload.pb"

    /// `checkin-reports-20210306`, or with `-2`, `-3`, … when the stick already holds an export of that day.
    static func freeBase(day: String, in directory: String) -> String {
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        var base = "checkin-reports-\(day)"
        var number = 1
        while names.contains(where: { $0.hasPrefix(base + ".") || $0.hasPrefix(base + "-read-me") }) {
            number += 1
            base = "checkin-reports-\(day)-\(number)"
        }
        return base
    }

    /// Plain text for the holder and the test centre: what the files are and what to do with them.
    public static func readMe(madeAt: Int64) -> String {
        [
            "Protected check-in reports",
            "",
            "Made on \(TimeText.date(unixSeconds: madeAt)) with the holder's consent.",
            "",
            "Give the .ckpb file (or the text in the .txt file) to the test centre or health authority.",
            "Give the .cwa-submission.pb and .crowdnotifier-upload.pb files too: they warn Corona-Warn-App, SwissCovid and",
            "NotifyMe users.",
            "The files say nothing readable: only devices that were at the same places can open them.",
        ].joined(separator: "\n") + "\n"
    }
}
