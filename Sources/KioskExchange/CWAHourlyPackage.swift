public import KioskCore
import KioskZip

/// Opening and making CWA hourly trace warning packages: a zip with `export.bin` and `export.sig`.
public enum CWAHourlyPackage {
    /// Zips larger than this are refused before they are opened.
    public static let defaultMaximumArchiveSize = 16 * 1024 * 1024
    /// `export.bin` may inflate to at most this (a zip bomb stops here).
    public static let defaultMaximumExportSize = CWATraceWarningPackage.defaultMaximumSize
    static let maximumSignatureSize = 64 * 1024

    /// Reads the zip, verifies `export.sig` over `export.bin` under `verifier` and only then parses `export.bin`.
    /// `expectedHour`, when given, must be the hour the package names (a package replayed under another hour is
    /// refused).
    public static func open(
        _ zip: [UInt8], verifier: some SignatureVerifier, expectedHour: UInt32? = nil,
        maximumArchiveSize: Int = defaultMaximumArchiveSize, maximumExportSize: Int = defaultMaximumExportSize
    ) throws(CWAPackageError) -> CWATraceWarningPackage {
        let export: [UInt8]
        let signatureList: [UInt8]
        do {
            let archive = try ZipArchive(bytes: zip, maximumSize: maximumArchiveSize)
            guard
                let signature = try archive.contents(
                    of: CWATraceWarningPackage.signatureName, maximumSize: maximumSignatureSize)
            else {
                throw CWAPackageError.unsigned
            }
            guard
                let bytes = try archive.contents(of: CWATraceWarningPackage.exportName, maximumSize: maximumExportSize)
            else {
                throw CWAPackageError.missingExport
            }
            export = bytes
            signatureList = signature
        } catch let error as CWAPackageError {
            throw error
        } catch let error as ZipError {
            throw CWAPackageError(error)
        } catch {
            throw .notAZip
        }
        let package = try CWATraceWarningPackage.verified(
            export: export, signatureList: signatureList, verifier: verifier,
            maximumSize: maximumExportSize)
        if let expectedHour, package.hour != expectedHour { throw .wrongHour }
        return package
    }

    /// The zip of `package`, signed with `signer` (`export.bin` first, as CWA writes it).
    public static func make(_ package: CWATraceWarningPackage, signer: some PackageSigner) throws -> [UInt8] {
        let export = package.export
        let signatureList = CWATraceWarningPackage.signatureList(signature: try signer.signature(for: export))
        return try ZipArchive.archive([
            (CWATraceWarningPackage.exportName, export), (CWATraceWarningPackage.signatureName, signatureList),
        ])
    }
}

extension CWAPackageError {
    init(_ error: ZipError) {
        switch error {
        case .notAZip: self = .notAZip
        case .truncated: self = .truncated
        case .oversized: self = .oversized
        case .unsupported: self = .unsupportedCompression
        case .corrupt: self = .truncated
        case .checksumMismatch: self = .checksumMismatch
        case .zlibFailure: self = .notAZip
        }
    }
}
