public import Foundation
public import KioskCore
public import KioskPrinter

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a consented batch can go from this kiosk, and the act of sending it there. The report conversation asks a
/// `ReportDelivering` only after the holder said yes to the exact preview.
public protocol ReportDelivering: Sendable {
    /// A receipt printer is set up.
    var canPrint: Bool { get }
    /// A health authority address is set up.
    var canUpload: Bool { get }
    /// The folder an export goes to when the holder names none (the mounted USB stick), if set up.
    var defaultExportDirectory: String? { get }

    /// Sends `batch` (sealed from `preview`) out by `preview.output`; an export goes to `exportDirectory`, with
    /// `cwaSubmission` (the same reports as CWA's `SubmissionPayload`, for authorities that take CWA's format) and
    /// `crowdNotifierUpload` (the stays at CrowdNotifier venues as SwissCovid's `UserUploadPayload`) beside it; an
    /// upload carries them all in one request; a receipt prints the batch's codes and the upload's. Returns one line
    /// for the holder saying what happened. On failure nothing is kept anywhere. A printed receipt is in `language`,
    /// its date in `zone` (the venue's).
    func deliver(
        _ batch: ReportBatch, preview: Preview, cwaSubmission: [UInt8]?, crowdNotifierUpload: [UInt8]?,
        exportDirectory: String?, language: Language, zone: VenueZone
    ) async throws(DeliveryError) -> String
}

/// Why a consented batch did not leave. The text says what the holder can do; it names no stay, venue or code.
public enum DeliveryError: Error, Equatable, Sendable, CustomStringConvertible {
    case printer(PrinterError)
    case receipt
    case export(ExportError)
    case upload(UploadError)
    case sealing
    case notAvailable(String)

    public var description: String {
        switch self {
        case .printer(let error): "The receipt could not be printed: \(error). Nothing will be printed later."
        case .receipt: "The receipt could not be laid out."
        case .export(let error): error.description
        case .upload(let error): error.description
        case .sealing: "The reports could not be sealed (the kiosk's encryption failed)."
        case .notAvailable(let kind): "This kiosk has no \(kind) set up."
        }
    }
}

/// The kiosk's outputs: a receipt printer (an `AttendedPrinter` on a board: printed now or not at all), a USB stick folder through `ReportExporter`,
/// the health authority through `ReportUploader`. Any of them may be absent.
public struct ReportDelivery: ReportDelivering {
    public let printer: (any ReceiptPrinter)?
    public let paper: PaperWidth
    /// The code page the receipt's text is printed in.
    public let codePage: PrinterCodePage
    public let uploader: ReportUploader?
    public let defaultExportDirectory: String?

    public init(
        printer: (any ReceiptPrinter)? = nil, paper: PaperWidth = .mm58, codePage: PrinterCodePage = .cp1252,
        uploader: ReportUploader? = nil, exportDirectory: String? = nil
    ) {
        self.printer = printer
        self.paper = paper
        self.codePage = codePage
        self.uploader = uploader
        self.defaultExportDirectory = exportDirectory
    }

    public var canPrint: Bool { printer != nil }
    public var canUpload: Bool { uploader != nil }

    public func deliver(
        _ batch: ReportBatch, preview: Preview, cwaSubmission: [UInt8]?, crowdNotifierUpload: [UInt8]?,
        exportDirectory: String?, language: Language, zone: VenueZone
    ) async throws(DeliveryError) -> String {
        let count = "\(preview.reportCount) report\(preview.reportCount == 1 ? "" : "s")"
        switch preview.output {
        case .print:
            guard let printer else { throw .notAvailable("receipt printer") }
            let bytes: [UInt8]
            do {
                bytes = try ReportReceipt.escpos(
                    batch: batch, crowdNotifierUpload: crowdNotifierUpload, madeAt: preview.createdAt, paper: paper,
                    codePage: codePage, language: language, zone: zone)
            } catch {
                throw .receipt
            }
            // Nothing of a receipt that failed is kept: the holder is offered to try again now, or another output.
            do throws(PrinterError) { try await printer.print(bytes) } catch { throw .printer(error) }
            return "Printed: \(count) on the receipt. Take it to the test centre."
        case .export:
            guard let directory = exportDirectory ?? defaultExportDirectory else {
                throw .notAvailable("export folder")
            }
            do {
                let written = try ReportExporter(directory: directory).export(
                    batch: batch, madeAt: preview.createdAt, cwaSubmissionPayload: cwaSubmission,
                    crowdNotifierUpload: crowdNotifierUpload)
                let cwa =
                    (written.submissionPayloadFile.map { ", \($0) in CWA's format" } ?? "")
                    + (written.crowdNotifierUploadFile.map { ", \($0) for SwissCovid's server" } ?? "")
                return
                    "Written: \(count) in \(written.batchFile) (and \(written.textFile)\(cwa), \(written.readMeFile))."

            } catch {
                throw .export(error)
            }
        case .upload(let code):
            guard let uploader else { throw .notAvailable("health authority address") }
            do {
                try await uploader.upload(
                    batch, cwaSubmission: cwaSubmission, crowdNotifierUpload: crowdNotifierUpload,
                    verificationCode: code)
            } catch {
                throw .upload(error)
            }
            return "Sent: \(count) reached the health authority."
        }
    }

    /// True if `path` is an existing folder (checked before the holder is asked, so a typo is caught early).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

extension ReportDelivering {
    /// Seals a consented preview and sends it: the CKPB/1 batch (`ReportSealer`); on a stick or in an upload the same
    /// reports in CWA's format beside it; and the stays at CrowdNotifier venues as SwissCovid's `UserUploadPayload`
    /// where `Preview.carriesCrowdNotifierUpload` says. The one path from a "yes" to the kiosk's edge, for the staff
    /// console's conversation and the holder's own session alike. Returns the line for the holder.
    public func sendConsented(
        _ preview: Preview, crypto: any CryptoProvider, exportDirectory: String? = nil, language: Language = .fallback,
        zone: VenueZone = .board
    ) async throws(DeliveryError) -> String {
        let batch: ReportBatch
        let cwaSubmission: [UInt8]?
        let crowdNotifierUpload: [UInt8]?
        do {
            batch = try ReportSealer.batch(for: preview, crypto: crypto)
            switch preview.output {
            case .export, .upload:
                cwaSubmission = try CWAProtectedReport.submissionPayload(for: preview, crypto: crypto)
            case .print: cwaSubmission = nil
            }
            crowdNotifierUpload =
                preview.carriesCrowdNotifierUpload
                ? try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto) : nil
        } catch {
            throw DeliveryError.sealing
        }
        return try await deliver(
            batch, preview: preview, cwaSubmission: cwaSubmission, crowdNotifierUpload: crowdNotifierUpload,
            exportDirectory: exportDirectory, language: language, zone: zone)
    }

    /// The outputs a holder can choose now: a printer, a mounted USB stick (its folder exists now), an authority.
    public var availableOutputs: Set<VisitorSession.OutputKind> {
        var outputs = Set<VisitorSession.OutputKind>()
        if canPrint { outputs.insert(.print) }
        if let directory = defaultExportDirectory, ReportDelivery.isDirectory(directory) { outputs.insert(.export) }
        if canUpload { outputs.insert(.upload) }
        return outputs
    }
}
