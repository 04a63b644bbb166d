/// Matching CrowdNotifier problematic events (SwissCovid, NotifyMe) against a card holder's stays, on the kiosk, at
/// the holder's tap, without pairings: for every hour a stay covers, the venue's identity is derived from the keys
/// sealed with the stay and looked up among the kept events; a found event is opened with the venue's notification
/// key (XSalsa20-Poly1305: a forged or changed event, or one of another venue with the same identity, does not
/// open) and its window must overlap the stay. The event's `secretKeyForIdentity` (the pairing-based proof the
/// CrowdNotifier SDKs check) is not used: the kiosk trusts events because the authority signed the package they came
/// in (`CrowdNotifierEventPackage`), not because of the pairing.
public enum CrowdNotifierMatcher {
    /// Every identity of the venue of `keys` for `hours`, for keeping only the events that could concern a kiosk's
    /// venue when a package is read.
    public static func identities(keys: CrowdNotifierVenueKeys, hours: ClosedRange<Int64>, crypto: some CryptoProvider)
        -> [[UInt8]]
    {
        hours.compactMap { try? keys.identity(hour: $0, crypto: crypto) }
    }

    /// The stays that overlap a kept event, as `ExposureMatch`es split at midnight UTC (one per stay and day, with
    /// the minutes of the overlap rounded up), and every matched day at risk level 2: a problematic event is the
    /// health authority's decision that everyone there then should be told, with no further weighing on the kiosk.
    /// Stays without CrowdNotifier keys are left out.
    public static func match(
        stays: [MatchableStay], index: CrowdNotifierEventIndex, crypto: some CryptoProvider, box: some SecretBox
    ) -> ExposureResult {
        guard index.count > 0 else { return ExposureResult(matches: [], riskLevelByDay: [:]) }
        var matches = [ExposureMatch]()
        for stay in stays where stay.end > stay.start {
            // The keys live in the stays handed in (opened for this tap, dropped after it); what is derived from them
            // here (identities, opened event data) is wiped as soon as it is used.
            guard let keys = stay.crowdNotifier else { continue }
            var overlaps = [(start: Int64, end: Int64)]()
            for hour in CrowdNotifierVenueKeys.hours(from: stay.start, to: stay.end) {
                guard var identity = try? keys.identity(hour: hour, crypto: crypto) else { continue }
                let events = index.events(identity: identity)
                crypto.wipe(&identity)
                for event in events {
                    guard let window = event.openWindow(notificationKey: keys.notificationKey, box: box) else {
                        continue
                    }
                    let start = max(stay.start, window.start)
                    let end = min(stay.end, window.end)
                    if end > start { overlaps.append((start, end)) }
                }
            }
            for (start, end) in merged(overlaps) {
                var pieceStart = start
                while pieceStart < end {
                    let day = CrowdNotifierVenueKeys.floorDivide(pieceStart, 86_400)
                    let pieceEnd = min(end, (day + 1) * 86_400)
                    matches.append(
                        ExposureMatch(
                            stayId: stay.id, day: day, overlapMinutes: (pieceEnd - pieceStart + 59) / 60,
                            transmissionRiskLevel: 0, normalizedTime: 0))
                    pieceStart = pieceEnd
                }
            }
        }
        var levels = [Int64: Int]()
        for match in matches { levels[match.day] = 2 }
        return ExposureResult(matches: matches, riskLevelByDay: levels)
    }

    /// Overlapping or touching windows joined, in order.
    static func merged(_ windows: [(start: Int64, end: Int64)]) -> [(start: Int64, end: Int64)] {
        var out = [(start: Int64, end: Int64)]()
        for window in windows.sorted(by: { $0.start < $1.start }) {
            if let last = out.last, window.start <= last.end {
                out[out.count - 1].end = max(last.end, window.end)
            } else {
                out.append(window)
            }
        }
        return out
    }
}

extension ExposureResult {
    /// This result and `other` as one: all matches, and per day the higher of the two levels. For joining the
    /// CrowdNotifier result (levels of its own) to the CKPW/1 and CWA one (`WarningMatcher.combined`).
    public func merging(_ other: ExposureResult) -> ExposureResult {
        ExposureResult(
            matches: matches + other.matches,
            riskLevelByDay: riskLevelByDay.merging(other.riskLevelByDay) { max($0, $1) })
    }
}
