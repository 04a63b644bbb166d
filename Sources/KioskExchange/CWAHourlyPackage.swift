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

    /// The same checks as `open(_:…)` on a zip in a file, never holding `export.bin`: the zip's directory is read from
    /// the file, `export.bin` is inflated in chunks (at most `maximumExportSize` bytes: a zip bomb stops there) and
    /// streamed through the verifier's SHA-256; only when a signature of `export.sig` verifies is it inflated again
    /// and read by `CWATraceWarningPackageReader`, keeping only records whose `locationIdHash` is in `hashes` (nil:
    /// every record, for a kiosk keeping its region's warnings). Returns the package holding only those records. `path` must be a file only the kiosk writes (a download, or a
    /// private copy of a stick's file): both passes read it. `onVerified` runs between them.
    public static func open(
        path: String, verifier: any StreamingSignatureVerifier, keepingLocationIdHashes hashes: Set<[UInt8]>?,
        expectedHour: UInt32? = nil, maximumArchiveSize: Int = defaultMaximumArchiveSize,
        maximumExportSize: Int = defaultMaximumExportSize, onVerified: () -> Void = {}
    ) throws(CWAPackageError) -> CWATraceWarningPackage {
        do {
            let archive = try ZipFile(path: path, maximumSize: maximumArchiveSize)
            guard
                let signatureList = try archive.contents(
                    of: CWATraceWarningPackage.signatureName, maximumSize: maximumSignatureSize)
            else {
                throw CWAPackageError.unsigned
            }
            let signatures = try CWATraceWarningPackage.signatures(inList: signatureList)
            guard !signatures.isEmpty else { throw CWAPackageError.unsigned }
            // First pass: the signature, over every byte of export.bin.
            let hash = verifier.makeSHA256()
            let found = try archive.stream(CWATraceWarningPackage.exportName, maximumSize: maximumExportSize) {
                hash.update($0)
                return true
            }
            guard found else { throw CWAPackageError.missingExport }
            let digest = hash.finish()
            guard signatures.contains(where: { verifier.isValidSignature($0, forSHA256: digest) }) else {
                throw CWAPackageError.badSignature
            }
            onVerified()
            // Second pass: the content, only now.
            var reader = CWATraceWarningPackageReader(keepingLocationIdHashes: hashes)
            var failure: CWAPackageError?
            try archive.stream(CWATraceWarningPackage.exportName, maximumSize: maximumExportSize) { chunk in
                do throws(CWAPackageError) {
                    try reader.consume(chunk)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
            let package = try reader.finish()
            if let expectedHour, package.hour != expectedHour { throw CWAPackageError.wrongHour }
            return package
        } catch let error as CWAPackageError {
            throw error
        } catch let error as ZipError {
            throw CWAPackageError(error)
        } catch {
            throw .notAZip
        }
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
        case .unreadable: self = .truncated
        }
    }
}
