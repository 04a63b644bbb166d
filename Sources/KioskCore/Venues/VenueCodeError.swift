/// Why a scanned text is not a usable venue code. The messages name the problem for a field worker and never repeat
/// the code's content (names, addresses, seeds or identifiers).
public enum VenueCodeError: Error, Equatable, Sendable {
    /// Which part of a venue's text is wrong.
    public enum TextField: String, Sendable, Equatable { case description, address }
    /// What is wrong with it.
    public enum TextProblem: String, Sendable, Equatable { case empty, tooLong, lineBreak }

    /// The text is longer than any QR code can hold.
    case tooLong(byteCount: Int)
    /// Not a venue code of any family the kiosk knows (CWA `INVALID_URL`).
    case notAVenueCode
    /// A known family, but a URL or payload version the kiosk cannot read.
    case unsupportedVersion(VenueCodeFormat)
    /// The part after `#` is not valid base64url/base32, or not the expected protobuf (CWA `INVALID_PAYLOAD`).
    case undecodablePayload(VenueCodeFormat)
    /// CWA `vendorData` (`CWALocationData`) cannot be read (CWA `INVALID_VENDOR_DATA`).
    case invalidVendorData(VenueCodeFormat)
    /// SwissCovid/NotifyMe `countryData` cannot be read.
    case invalidCountryData(VenueCodeFormat)
    /// Description empty, over 255 characters or more than one line (CWA `INVALID_DESCRIPTION`).
    case invalidDescription(VenueCodeFormat, TextProblem)
    /// Address empty, over 255 characters or more than one line (CWA `INVALID_ADDRESS`).
    case invalidAddress(VenueCodeFormat, TextProblem)
    /// The event ends before it starts (CWA `INVALID_TIMESTAMPS`).
    case invalidTimestamps(VenueCodeFormat)
    /// The cryptographic seed does not have the required length (CWA `INVALID_CRYPTO_SEED`).
    case invalidCryptographicSeed(VenueCodeFormat)
    /// A hash could not be computed (the crypto library failed; not the code's fault).
    case cryptoFailure(CryptoError)

    /// CWA's error code for this failure, as the Corona-Warn-App names it (`INVALID_URL`, `INVALID_PAYLOAD`, …), or
    /// `nil` where CWA has no equivalent.
    public var cwaErrorCode: String? {
        switch self {
        case .tooLong, .notAVenueCode: "INVALID_URL"
        case .unsupportedVersion: "INVALID_URL"
        case .undecodablePayload: "INVALID_PAYLOAD"
        case .invalidVendorData: "INVALID_VENDOR_DATA"
        case .invalidCountryData: nil
        case .invalidDescription: "INVALID_DESCRIPTION"
        case .invalidAddress: "INVALID_ADDRESS"
        case .invalidTimestamps: "INVALID_TIMESTAMPS"
        case .invalidCryptographicSeed: "INVALID_CRYPTO_SEED"
        case .cryptoFailure: nil
        }
    }

    /// The English text the Corona-Warn-App shows for `cwaErrorCode`, or `nil` where there is none.
    public var cwaAppMessage: String? {
        guard let code = cwaErrorCode else { return nil }
        if code == "INVALID_URL" {
            return
                "The scanned QR code is not valid for check-ins for an event or place. Please scan a suitable QR code (INVALID_URL)."
        }
        return
            "Check-in prevented due to invalid QR code. The responsible party has to generate a new QR code (\(code))."
    }

    /// What a field worker should read.
    public var message: String {
        switch self {
        case .tooLong(let count):
            return "This text is \(count) bytes long, more than any QR code holds: it is not a venue code."
        case .notAVenueCode:
            return "This is not a venue code the kiosk knows (CWA, SwissCovid, NotifyMe or Cléa)."
        case .unsupportedVersion(let format):
            return "This is a \(format.displayName) code, but of a version the kiosk cannot read."
        case .undecodablePayload(let format):
            return "This is a \(format.displayName) code, but its data is damaged or incomplete. Ask for a new code."
        case .invalidVendorData(let format):
            return "This is a \(format.displayName) code, but its venue type data is damaged. Ask for a new code."
        case .invalidCountryData(let format):
            return "This is a \(format.displayName) code, but its venue settings are damaged. Ask for a new code."
        case .invalidDescription(let format, let problem):
            return
                "This is a \(format.displayName) code, but its venue name \(Self.phrase(problem)). Ask for a new code."
        case .invalidAddress(let format, let problem):
            return "This is a \(format.displayName) code, but its address \(Self.phrase(problem)). Ask for a new code."
        case .invalidTimestamps(let format):
            return "This is a \(format.displayName) code, but its event ends before it starts. Ask for a new code."
        case .invalidCryptographicSeed(let format):
            return
                "This is a \(format.displayName) code, but its security seed has the wrong length. Ask for a new code."
        case .cryptoFailure:
            return "The kiosk could not compute the venue's identifier (crypto library failure). Restart the kiosk."
        }
    }

    private static func phrase(_ problem: TextProblem) -> String {
        switch problem {
        case .empty: "is empty"
        case .tooLong: "is longer than 255 characters"
        case .lineBreak: "has more than one line"
        }
    }
}

extension VenueCodeError: CustomStringConvertible {
    public var description: String { message }
}
