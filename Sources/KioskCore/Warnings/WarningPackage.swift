/// CKPW/1, a health authority's warnings package: `"CKPW" | u8 1 | u8 0 | u32 count | u64 createdAt | records`,
/// published beside a detached DER ECDSA P-256 / SHA-256 signature over the whole file.
public struct WarningPackage: Equatable, Sendable {
    public static let magic = Array("CKPW".utf8)
    public static let version: UInt8 = 1
    static let headerLength = 18
    /// Packages larger than this are refused before anything else is done with them (≈ 1.4 million records).
    public static let defaultMaximumSize = 100 * 1024 * 1024

    /// UNIX seconds at which the authority made the package.
    public let createdAt: UInt64
    /// The CKPR/1 records, 74 bytes each.
    public let records: [[UInt8]]

    public init(createdAt: UInt64, records: [[UInt8]]) throws(WarningPackageError) {
        guard records.allSatisfy({ $0.count == CKPR.recordLength }) else { throw .malformed }
        guard records.count <= Int(UInt32.max) else { throw .oversized }
        self.createdAt = createdAt
        self.records = records
    }

    /// Checks the signature over `bytes` first, and only then reads them. A package that is too large, unsigned or
    /// wrongly signed is refused without parsing.
    public static func verified(
        bytes: [UInt8], signature: [UInt8], verifier: some SignatureVerifier, maximumSize: Int = defaultMaximumSize
    ) throws(WarningPackageError) -> WarningPackage {
        guard bytes.count <= maximumSize else { throw .oversized }
        guard !signature.isEmpty else { throw .unsigned }
        guard verifier.isValidSignature(signature, for: bytes) else { throw .badSignature }
        return try WarningPackage(unverifiedBytes: bytes)
    }

    /// Parses a package without checking its signature (for the authority's own tools and tests).
    public init(unverifiedBytes bytes: [UInt8]) throws(WarningPackageError) {
        var reader = ByteReader(bytes)
        guard reader.read(4) == Self.magic else { throw .notAPackage }
        guard reader.readInteger(UInt8.self) == Self.version else { throw .unsupportedVersion }
        guard reader.readInteger(UInt8.self) == 0 else { throw .malformed }
        guard let count = reader.readInteger(UInt32.self), let createdAt = reader.readInteger(UInt64.self) else {
            throw .truncated
        }
        guard UInt64(reader.remaining) == UInt64(count) * UInt64(CKPR.recordLength) else { throw .truncated }
        var records = [[UInt8]]()
        records.reserveCapacity(Int(count))
        for _ in 0..<count { records.append(reader.read(CKPR.recordLength)!) }
        try self.init(createdAt: createdAt, records: records)
    }

    /// The package's bytes, as signed and published.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.headerLength + records.count * CKPR.recordLength)
        out.append(Self.version)
        out.append(0)
        out.appendBigEndian(UInt32(records.count))
        out.appendBigEndian(createdAt)
        for record in records { out.append(contentsOf: record) }
        return out
    }
}

/// Why a warnings package was refused. Never carries package content.
public enum WarningPackageError: Error, Equatable, Sendable {
    case notAPackage
    case unsupportedVersion
    case malformed
    case truncated
    case oversized
    case unsigned
    case badSignature
}

extension WarningPackageError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notAPackage: "not a warnings package"
        case .unsupportedVersion: "a warnings package of a version this kiosk does not know"
        case .malformed: "a malformed warnings package"
        case .truncated: "an incomplete warnings package"
        case .oversized: "a warnings package larger than allowed"
        case .unsigned: "a warnings package without a signature"
        case .badSignature: "a warnings package whose signature does not verify under the configured authority key"
        }
    }
}
