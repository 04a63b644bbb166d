import ArgumentParser
import Foundation
import KioskAuthority
import KioskCore
import KioskExchange

/// `kiosk-authority accept --dir DIR FILE|TEXT…`: a test centre takes reports from an exported file or a scanned
/// receipt (`CKPB1:` text) into the pending pool.
struct AuthorityAccept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract:
            "Take reports from exported .ckpb/.txt/.cwa-submission.pb/.crowdnotifier-upload.pb files or scanned CKPB1:/CNUP1: texts into the pools.",
        discussion: """
            Each argument is a file (a .ckpb batch or the .txt beside it, or a .cwa-submission.pb: the same reports \
            in CWA's SubmissionPayload, published in the CWA hourly packages; or a .crowdnotifier-upload.pb: SwissCovid's \
            UserUploadPayload, published as CrowdNotifier problematic events) or the text of one scanned receipt \
            code (CKPB1: or CNUP1:). A receipt of several codes is several arguments. Nothing is accepted unless every argument reads. \
            Prints only how many records were taken.
            """
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Argument(help: "Exported batch files or CKPB1: texts.")
    var inputs: [String]

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("Give at least one batch file or CKPB1: text.") }
    }

    func run() async throws {
        var batches = [ReportBatch]()
        var submissions = [[UInt8]]()
        var uploadEntries = [CrowdNotifierUploadEntry]()
        for (number, input) in inputs.enumerated() {
            if let entries = Self.crowdNotifierEntries(from: input) {
                uploadEntries += entries
                continue
            }
            if input.hasSuffix(ReportExporter.crowdNotifierUploadSuffix)
                || input.hasPrefix(CrowdNotifierUploadPayload.textPrefix)
            {
                throw AuthorityText.fail(
                    "Argument \(number + 1) is not a readable CrowdNotifier upload (a scan cut short?). Nothing was accepted."
                )
            }
            if input.hasSuffix(".cwa-submission.pb") {
                guard let data = FileManager.default.contents(atPath: input), data.count <= 4 << 20,
                    (try? CWAProtectedReport.reports(inSubmissionPayload: [UInt8](data))) != nil
                else {
                    throw AuthorityText.fail(
                        "Argument \(number + 1) is not a readable CWA submission. Nothing was accepted.")
                }
                submissions.append([UInt8](data))
                continue
            }
            guard let batch = Self.batch(from: input) else {
                throw AuthorityText.fail(
                    "Argument \(number + 1) is neither a readable batch file nor a complete CKPB1: text "
                        + "(a scan cut short, or a different kind of code?). Nothing was accepted.")
            }
            batches.append(batch)
        }
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
            // One person's receipt or file, however many codes: one contribution to the next package's mix.
            do { try await publisher.acceptFromTestCentre(batches) } catch {
                throw AuthorityToolError.cannotWrite(dir, error.description)
            }
            var records = batches.reduce(0) { $0 + $1.records.count }
            if !uploadEntries.isEmpty {
                do {
                    records += try await publisher.addCrowdNotifierUpload(uploadEntries, now: AuthorityText.now())
                } catch {
                    throw AuthorityToolError.cannotWrite(dir, "\(error)")
                }
            }
            if !submissions.isEmpty {
                let cwa = try directory.cwaPublisher(key: key)
                for submission in submissions {
                    do { records += try await cwa.acceptSubmissionPayload(submission) } catch {
                        throw AuthorityToolError.cannotWrite(dir, "\(error)")
                    }
                }
            }
            let pending = (try? await publisher.pendingCount()) ?? records
            AuthorityText.out(
                "Accepted \(records) record\(records == 1 ? "" : "s") (real and decoy alike); \(pending) pending for the next publish."
            )
        } catch let error as AuthorityToolError {
            throw AuthorityText.fail(error.description)
        }
    }

    /// The entries of a `UserUploadPayload` file or a `CNUP1:` text; nil when the input is neither.
    static func crowdNotifierEntries(from input: String) -> [CrowdNotifierUploadEntry]? {
        if input.hasSuffix(ReportExporter.crowdNotifierUploadSuffix) {
            guard let data = FileManager.default.contents(atPath: input), data.count <= 4 << 20 else { return nil }
            return try? CrowdNotifierUploadPayload.entries(in: [UInt8](data))
        }
        return CrowdNotifierUploadPayload.entries(text: input)
    }

    /// A batch from a file (binary or text form) or from the text itself.
    static func batch(from input: String) -> ReportBatch? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: input, isDirectory: &isFolder), !isFolder.boolValue {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int,
                size <= 8 + 65_535 * CKPR.recordLength * 2,
                let data = FileManager.default.contents(atPath: input)
            else { return nil }
            let bytes = [UInt8](data)
            if let batch = try? ReportBatch(bytes: bytes) { return batch }
            return text(String(decoding: bytes, as: UTF8.self))
        }
        return text(input)
    }

    private static func text(_ text: String) -> ReportBatch? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return try? ReportBatch(text: trimmed)
    }
}
