public import Foundation

/// The consent flow of a positive visitor who wants to share stays, as a pure state machine that a screen or the
/// staff console drives (Off-Device Venue Check-Ins specification, App UI requirements 5–9):
///
/// 1. the holder proves presence with their card (a PIN step can be added: `presence(pinRequired:)`);
/// 2. their stays of the last 14 days are listed, **none selected**; they select explicitly;
/// 3. they say when symptoms began (this picks the transmission risk level) and how the reports leave;
/// 4. the kiosk discloses that submitting risks revealing their identity and location;
/// 5. it shows exactly what will leave the device and asks yes or no — two choices of equal weight, neither a default;
/// 6. yes → the shell seals and outputs exactly the previewed reports. Nothing is remembered: every flow asks again.
///
/// Aborting at any step returns to the start with nothing kept.
public struct ConsentFlow: Sendable {
    public enum State: Equatable, Sendable {
        /// Waiting for the holder's card.
        case awaitingCard
        /// Listing the holder's stays; `selected` starts empty.
        case selecting(stays: [ReportableStay], selected: Set<ReportableStay.ID>)
        /// Asking when symptoms began and how the reports should leave.
        case askingDetails(selection: [ReportableStay])
        /// Telling the holder what submitting risks, before asking for permission.
        case disclosing(Preview)
        /// Showing exactly what will leave and asking yes or no.
        case asking(Preview)
        /// The holder said yes to this preview: the shell seals and outputs it, then reports the outcome.
        case consented(Preview)
        /// Done: what happened, for the screen. Nothing of the flow is kept.
        case finished(Outcome)
    }

    public enum Event: Equatable, Sendable {
        /// The holder's card was read and their stays of the last 14 days were opened.
        case cardPresented(stays: [ReportableStay])
        case toggle(ReportableStay.ID)
        /// Moves on from the selection (needs at least one selected stay).
        case confirmSelection
        case details(symptoms: SymptomIndication, output: ReportOutput)
        /// The holder has read the disclosure.
        case acknowledgeDisclosure
        /// The holder's answer: `true` for yes, `false` for no. There is no other way past the question.
        case answer(Bool)
        /// The shell finished (or failed) the output.
        case outputFinished(Outcome)
        /// Cancel, a timeout or the card taken away: everything is dropped.
        case abort
    }

    /// What happened at the end of a flow.
    public enum Outcome: Equatable, Sendable {
        case declined
        case aborted
        case nothingToReport
        case delivered(ReportOutput, reportCount: Int)
        /// The output failed (printer empty, stick missing, upload refused); the holder may try again or choose
        /// another output, starting a new flow.
        case failed(ReportOutput, reason: String)
    }

    public private(set) var state: State = .awaitingCard
    public let now: Int64
    public let parameters: PresenceTracingParameters

    /// A fresh flow at `now` (UNIX seconds), with the authority's parameters.
    public init(now: Int64, parameters: PresenceTracingParameters = .cwaProduction) {
        self.now = now
        self.parameters = parameters
    }

    /// Applies `event`; an event that does not fit the current state changes nothing and returns false.
    @discardableResult
    public mutating func handle(_ event: Event) -> Bool {
        if event == .abort {
            switch state {
            case .finished: return false
            default:
                state = .finished(.aborted)
                return true
            }
        }
        switch (state, event) {
        case (.awaitingCard, .cardPresented(let stays)):
            let recent = stays.filter { $0.end > now - 14 * 86_400 && $0.start <= now }.sorted { $0.start > $1.start }
            state = recent.isEmpty ? .finished(.nothingToReport) : .selecting(stays: recent, selected: [])
        case (.selecting(let stays, var selected), .toggle(let id)):
            guard stays.contains(where: { $0.id == id }) else { return false }
            if selected.contains(id) { selected.remove(id) } else { selected.insert(id) }
            state = .selecting(stays: stays, selected: selected)
        case (.selecting(let stays, let selected), .confirmSelection):
            guard !selected.isEmpty else { return false }
            state = .askingDetails(selection: stays.filter { selected.contains($0.id) })
        case (.askingDetails(let selection), .details(let symptoms, let output)):
            let preview = Preview(
                selection: selection, symptoms: symptoms, output: output, now: now, parameters: parameters)
            state = preview.isEmpty ? .finished(.nothingToReport) : .disclosing(preview)
        case (.disclosing(let preview), .acknowledgeDisclosure):
            state = .asking(preview)
        case (.asking(let preview), .answer(let yes)):
            state = yes ? .consented(preview) : .finished(.declined)
        case (.consented, .outputFinished(let outcome)):
            state = .finished(outcome)
        default:
            return false
        }
        return true
    }

    /// The two answers, presented alike: same label style, size and colour, in a fixed order; neither is a default.
    public static func answers(in catalog: Catalog = .english) -> [AnswerOption] {
        [
            AnswerOption(answer: true, label: catalog[.consentYes]),
            AnswerOption(answer: false, label: catalog[.consentNo]),
        ]
    }

    /// The disclosure the holder reads before being asked (the specification's UI requirement 7).
    public static func disclosure(in catalog: Catalog = .english) -> String { catalog[.consentDisclosure] }
}

/// One answer button of the consent question.
public struct AnswerOption: Equatable, Sendable {
    public let answer: Bool
    public let label: String
}

/// How the reports leave the kiosk.
public enum ReportOutput: Equatable, Sendable, Codable {
    /// A receipt with the batch as QR codes, to carry to the test centre.
    case print
    /// Files on a USB stick.
    case export
    /// Sent to the health authority with the verification code from the test centre.
    case upload(verificationCode: String)

    /// The kind, without the verification code (for messages and metrics).
    public var kind: String {
        switch self {
        case .print: "print"
        case .export: "export"
        case .upload: "upload"
        }
    }
}

/// A stay as the consent flow lists it: readable only because the holder's card is present.
public struct ReportableStay: Equatable, Hashable, Sendable, Identifiable {
    public let id: String
    public let venueName: String
    public let locationId: [UInt8]
    /// UNIX seconds.
    public let start: Int64
    public let end: Int64
    /// The venue's CrowdNotifier keys, for a stay at a SwissCovid or NotifyMe venue: with v3 keys the stay can also
    /// be sent as server-based CrowdNotifier entries (`CrowdNotifierUploadPayload`).
    public let crowdNotifier: CrowdNotifierVenueKeys?

    public init(
        id: String, venueName: String, locationId: [UInt8], start: Int64, end: Int64,
        crowdNotifier: CrowdNotifierVenueKeys? = nil
    ) {
        self.id = id
        self.venueName = venueName
        self.locationId = locationId
        self.start = start
        self.end = end
        self.crowdNotifier = crowdNotifier
    }
}

/// Exactly what will leave the device if the holder says yes: the reports per stay after rounding, decay and
/// splitting, with their risk levels (told in words: `weight(ofLevel:)`), and how many dummies are added.
public struct Preview: Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        public let stay: ReportableStay
        /// The reports this stay becomes; empty when the stay is too short or too old to matter.
        public let reports: [PresenceReport]
        /// The parts of hours this stay becomes for a CrowdNotifier server (a venue with v3 keys); empty otherwise.
        public let hourParts: [CrowdNotifierUploadEntry.HourPart]
    }

    public let items: [Item]
    public let symptoms: SymptomIndication
    public let output: ReportOutput
    public let createdAt: Int64

    init(
        selection: [ReportableStay], symptoms: SymptomIndication, output: ReportOutput, now: Int64,
        parameters: PresenceTracingParameters
    ) {
        self.items = selection.map { stay in
            Item(
                stay: stay,
                reports: StayPreparation.reports(
                    stayStart: stay.start, stayEnd: stay.end, reportTime: now,
                    symptoms: symptoms, parameters: parameters),
                hourParts: stay.crowdNotifier.map {
                    CrowdNotifierUploadEntry.hourParts(keys: $0, startMs: stay.start * 1000, endMs: stay.end * 1000)
                } ?? [])
        }
        self.symptoms = symptoms
        self.output = output
        self.createdAt = now
    }

    public var reportCount: Int { items.reduce(0) { $0 + $1.reports.count } }

    /// How many parts of hours go to a CrowdNotifier server (real entries of the `UserUploadPayload`).
    public var hourPartCount: Int { items.reduce(0) { $0 + $1.hourParts.count } }

    /// Nothing would leave: no report and no part of an hour.
    public var isEmpty: Bool { reportCount == 0 && hourPartCount == 0 }

    /// Whether the CrowdNotifier upload goes out by `output`: always on a stick and in an upload (so that neither
    /// tells whether the holder was at such a venue), on paper only when there are parts of hours to print.
    public var carriesCrowdNotifierUpload: Bool {
        switch output {
        case .export, .upload: true
        case .print: hourPartCount > 0
        }
    }

    /// Dummy records added so that the batch does not tell how many reports are real.
    public var dummyCount: Int { ReportBatch.paddedCount(forReal: reportCount) - reportCount }

    /// The reports with the venue each belongs to, in order — what the shell seals after a yes.
    public var sealingPlan: [(locationId: [UInt8], report: PresenceReport)] {
        items.flatMap { item in item.reports.map { (item.stay.locationId, $0) } }
    }

    /// How strongly a report counts for warnings, in words: the holder never sees the transmission risk level's number
    /// (1…8, from when their symptoms began and how long ago the stay was; `TransmissionRisk`). The levels are told in
    /// three plain phrases by the weight Corona-Warn-App gives them (`PresenceTracingParameters.cwaProduction`):
    ///
    /// - 6, 7, 8 (weight 1.2 to 1.6, the days around the onset of symptoms): “Counts fully for warnings.”;
    /// - 4, 5 (weight 0.8 and 1): “Counts less for warnings.”;
    /// - 1, 2, 3 (weight 0.6 or none; levels without weight are not sent at all): “Counts only a little for warnings.”.
    public static func weight(ofLevel level: UInt8) -> TextKey {
        switch level {
        case 6...: .previewWeightFull
        case 4...5: .previewWeightLess
        default: .previewWeightLittle
        }
    }

    /// The preview in plain words, one line each: what is sent for each stay, and what is added — as the staff
    /// terminal's report conversation shows it, in UTC (its stay list is in UTC too).
    public var lines: [String] { lines(in: .english, zone: nil) }

    /// The preview in plain words in `catalog`'s language. On the kiosk's screen `zone` is the venue's: CWA's
    /// 10-minute intervals and SwissCovid's parts of hours (UTC) are shown as the visitor's clock reads them
    /// (`VisitorTime`); nil for the staff terminal's UTC (`TimeText`).
    public func lines(in catalog: Catalog, zone: VenueZone?) -> [String] {
        let time = zone.map { VisitorTime(catalog.language, zone: $0) }
        let now = Date(timeIntervalSince1970: Double(createdAt))
        var lines = [catalog.count(.previewCount, reportCount)]
        for item in items {
            if item.reports.isEmpty && item.hourParts.isEmpty {
                lines.append(catalog.text(.previewNothing, ["venue": item.stay.venueName]))
                continue
            }
            // One line per day (in the venue's zone) the parts of hours begin on.
            var days = [(day: String, windows: [String])]()
            for part in item.hourParts {
                let start = Date(timeIntervalSince1970: Double(part.startMs) / 1000)
                let end = Date(timeIntervalSince1970: Double(part.endMs) / 1000)
                let day = time?.dayName(start, now: now) ?? TimeText.date(unixSeconds: part.intervalStart)
                let window = time?.times(start, end) ?? TimeText.window(startMs: part.startMs, endMs: part.endMs)
                if days.last?.day == day {
                    days[days.count - 1].windows.append(window)
                } else {
                    days.append((day, [window]))
                }
            }
            for (day, windows) in days {
                lines.append(
                    catalog.text(
                        .previewHourParts,
                        [
                            "venue": item.stay.venueName, "day": day,
                            "windows": windows.joined(separator: ", ") + (time == nil ? " UTC" : ""),
                        ]))
            }
            for report in item.reports {
                let start = Date(timeIntervalSince1970: Double(Int64(report.startIntervalNumber) * Interval.seconds))
                let end = Date(timeIntervalSince1970: Double(Int64(report.endIntervalNumber) * Interval.seconds))
                let when =
                    time?.span(start, end, now: now)
                    ?? "\(TimeText.day(report.day)) \(TimeText.intervalWindow(report)) UTC"
                lines.append(
                    catalog.text(
                        .previewReport,
                        [
                            "venue": item.stay.venueName, "when": when,
                            "weight": catalog[Self.weight(ofLevel: report.transmissionRiskLevel)],
                        ]))
            }
        }
        lines.append(catalog[.previewRounded])
        lines.append(catalog.count(.previewDecoys, dummyCount))
        lines.append(catalog[.previewNoVenues])
        switch output {
        case .print: lines.append(catalog[.previewPrint])
        case .export: lines.append(catalog[.previewExport])
        case .upload: lines.append(catalog[.previewUpload])
        }
        return lines
    }
}
