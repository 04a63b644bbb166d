public import Foundation
public import KioskCore

/// A request on the control socket (one JSON object per line).
public struct ControlRequest: Codable, Sendable, Equatable {
    public var command: String
    public var card: Int?
    public var text: String?
    public var path: String?
    public var button: String?
    public var seconds: Double?
    public var flag: Bool?
    public var answers: [String]?
    public var fields: [String: String]?

    public init(
        command: String, card: Int? = nil, text: String? = nil, path: String? = nil, button: String? = nil,
        seconds: Double? = nil, flag: Bool? = nil, answers: [String]? = nil, fields: [String: String]? = nil
    ) {
        self.command = command
        self.card = card
        self.text = text
        self.path = path
        self.button = button
        self.seconds = seconds
        self.flag = flag
        self.answers = answers
        self.fields = fields
    }
}

extension ControlRequest {
    /// Reads one request line as the control socket receives it (a JSON object); nil when it is not a request.
    public init?(line: String) {
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else { return nil }
        self = request
    }

    /// The staff command a `staff-command` request names in `text` (nil: none); `create` takes the venue form from
    /// `fields`.
    public var staffCommand: StaffCommand? {
        switch text {
        case "create":
            .createVenue(
                VenueDraft(
                    description: fields?["description"], address: fields?["address"],
                    type: fields?["type"], startTimestamp: fields?["start"],
                    endTimestamp: fields?["end"], defaultCheckInLengthInMinutes: fields?["length"]))
        case "wipe-confirm": .wipe(confirmed: true)
        default: text.flatMap(StaffCommand.named)
        }
    }
}

/// One step of what the kiosk did, as `kiosk simulate … --json` prints it.
public struct ControlStep: Codable, Sendable, Equatable {
    /// `tap`, `shown`, `lights`, `printed`, `printFailed`, `saved`, `saveFailed`, `enrolled`, `enrolFailed`, `wiped`,
    /// `wipeFailed`, `expired`, `expiryFailed`, `warningAcknowledged`.
    public var type: String
    public var title: String?
    public var body: String?
    public var kind: String?
    public var detail: String?
    public var count: Int?

    public init(
        type: String, title: String? = nil, body: String? = nil, kind: String? = nil, detail: String? = nil,
        count: Int? = nil
    ) {
        self.type = type
        self.title = title
        self.body = body
        self.kind = kind
        self.detail = detail
        self.count = count
    }
}

/// The answer on the control socket.
public struct ControlResponse: Codable, Sendable, Equatable {
    public var ok: Bool
    /// What a person at the kiosk would see, line by line.
    public var lines: [String]
    /// The steps of the event this command caused, in order.
    public var steps: [ControlStep]
    /// Command-specific data (status, lights, receipts), as JSON text.
    public var data: String?

    public init(ok: Bool, lines: [String], steps: [ControlStep] = [], data: String? = nil) {
        self.ok = ok
        self.lines = lines
        self.steps = steps
        self.data = data
    }

    public static func failure(_ message: String) -> ControlResponse { ControlResponse(ok: false, lines: [message]) }
}

extension ControlStep {
    /// The steps of a station report, without secrets, venue identifiers or stays.
    public static func steps(of report: StationReport) -> [ControlStep] {
        report.steps.map { step in
            switch step {
            case .tapRecorded(let outcome): ControlStep(type: "tap", kind: outcome.kindName, detail: outcome.detailText)
            case .shown(let message):
                ControlStep(type: "shown", title: message.title, body: message.body, kind: message.kind.rawValue)
            case .indicated(let pattern): ControlStep(type: "lights", kind: pattern.rawValue)
            case .printed(let kind): ControlStep(type: "printed", kind: kind.rawValue)
            case .printFailed(let kind, let failure):
                ControlStep(type: "printFailed", kind: kind.rawValue, detail: failure.description)
            case .persisted: ControlStep(type: "saved")
            case .persistFailed(let failure): ControlStep(type: "saveFailed", detail: failure.description)
            case .cardEnrolled: ControlStep(type: "enrolled")
            case .enrolmentFailed(let failure): ControlStep(type: "enrolFailed", detail: failure.description)
            case .storeWiped: ControlStep(type: "wiped")
            case .wipeFailed(let failure): ControlStep(type: "wipeFailed", detail: failure.description)
            case .expired(let count): ControlStep(type: "expired", count: count)
            case .expiryFailed(let failure): ControlStep(type: "expiryFailed", detail: failure.description)
            case .warningAcknowledged: ControlStep(type: "warningAcknowledged")
            case .sessionStep(let name): ControlStep(type: "session", kind: name)
            case .spoke(.say(let text, let language, _)):
                ControlStep(type: "spoke", body: text, kind: language.rawValue)
            case .spoke(.stop): ControlStep(type: "speechStopped")
            }
        }
    }

    /// The line a person would read for this step (nil: nothing visible).
    public var humanLine: String? {
        switch type {
        case "shown": "[screen] \(title ?? "")" + ((body ?? "").isEmpty ? "" : " — \(body ?? "")")
        case "lights": "[lights] \(kind ?? "")"
        case "printed": "[printer] printed \(kind ?? "")"
        case "printFailed": "[printer] \(kind ?? "") not printed: \(detail ?? "")"
        case "enrolled": "[reader] card enrolled"
        case "enrolFailed": "[reader] \(detail ?? "")"
        case "wiped": "[store] all check-ins wiped"
        case "expired": (count ?? 0) > 0 ? "[store] \(count ?? 0) expired check-ins deleted" : nil
        case "saveFailed", "wipeFailed", "expiryFailed": "[store] \(detail ?? "")"
        case "warningAcknowledged": "[screen] warning acknowledged"
        case "spoke": "[speech] \(body ?? "")"
        case "speechStopped": "[speech] stopped"
        default: nil
        }
    }
}

extension TapOutcome {
    /// `checkedIn`, `checkedOut`, `alreadyRegistered`, `refused`.
    public var kindName: String {
        switch self {
        case .checkedIn: "checkedIn"
        case .checkedOut: "checkedOut"
        case .alreadyRegistered: "alreadyRegistered"
        case .refused: "refused"
        }
    }

    var detailText: String? {
        switch self {
        case .refused(let refusal): refusal.metricReason
        case .checkedIn(_, _, let endedElsewhere): endedElsewhere ? "endedStayElsewhere" : nil
        default: nil
        }
    }
}

extension TapRefusal {
    /// A fixed label for metrics and machine-readable output.
    public var metricReason: String {
        switch self {
        case .clockNotSynchronized: "clock_not_synchronized"
        case .clockBehindLastTap: "clock_behind_last_tap"
        case .dailyLimitReached: "daily_limit"
        case .eventEnded: "event_ended"
        case .cardBlocked: "card_blocked"
        case .staffCard: "staff_card"
        case .storeUnavailable: "store_unavailable"
        case .cryptoFailure: "crypto_failure"
        case .profileUnreadable: "profile_unreadable"
        case .cardLeft: "card_left"
        case .diaryUnreadable: "diary_unreadable"
        }
    }
}
