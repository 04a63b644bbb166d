/// A new venue as staff typed it into the menu's form: every field is text, as a form delivers it, and is read the
/// way CWA's official venue-code tool reads it (JavaScript `parseInt`: leading blanks and a sign, then digits; `""`
/// is no number).
///
/// `validated()` applies that tool's creation rules (vectors: `cwa/transcribed/event-qr-code-creation-validation.json`):
/// description and address 1…100 characters (UTF-16 units, as JavaScript counts); permanent types 1, 3…8 without
/// start or end (empty or 0) and a default stay of 1…1440 minutes; temporary types 2, 9…12 with start and end ≥ 0,
/// end after start, and an optional default stay of 0…1440 minutes; any other type is invalid. The kiosk adds one
/// rule of the scanners: no line breaks in description or address.
public struct VenueDraft: Sendable, Equatable {
    public var description: String?
    public var address: String?
    public var type: String?
    public var startTimestamp: String?
    public var endTimestamp: String?
    public var defaultCheckInLengthInMinutes: String?

    public init(
        description: String?, address: String?, type: String?, startTimestamp: String? = nil,
        endTimestamp: String? = nil, defaultCheckInLengthInMinutes: String? = nil
    ) {
        self.description = description
        self.address = address
        self.type = type
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.defaultCheckInLengthInMinutes = defaultCheckInLengthInMinutes
    }

    public static let permanentTypes: Set<Int> = [1, 3, 4, 5, 6, 7, 8]
    public static let temporaryTypes: Set<Int> = [2, 9, 10, 11, 12]
    public static let maximumTextLength = 100
    public static let maximumStayMinutes = 1440

    /// The encoder's fields, or every field that is wrong.
    public func validated() throws(VenueDraftError) -> CWAVenueEncoder.Fields {
        var wrong = [VenueDraftError.Field]()
        let description = self.description ?? ""
        let address = self.address ?? ""
        if !Self.isValidText(description) { wrong.append(.description) }
        if !Self.isValidText(address) { wrong.append(.address) }
        let type = Self.parseInt(self.type)
        let start = Self.parseInt(startTimestamp)
        let end = Self.parseInt(endTimestamp)
        let length = Self.parseInt(defaultCheckInLengthInMinutes)
        var fields = CWAVenueEncoder.Fields(description: description, address: address, type: Int(type ?? 0))

        if let type, Self.permanentTypes.contains(Int(type)) {
            // Empty or zero only.
            if !Self.isBlank(startTimestamp), start != 0 { wrong.append(.startTimestamp) }
            if !Self.isBlank(endTimestamp), end != 0 { wrong.append(.endTimestamp) }
            if let length, (1...Int64(Self.maximumStayMinutes)).contains(length) {
                fields.defaultCheckInLengthInMinutes = UInt32(length)
            } else {
                wrong.append(.defaultCheckInLengthInMinutes)
            }
        } else if let type, Self.temporaryTypes.contains(Int(type)) {
            let startValid = start.map { $0 >= 0 } ?? false
            let endValid = end.map { $0 >= 0 } ?? false
            if !startValid { wrong.append(.startTimestamp) }
            if !endValid { wrong.append(.endTimestamp) }
            if startValid, endValid, let start, let end {
                if end <= start {
                    wrong.append(.startTimestamp)
                } else {
                    fields.startTimestamp = UInt64(start)
                    fields.endTimestamp = UInt64(end)
                }
            }
            if !Self.isBlank(defaultCheckInLengthInMinutes) {
                if let length, (0...Int64(Self.maximumStayMinutes)).contains(length) {
                    fields.defaultCheckInLengthInMinutes = length == 0 ? nil : UInt32(length)
                } else {
                    wrong.append(.defaultCheckInLengthInMinutes)
                }
            }
        } else {
            wrong.append(.type)
        }
        guard wrong.isEmpty else { throw VenueDraftError(fields: wrong) }
        return fields
    }

    /// One line of 1 to `maximumTextLength` UTF-16 units, without the control and bidi characters a venue code may
    /// not carry (`OutsideText`): a venue made here reads back as typed.
    static func isValidText(_ text: String) -> Bool {
        let count = text.utf16.count
        return count >= 1 && count <= maximumTextLength && !text.contains(where: \.isNewline)
            && !OutsideText.containsUnsafe(text)
    }

    static func isBlank(_ text: String?) -> Bool { text == nil || text == "" }

    /// JavaScript's `parseInt(text, 10)`: leading white space, an optional sign, then as many decimal digits as
    /// there are; `nil` (NaN) without any digit. Values beyond ±10¹⁵ are `nil` (no timestamp or length is that big).
    static func parseInt(_ text: String?) -> Int64? {
        guard let text else { return nil }
        var scalars = Substring(text).unicodeScalars.drop { $0.properties.isWhitespace }
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var value: Int64 = 0
        var digits = 0
        for scalar in scalars {
            guard scalar.value >= 0x30, scalar.value <= 0x39 else { break }
            value = value * 10 + Int64(scalar.value - 0x30)
            digits += 1
            if value > 1_000_000_000_000_000 { return nil }
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }
}

/// Which fields of a `VenueDraft` are wrong; the message tells staff what each must be.
public struct VenueDraftError: Error, Sendable, Equatable {
    /// The rules the wrong fields break, for staff.
    public var fieldNames: String { fields.map(\.rule).joined(separator: "; ") }

    public enum Field: String, Sendable, Equatable, CaseIterable {
        case description, address, type, startTimestamp, endTimestamp, defaultCheckInLengthInMinutes

        /// What the field must be.
        public var rule: String {
            switch self {
            case .description: "the venue's name must be 1 to 100 characters on one line"
            case .address: "the address must be 1 to 100 characters on one line"
            case .type: "the venue type must be 1 to 12 (1, 3–8 places; 2, 9–12 events)"
            case .startTimestamp: "an event needs a start time before its end; a place has none"
            case .endTimestamp: "an event needs an end time; a place has none"
            case .defaultCheckInLengthInMinutes:
                "the usual stay must be 1 to 1440 minutes (for a place it is required; for an event 0 means none)"
            }
        }
    }

    /// The wrong fields, in form order, without repeats.
    public let fields: [Field]

    public init(fields: [Field]) {
        var unique = [Field]()
        for field in fields where !unique.contains(field) { unique.append(field) }
        self.fields = unique
    }

    public var message: String {
        "The venue was not created: " + fields.map(\.rule).joined(separator: "; ") + "."
    }
}

extension VenueDraftError: CustomStringConvertible {
    public var description: String { message }
}
