/// Turns a stay into what may leave the kiosk, as Corona-Warn-App did before submission: drop short stays, add
/// aerosol decay, align to 10-minute intervals, split at midnight UTC, pick the transmission risk level by the stay's
/// age, and drop pieces whose risk value is 0.
public enum StayPreparation {
    /// A stay's warned window in UNIX seconds, aligned to intervals (`start` inclusive, `end` exclusive).
    public struct Window: Equatable, Sendable {
        public var start: Int64
        public var end: Int64
        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
    }

    /// The interval-aligned window a stay from `start` to `end` (UNIX seconds) warns for, or nil when the stay is
    /// filtered out (too short, or ends before it starts).
    public static func derivedWindow(start: Int64, end: Int64, parameters: PresenceTracingParameters) -> Window? {
        guard end >= start else { return nil }
        let minutes = Double((end - start) / 60)
        if parameters.durationFilters.contains(where: { $0.contains(minutes) }) { return nil }
        var decayMinutes = 0.0
        for function in parameters.aerosolDecayFunctions where function.range.contains(minutes) {
            decayMinutes += function.slope * minutes + function.intercept
        }
        let relevantEnd = end + Int64((decayMinutes * 60).rounded())
        let interval = Interval.seconds
        let startAligned = floorTo(start, interval)
        let endAligned = floorTo(relevantEnd, interval)
        // Start in the interval that holds more of the stay's edge; keep the (rounded) length of stay plus decay.
        let overlapWithStartInterval = startAligned + interval - start
        let overlapWithEndInterval = relevantEnd - endAligned
        let targetStart = overlapWithEndInterval > overlapWithStartInterval ? startAligned + interval : startAligned
        let intervals = (Double(relevantEnd - start) / Double(interval)).rounded(.toNearestOrAwayFromZero)
        return Window(start: targetStart, end: targetStart + Int64(intervals) * interval)
    }

    /// Splits a window at midnight UTC: one piece per UTC day it touches. A window ending exactly at midnight is not
    /// split; one that ends before it starts yields nothing.
    public static func splitAtMidnightUTC(_ window: Window) -> [Window] {
        guard window.end >= window.start else { return [] }
        let day: Int64 = 86_400
        let firstMidnight = floorTo(window.start, day)
        if floorTo(window.end, day) == firstMidnight || window.end == firstMidnight + day {
            return [window]
        }
        var pieces = [Window]()
        var pieceStart = window.start
        var nextMidnight = firstMidnight + day
        while nextMidnight < window.end {
            pieces.append(Window(start: pieceStart, end: nextMidnight))
            pieceStart = nextMidnight
            nextMidnight += day
        }
        pieces.append(Window(start: pieceStart, end: window.end))
        return pieces
    }

    /// The reports for one stay: derived, split, each piece with its transmission risk level; pieces of zero length
    /// and pieces whose risk value is 0 are dropped.
    public static func reports(
        stayStart: Int64, stayEnd: Int64, reportTime: Int64, symptoms: SymptomIndication,
        reportType: ReportType = .confirmedTest, infectiousness: Infectiousness = .standard,
        parameters: PresenceTracingParameters = .cwaProduction
    ) -> [PresenceReport] {
        guard let window = derivedWindow(start: stayStart, end: stayEnd, parameters: parameters) else { return [] }
        let reportDay = floorTo(reportTime, 86_400) / 86_400
        let vector = TransmissionRisk.vector(for: symptoms, reportDay: reportDay)
        var reports = [PresenceReport]()
        for piece in splitAtMidnightUTC(window) {
            let startInterval = Interval.number(atUnixSeconds: piece.start)
            let endInterval = Interval.number(atUnixSeconds: piece.end)
            let period = endInterval - startInterval
            guard period > 0, period <= Int64(Interval.perDay), startInterval >= 0, startInterval <= Int64(UInt32.max)
            else { continue }
            let level = TransmissionRisk.level(
                vector: vector, stayDay: floorTo(piece.start, 86_400) / 86_400, reportDay: reportDay)
            guard parameters.transmissionRiskValue(for: level) > 0 else { continue }
            reports.append(
                PresenceReport(
                    startIntervalNumber: UInt32(startInterval), period: UInt16(period),
                    transmissionRiskLevel: level, reportType: reportType, infectiousness: infectiousness))
        }
        return reports
    }

    /// `value` rounded down to a multiple of `unit` (also for negative values).
    public static func floorTo(_ value: Int64, _ unit: Int64) -> Int64 {
        value >= 0 ? value - value % unit : value - ((value % unit) + unit) % unit
    }
}
