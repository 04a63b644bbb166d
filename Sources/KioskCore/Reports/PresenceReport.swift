/// The plaintext of a CKPR/1 record: one UTC day's part of a stay, as Apple/Google's Off-Device Venue Check-Ins specification allows
/// (start and length in 10-minute intervals, transmission risk level, report type, infectiousness).
public struct PresenceReport: Equatable, Hashable, Sendable {
    /// Intervals since the UNIX epoch (`floor(seconds / 600)`).
    public var startIntervalNumber: UInt32
    /// Length in intervals, 1...144; the report ends no later than the end of its start's UTC day.
    public var period: UInt16
    /// Transmission risk level, 1...8.
    public var transmissionRiskLevel: UInt8
    public var reportType: ReportType
    public var infectiousness: Infectiousness

    public init(
        startIntervalNumber: UInt32, period: UInt16, transmissionRiskLevel: UInt8,
        reportType: ReportType = .confirmedTest, infectiousness: Infectiousness = .standard
    ) {
        self.startIntervalNumber = startIntervalNumber
        self.period = period
        self.transmissionRiskLevel = transmissionRiskLevel
        self.reportType = reportType
        self.infectiousness = infectiousness
    }

    /// The UTC day (days since the epoch) the report covers.
    public var day: UInt32 { startIntervalNumber / Interval.perDay }

    /// The interval just after the report.
    public var endIntervalNumber: UInt32 { startIntervalNumber + UInt32(period) }

    /// Checks the ranges CKPR/1 allows, including that the report lies within `day`.
    public func validate(day expectedDay: UInt32? = nil) throws(ProtectedReportError) {
        guard period >= 1, period <= 144 else { throw .invalidContent("period") }
        guard (1...8).contains(transmissionRiskLevel) else { throw .invalidContent("transmission risk level") }
        let day = self.day
        if let expectedDay, expectedDay != day { throw .invalidContent("day") }
        guard UInt64(startIntervalNumber) + UInt64(period) <= (UInt64(day) + 1) * UInt64(Interval.perDay) else {
            throw .invalidContent("end of day")
        }
    }

    /// The 10-byte plaintext: `u8 version=1 | u32 start | u16 period | u8 TRL | u8 reportType | u8 infectiousness`.
    public var plaintext: [UInt8] {
        var out: [UInt8] = [CKPR.version]
        out.appendBigEndian(startIntervalNumber)
        out.appendBigEndian(period)
        out.append(transmissionRiskLevel)
        out.append(reportType.rawValue)
        out.append(infectiousness.rawValue)
        return out
    }

    /// Parses and validates a 10-byte plaintext.
    public init(plaintext: [UInt8]) throws(ProtectedReportError) {
        guard plaintext.count == CKPR.plaintextLength else { throw .invalidLength }
        var reader = ByteReader(plaintext)
        guard reader.readInteger(UInt8.self) == CKPR.version else { throw .invalidContent("version") }
        let start = reader.readInteger(UInt32.self)!
        let period = reader.readInteger(UInt16.self)!
        let trl = reader.readInteger(UInt8.self)!
        guard let type = ReportType(rawValue: reader.readInteger(UInt8.self)!) else {
            throw .invalidContent("report type")
        }
        guard let infectiousness = Infectiousness(rawValue: reader.readInteger(UInt8.self)!) else {
            throw .invalidContent("infectiousness")
        }
        self.init(
            startIntervalNumber: start, period: period, transmissionRiskLevel: trl, reportType: type,
            infectiousness: infectiousness)
        try validate()
    }
}

/// How the diagnosis behind a report was made.
public enum ReportType: UInt8, Sendable, CaseIterable, Codable {
    case confirmedTest = 1
    case confirmedClinicalDiagnosis = 2
    case selfReport = 3
    case recursive = 4
}

/// The reporter's infectiousness at the time of the stay.
public enum Infectiousness: UInt8, Sendable, CaseIterable, Codable {
    case none = 0
    case standard = 1
    case high = 2
}

/// 10-minute intervals, the time unit of every report format the kiosk speaks.
public enum Interval {
    public static let seconds: Int64 = 600
    public static let perDay: UInt32 = 144

    /// `floor(unixSeconds / 600)`.
    public static func number(atUnixSeconds seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / Self.seconds : (seconds - Self.seconds + 1) / Self.seconds
    }
}

/// Why a protected report could not be sealed or opened. Carries no report content.
public enum ProtectedReportError: Error, Equatable, Sendable {
    /// The record or plaintext has the wrong size.
    case invalidLength
    /// The record's tag is not this venue's tag for that day.
    case tagMismatch
    /// The MAC did not verify: the record was altered, or belongs to another venue.
    case authenticationFailed
    /// The decrypted content is out of range (the field named).
    case invalidContent(String)
    /// The crypto library failed.
    case crypto(CryptoError)
}

extension ProtectedReportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidLength: "the report has the wrong length"
        case .tagMismatch: "the report is not for this venue and day"
        case .authenticationFailed: "the report failed its integrity check"
        case .invalidContent(let field): "the report's \(field) is out of range"
        case .crypto(let error): error.description
        }
    }
}
