public import KioskCore
internal import KioskHTTP

/// Sends a consented batch to the health authority with the holder's verification code (the code the test centre
/// gave them). Nothing is kept on failure that was not kept before: the caller still holds the batch and can retry,
/// print or export it.
///
/// Wire protocol: `POST <endpoint>` with body = the CKPB/1 batch, `Content-Type: application/x-ckpb`, and header
/// `X-Verification-Code`. With the same reports in CWA's format too, one request carries both (so one code covers
/// them): `Content-Type: application/x-kiosk-submission`, body = `u32 length of the batch | CKPB/1 batch |
/// SubmissionPayload`. With SwissCovid's `UserUploadPayload` as well (what the kiosk sends): `Content-Type:
/// application/x-kiosk-submission-3`, body = `u32 length of the batch | CKPB/1 batch | u32 length of the
/// SubmissionPayload | SubmissionPayload | UserUploadPayload`. 201/204 = accepted; 401/403 = wrong or expired code; 409 = code already used;
/// 400/413/415 = batch refused; 5xx = server trouble.
public struct ReportUploader: Sendable {
    public static let contentType = "application/x-ckpb"
    public static let submissionContentType = "application/x-kiosk-submission"
    public static let threePartContentType = "application/x-kiosk-submission-3"
    public static let codeHeader = "X-Verification-Code"

    public let endpoint: String
    public let timeout: Duration

    public init(endpoint: String, timeout: Duration = .seconds(30)) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    /// Normalises a typed verification code: upper case, without spaces and dashes; nil if it cannot be a code.
    public static func normalizedCode(_ typed: String) -> String? {
        let kept = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard (6...32).contains(kept.count), kept.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return nil
        }
        return kept
    }

    /// Uploads `batch` (and `cwaSubmission`, the same reports as CWA's `SubmissionPayload`, and
    /// `crowdNotifierUpload`, SwissCovid's `UserUploadPayload`, in the same request); throws a typed error a holder
    /// can act on.
    public func upload(
        _ batch: ReportBatch, cwaSubmission: [UInt8]? = nil, crowdNotifierUpload: [UInt8]? = nil,
        verificationCode typed: String
    ) async throws(UploadError) {
        guard let code = Self.normalizedCode(typed) else { throw .malformedCode }
        guard endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://") else { throw .notConfigured }
        let type: String
        let body: [UInt8]
        switch (cwaSubmission, crowdNotifierUpload) {
        case (nil, nil): (type, body) = (Self.contentType, batch.bytes)
        case (let cwa?, nil): (type, body) = (Self.submissionContentType, Self.submission(batch, cwa: cwa))
        case (let cwa, let upload?):
            (type, body) = (Self.threePartContentType, Self.submission(batch, cwa: cwa ?? [], crowdNotifier: upload))
        }
        let request = HTTPRequest(
            .post, url: endpoint,
            headers: [(name: "Content-Type", value: type), (name: Self.codeHeader, value: code)], body: body)
        let status: Int
        do {
            status = try await HTTP.send(request, limit: 64 * 1024, timeout: timeout).status
        } catch .timedOut {
            throw .timeout
        } catch .oversized {
            // The answer's body is not read; a long one still tells nothing about the status.
            throw .unexpectedAnswer(0)
        } catch {
            throw .unreachable
        }
        switch status {
        case 200...299: return
        case 429: throw .serverError(status)
        case 401, 403: throw .wrongCode
        case 409: throw .codeAlreadyUsed
        case 400, 413, 415, 422: throw .refused
        case 500...599: throw .serverError(status)
        default: throw .unexpectedAnswer(status)
        }
    }
}

extension ReportUploader {
    /// `u32 length of the batch | CKPB/1 batch | SubmissionPayload`.
    public static func submission(_ batch: ReportBatch, cwa: [UInt8]) -> [UInt8] {
        let bytes = batch.bytes
        return lengthPrefix(bytes.count) + bytes + cwa
    }

    /// `u32 length of the batch | CKPB/1 batch | u32 length of the SubmissionPayload | SubmissionPayload |
    /// UserUploadPayload`.
    public static func submission(_ batch: ReportBatch, cwa: [UInt8], crowdNotifier: [UInt8]) -> [UInt8] {
        submission(batch, cwa: lengthPrefix(cwa.count) + cwa + crowdNotifier)
    }

    /// `u32 length`, big-endian.
    static func lengthPrefix(_ length: Int) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(length) >> $0) }
    }

    /// The batch and the CWA payload of a submission's bytes; nil when they do not split as written above.
    public static func splitSubmission(_ body: [UInt8]) -> (batch: [UInt8], cwa: [UInt8])? {
        guard body.count >= 4 else { return nil }
        let length = body[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard length <= body.count - 4 else { return nil }
        return (Array(body[4..<(4 + length)]), Array(body[(4 + length)...]))
    }

    /// The batch, the CWA payload and the `UserUploadPayload` of a three-part submission's bytes; nil when they do
    /// not split as written above.
    public static func splitThreePartSubmission(_ body: [UInt8]) -> (
        batch: [UInt8], cwa: [UInt8], crowdNotifier: [UInt8]
    )? {
        guard let (batch, rest) = splitSubmission(body), let (cwa, crowdNotifier) = splitSubmission(rest) else {
            return nil
        }
        return (batch, cwa, crowdNotifier)
    }
}

/// An upload as the health authority reads it from a request: the batch, and the same reports in CWA's format when
/// the request carried both (`ReportUploader`'s wire protocol read back).
public struct ReceivedUpload: Sendable {
    /// The most CWA reports one submission may carry (as many as the largest batch).
    public static let maximumCWAReports = 4096

    public let batch: ReportBatch
    /// The CWA reports of a submission (`application/x-kiosk-submission`), each of the shape CWA publishes.
    public let cwaReports: [CWAProtectedReport]?
    /// The entries of a three-part submission's `UserUploadPayload`, each checked
    /// (`CrowdNotifierUploadPayload.entries(in:)`).
    public let crowdNotifierEntries: [CrowdNotifierUploadEntry]?

    /// Reads a request body under its `Content-Type`: a submission splits into its batch and a `SubmissionPayload`
    /// (and a `UserUploadPayload`); anything else is a batch, as bytes or as its `CKPB1:` text. Nil when the body is
    /// not an upload, or any part of it does not read.
    public init?(body: [UInt8], contentType: String?) {
        var bytes = body
        let type = contentType?.split(separator: ";").first.map { String($0.filter { $0 != " " }) }
        var cwa: [UInt8]?
        switch type {
        case ReportUploader.threePartContentType:
            guard let parts = ReportUploader.splitThreePartSubmission(body),
                let entries = try? CrowdNotifierUploadPayload.entries(in: parts.crowdNotifier)
            else { return nil }
            (bytes, cwa, crowdNotifierEntries) = (parts.batch, parts.cwa, entries)
        case ReportUploader.submissionContentType:
            guard let parts = ReportUploader.splitSubmission(body) else { return nil }
            (bytes, cwa, crowdNotifierEntries) = (parts.batch, parts.cwa, nil)
        default:
            crowdNotifierEntries = nil
        }
        if let cwa {
            guard let reports = try? CWAProtectedReport.reports(inSubmissionPayload: cwa),
                reports.count <= Self.maximumCWAReports, reports.allSatisfy(\.hasReportShape)
            else { return nil }
            cwaReports = reports
        } else {
            cwaReports = nil
        }
        if let parsed = try? ReportBatch(bytes: bytes) {
            batch = parsed
        } else if let parsed = try? ReportBatch(text: String(decoding: bytes, as: UTF8.self)) {
            batch = parsed
        } else {
            return nil
        }
    }
}

/// Why an upload did not go through. Each message says what the holder can do; none names the code or a stay.
public enum UploadError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedCode
    case wrongCode
    case codeAlreadyUsed
    case refused
    case timeout
    case unreachable
    case serverError(Int)
    case unexpectedAnswer(Int)
    case notConfigured

    public var description: String {
        switch self {
        case .malformedCode: "That does not look like a verification code: check it and type it again."
        case .wrongCode:
            "The health authority did not accept this verification code: check it, or ask the test centre for a new one."
        case .codeAlreadyUsed:
            "This verification code was already used. Ask the test centre for a new one, or print the reports instead."
        case .refused:
            "The health authority refused the reports. Print them instead and take the receipt to the test centre."
        case .timeout: "The health authority did not answer in time. Try again later, or print the reports instead."
        case .unreachable:
            "The health authority cannot be reached (no network?). Try again later, or print the reports instead."
        case .serverError(let code):
            "The health authority had a problem (\(code)). Try again later, or print the reports instead."
        case .unexpectedAnswer(let code):
            "The health authority answered unexpectedly (\(code)). Try again later, or print the reports instead."
        case .notConfigured:
            "No health authority address is configured on this kiosk. Print or export the reports instead."
        }
    }
}
