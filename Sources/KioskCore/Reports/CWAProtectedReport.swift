import Foundation
import KioskProto
import SwiftProtobuf

/// Corona-Warn-App's check-in protected report (`CheckInProtectedReport`), for health authorities that run CWA's
/// server: `locationIdHash` in clear, the `CheckInRecord` encrypted with AES-256-CBC under a key only devices that
/// saw the venue's code can derive, and an HMAC-SHA256 over IV and ciphertext.
public struct CWAProtectedReport: Equatable, Hashable, Sendable {
    public let locationIdHash: [UInt8]
    public let iv: [UInt8]
    public let encryptedCheckInRecord: [UInt8]
    public let mac: [UInt8]

    public init(locationIdHash: [UInt8], iv: [UInt8], encryptedCheckInRecord: [UInt8], mac: [UInt8]) {
        self.locationIdHash = locationIdHash
        self.iv = iv
        self.encryptedCheckInRecord = encryptedCheckInRecord
        self.mac = mac
    }

    /// The decrypted content: start interval, length in intervals, transmission risk level.
    public struct Record: Equatable, Sendable {
        public let startIntervalNumber: UInt32
        public let period: UInt32
        public let transmissionRiskLevel: UInt32

        public init(startIntervalNumber: UInt32, period: UInt32, transmissionRiskLevel: UInt32) {
            self.startIntervalNumber = startIntervalNumber
            self.period = period
            self.transmissionRiskLevel = transmissionRiskLevel
        }

        /// CWA's rule for a usable warning: a period and a transmission risk level 1…8.
        public var isValidWarning: Bool { period > 0 && (1...8).contains(transmissionRiskLevel) }

        /// The record's protobuf bytes.
        public var serialized: [UInt8] {
            var message = SAP_Internal_Pt_CheckInRecord()
            message.startIntervalNumber = startIntervalNumber
            message.period = period
            message.transmissionRiskLevel = transmissionRiskLevel
            return [UInt8]((try? message.serializedData()) ?? Data())
        }
    }

    /// `SHA-256("CWA-ENCRYPTION-KEY" || locationId)` and `SHA-256("CWA-MAC-KEY" || locationId)`.
    public static func keys(locationId: [UInt8], crypto: some CryptoProvider) throws(CryptoError) -> (
        encryption: [UInt8], mac: [UInt8]
    ) {
        (
            try crypto.sha256(Array("CWA-ENCRYPTION-KEY".utf8) + locationId),
            try crypto.sha256(Array("CWA-MAC-KEY".utf8) + locationId)
        )
    }

    /// Seals `record` for the venue `locationId` with `iv` (16 bytes; fresh from the CSPRNG in production).
    public static func seal(_ record: Record, locationId: [UInt8], iv: [UInt8], crypto: some CryptoProvider)
        throws(CryptoError) -> CWAProtectedReport
    {
        var (encryptionKey, macKey) = try keys(locationId: locationId, crypto: crypto)
        defer {
            crypto.wipe(&encryptionKey)
            crypto.wipe(&macKey)
        }
        var plaintext = record.serialized
        defer { crypto.wipe(&plaintext) }
        let ciphertext = try crypto.aes256CBCEncrypt(key: encryptionKey, iv: iv, plaintext: plaintext)
        let mac = try crypto.hmacSHA256(key: macKey, data: iv + ciphertext)
        return CWAProtectedReport(
            locationIdHash: try crypto.sha256(locationId), iv: iv, encryptedCheckInRecord: ciphertext, mac: mac)
    }

    /// Opens the report with the venue's `locationId`: MAC first (constant time), then decryption.
    public func open(locationId: [UInt8], crypto: some CryptoProvider) throws(ProtectedReportError) -> Record {
        do {
            var (encryptionKey, macKey) = try Self.keys(locationId: locationId, crypto: crypto)
            defer {
                crypto.wipe(&encryptionKey)
                crypto.wipe(&macKey)
            }
            let expected = try crypto.hmacSHA256(key: macKey, data: iv + encryptedCheckInRecord)
            guard crypto.constantTimeEquals(expected, mac) else { throw ProtectedReportError.authenticationFailed }
            var plaintext = try crypto.aes256CBCDecrypt(key: encryptionKey, iv: iv, ciphertext: encryptedCheckInRecord)
            defer { crypto.wipe(&plaintext) }
            guard let message = try? SAP_Internal_Pt_CheckInRecord(serializedBytes: plaintext) else {
                throw ProtectedReportError.invalidContent("record")
            }
            return Record(
                startIntervalNumber: message.startIntervalNumber, period: message.period,
                transmissionRiskLevel: message.transmissionRiskLevel)
        } catch let error as ProtectedReportError {
            throw error
        } catch let error as CryptoError {
            throw error == .decryptionFailed ? .authenticationFailed : .crypto(error)
        } catch {
            throw .invalidLength
        }
    }

    /// The report's protobuf bytes (`CheckInProtectedReport`).
    public var serialized: [UInt8] { [UInt8]((try? message.serializedData()) ?? Data()) }

    /// Whether this has the shape of a CWA protected report (hash, IV and MAC lengths, whole AES blocks, at most
    /// four): what the authority accepts and publishes.
    public var hasReportShape: Bool {
        locationIdHash.count == 32 && iv.count == 16 && mac.count == 32 && !encryptedCheckInRecord.isEmpty
            && encryptedCheckInRecord.count % 16 == 0 && encryptedCheckInRecord.count <= 64
    }

    /// Parses `CheckInProtectedReport` bytes.
    public init(serialized bytes: [UInt8]) throws(ProtectedReportError) {
        guard let message = try? SAP_Internal_Pt_CheckInProtectedReport(serializedBytes: bytes) else {
            throw .invalidLength
        }
        self.init(message)
    }

    init(_ message: SAP_Internal_Pt_CheckInProtectedReport) {
        self.init(
            locationIdHash: [UInt8](message.locationIDHash), iv: [UInt8](message.iv),
            encryptedCheckInRecord: [UInt8](message.encryptedCheckInRecord), mac: [UInt8](message.mac))
    }

    var message: SAP_Internal_Pt_CheckInProtectedReport {
        var message = SAP_Internal_Pt_CheckInProtectedReport()
        message.locationIDHash = Data(locationIdHash)
        message.iv = Data(iv)
        message.encryptedCheckInRecord = Data(encryptedCheckInRecord)
        message.mac = Data(mac)
        return message
    }

    /// A CWA `SubmissionPayload` carrying the consented reports, plus fake reports of the same shape (random bytes,
    /// indistinguishable without the venue's code), in a CSPRNG-shuffled order. The fakes are laid out over
    /// `locationIdHash` values as a CKPB/1 batch's decoys are over tags (`ReportBatch.classSizes(forReal:)`): some
    /// carry a real report's venue hash, the rest fresh random hashes, so that which hashes repeat and how often is
    /// the same for every count of real reports in a bucket.
    public static func submissionPayload(for preview: Preview, crypto: some CryptoProvider) throws(CryptoError)
        -> [UInt8]
    {
        var reports = [SAP_Internal_Pt_CheckInProtectedReport]()
        for (locationId, report) in preview.sealingPlan {
            let record = Record(
                startIntervalNumber: report.startIntervalNumber, period: UInt32(report.period),
                transmissionRiskLevel: UInt32(report.transmissionRiskLevel))
            reports.append(
                try seal(record, locationId: locationId, iv: try crypto.randomBytes(count: 16), crypto: crypto).message)
        }
        reports += try ReportBatch.decoys(
            forRealLabels: reports.map { [UInt8]($0.locationIDHash) },
            freshLabel: { () throws(CryptoError) in try crypto.randomBytes(count: 32) },
            decoy: { hash throws(CryptoError) in
                CWAProtectedReport(
                    locationIdHash: hash, iv: try crypto.randomBytes(count: 16),
                    encryptedCheckInRecord: try crypto.randomBytes(count: 16), mac: try crypto.randomBytes(count: 32)
                ).message
            })
        try ReportBatch.shuffle(&reports, crypto: crypto)
        var payload = SAP_Internal_SubmissionPayload()
        payload.checkInProtectedReports = reports
        payload.submissionType = .pcrTest
        return [UInt8]((try? payload.serializedData()) ?? Data())
    }

    /// The reports in a `SubmissionPayload`'s bytes.
    public static func reports(inSubmissionPayload bytes: [UInt8]) throws(ProtectedReportError) -> [CWAProtectedReport]
    {
        guard let payload = try? SAP_Internal_SubmissionPayload(serializedBytes: bytes) else { throw .invalidLength }
        return payload.checkInProtectedReports.map(CWAProtectedReport.init)
    }
}
