import Foundation
import KioskProto
import SwiftProtobuf

/// A health authority's warning about a venue, as Corona-Warn-App's `TraceTimeIntervalWarning`: the venue's
/// `locationIdHash` in clear and a time window in 10-minute intervals. Contact tracers issue these (CWA's
/// "On-Device" warnings); anyone holding a check-in at that venue can match them.
public struct CWATraceWarning: Equatable, Hashable, Sendable {
    /// `SHA-256(locationId)`, 32 bytes.
    public let locationIdHash: [UInt8]
    /// 10-minute intervals since the UNIX epoch.
    public let startIntervalNumber: UInt32
    /// Length in 10-minute intervals.
    public let period: UInt32
    public let transmissionRiskLevel: UInt32

    public init(locationIdHash: [UInt8], startIntervalNumber: UInt32, period: UInt32, transmissionRiskLevel: UInt32) {
        self.locationIdHash = locationIdHash
        self.startIntervalNumber = startIntervalNumber
        self.period = period
        self.transmissionRiskLevel = transmissionRiskLevel
    }

    /// CWA's rule for a usable warning: a 32-byte hash, a period and a transmission risk level 1…8.
    public var isValidWarning: Bool {
        locationIdHash.count == 32 && period > 0 && (1...8).contains(transmissionRiskLevel)
    }

    /// The warning's protobuf bytes (`TraceTimeIntervalWarning`).
    public var serialized: [UInt8] { [UInt8]((try? message.serializedData()) ?? Data()) }

    /// Parses `TraceTimeIntervalWarning` bytes.
    public init(serialized bytes: [UInt8]) throws(CWAPackageError) {
        guard let message = try? SAP_Internal_Pt_TraceTimeIntervalWarning(serializedBytes: bytes) else {
            throw .malformed
        }
        self.init(message)
    }

    init(_ message: SAP_Internal_Pt_TraceTimeIntervalWarning) {
        self.init(
            locationIdHash: [UInt8](message.locationIDHash), startIntervalNumber: message.startIntervalNumber,
            period: message.period, transmissionRiskLevel: message.transmissionRiskLevel)
    }

    var message: SAP_Internal_Pt_TraceTimeIntervalWarning {
        var message = SAP_Internal_Pt_TraceTimeIntervalWarning()
        message.locationIDHash = Data(locationIdHash)
        message.startIntervalNumber = startIntervalNumber
        message.period = period
        message.transmissionRiskLevel = transmissionRiskLevel
        return message
    }
}

/// Corona-Warn-App's hourly trace warning package: `export.bin` (`TraceWarningPackage`, plain protobuf bytes with no
/// header, unlike the `"EK Export v1    "` header of exposure key exports) and `export.sig` (`TEKSignatureList`,
/// ECDSA P-256 / SHA-256 over `export.bin`), zipped. This type is the content; the zip is `KioskZip`'s business.
public struct CWATraceWarningPackage: Equatable, Sendable {
    /// Hours since the UNIX epoch: the package's place in the hourly index.
    public var hour: UInt32
    /// Country code (`"DE"` for CWA).
    public var region: String
    public var timeIntervalWarnings: [CWATraceWarning]
    public var checkInProtectedReports: [CWAProtectedReport]

    /// `export.bin` and `export.sig`, the names CWA uses inside the zip.
    public static let exportName = "export.bin"
    public static let signatureName = "export.sig"
    /// The header of exposure key exports: a file starting with it is not a trace warning package.
    public static let keyExportHeader = Array("EK Export v1".utf8)
    /// `export.bin` larger than this is refused before anything else is done with it.
    public static let defaultMaximumSize = 32 * 1024 * 1024
    /// The OID CWA writes into `SignatureInfo.signature_algorithm` (ECDSA with SHA-256).
    public static let signatureAlgorithm = "1.2.840.10045.4.3.2"

    public init(
        hour: UInt32, region: String, timeIntervalWarnings: [CWATraceWarning] = [],
        checkInProtectedReports: [CWAProtectedReport] = []
    ) {
        self.hour = hour
        self.region = region
        self.timeIntervalWarnings = timeIntervalWarnings
        self.checkInProtectedReports = checkInProtectedReports
    }

    /// Checks `signatureList` over `export` first (any of its signatures under `verifier`), and only then parses a
    /// byte of `export`.
    public static func verified(
        export: [UInt8], signatureList: [UInt8], verifier: some SignatureVerifier, maximumSize: Int = defaultMaximumSize
    ) throws(CWAPackageError) -> CWATraceWarningPackage {
        guard export.count <= maximumSize else { throw .oversized }
        let signatures = try Self.signatures(inList: signatureList)
        guard !signatures.isEmpty else { throw .unsigned }
        guard signatures.contains(where: { verifier.isValidSignature($0, for: export) }) else { throw .badSignature }
        return try CWATraceWarningPackage(unverifiedExport: export)
    }

    /// The DER signatures in a `TEKSignatureList` (empty ones dropped).
    public static func signatures(inList bytes: [UInt8]) throws(CWAPackageError) -> [[UInt8]] {
        guard !bytes.isEmpty else { throw .unsigned }
        guard bytes.count <= 64 * 1024,
            let list = try? SAP_External_Exposurenotification_TEKSignatureList(serializedBytes: bytes)
        else {
            throw .malformedSignature
        }
        return list.signatures.map { [UInt8]($0.signature) }.filter { !$0.isEmpty }
    }

    /// A `TEKSignatureList` holding one signature, as CWA's distribution writes it (batch 1 of 1).
    public static func signatureList(signature: [UInt8], keyVersion: String = "v1", keyId: String = "262") -> [UInt8] {
        var info = SAP_External_Exposurenotification_SignatureInfo()
        info.verificationKeyVersion = keyVersion
        info.verificationKeyID = keyId
        info.signatureAlgorithm = signatureAlgorithm
        var entry = SAP_External_Exposurenotification_TEKSignature()
        entry.signatureInfo = info
        entry.batchNum = 1
        entry.batchSize = 1
        entry.signature = Data(signature)
        var list = SAP_External_Exposurenotification_TEKSignatureList()
        list.signatures = [entry]
        return [UInt8]((try? list.serializedData()) ?? Data())
    }

    /// Parses `export.bin` without checking a signature (for the authority's own tools and tests).
    public init(unverifiedExport bytes: [UInt8]) throws(CWAPackageError) {
        if bytes.starts(with: Self.keyExportHeader) { throw .wrongHeader }
        guard let message = try? SAP_Internal_Pt_TraceWarningPackage(serializedBytes: bytes) else { throw .malformed }
        // Unknown fields mean this is some other protobuf (or not one at all): refuse rather than read nothing.
        guard message.unknownFields.data.isEmpty else { throw .wrongHeader }
        self.init(
            hour: message.intervalNumber, region: message.region,
            timeIntervalWarnings: message.timeIntervalWarnings.map(CWATraceWarning.init),
            checkInProtectedReports: message.checkInProtectedReports.map(CWAProtectedReport.init))
    }

    /// `export.bin`'s bytes.
    public var export: [UInt8] {
        var message = SAP_Internal_Pt_TraceWarningPackage()
        message.intervalNumber = hour
        message.region = region
        message.timeIntervalWarnings = timeIntervalWarnings.map(\.message)
        message.checkInProtectedReports = checkInProtectedReports.map(\.message)
        return [UInt8]((try? message.serializedData()) ?? Data())
    }

    /// Only what concerns venues whose `locationIdHash` is in `hashes`: everything else is dropped at once.
    public func keeping(locationIdHashes hashes: Set<[UInt8]>) -> CWATraceWarningPackage {
        CWATraceWarningPackage(
            hour: hour, region: region,
            timeIntervalWarnings: timeIntervalWarnings.filter { hashes.contains($0.locationIdHash) },
            checkInProtectedReports: checkInProtectedReports.filter { hashes.contains($0.locationIdHash) })
    }
}

/// Why a CWA hourly package was refused. Never carries package content.
public enum CWAPackageError: Error, Equatable, Sendable {
    /// Not a zip archive, or one whose structure is inconsistent.
    case notAZip
    /// The archive ends before its structures do.
    case truncated
    /// Larger than allowed, compressed or once decompressed (a zip bomb).
    case oversized
    /// No `export.sig`, or a signature list without a signature.
    case unsigned
    /// `export.sig` is not a `TEKSignatureList`.
    case malformedSignature
    /// No signature verifies under the configured authority key.
    case badSignature
    /// `export.bin` is missing from the archive.
    case missingExport
    /// The archive uses a compression method other than stored or deflate, or encryption.
    case unsupportedCompression
    /// An entry's CRC-32 does not match its content.
    case checksumMismatch
    /// `export.bin` is some other file (an exposure key export, another protobuf).
    case wrongHeader
    /// `export.bin` is not a valid `TraceWarningPackage`.
    case malformed
    /// The package says it belongs to another hour or region than the one it was published under.
    case wrongHour
}

extension CWAPackageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notAZip: "a CWA warning package that is not a valid zip archive"
        case .truncated: "an incomplete CWA warning package"
        case .oversized:
            "a CWA warning package larger than allowed (warnings.maxPackageBytes for the zip, warnings.maxInflatedBytes "
                + "for its export.bin once inflated: a zip bomb is stopped there), nothing kept"
        case .unsigned: "a CWA warning package without a signature"
        case .malformedSignature: "a CWA warning package whose signature list is malformed"
        case .badSignature: "a CWA warning package whose signature does not verify under the configured authority key"
        case .missingExport: "a CWA warning package without export.bin"
        case .unsupportedCompression: "a CWA warning package compressed in a way this kiosk does not read"
        case .checksumMismatch: "a CWA warning package whose content does not match its checksum"
        case .wrongHeader: "a file that is not a CWA trace warning package"
        case .malformed: "a malformed CWA trace warning package"
        case .wrongHour: "a CWA warning package published under another hour or region than it names"
        }
    }
}
