import Foundation
public import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSodium

/// CrowdNotifier problematic events (SwissCovid, NotifyMe): a contact tracer's warning about a CrowdNotifier venue
/// and a window becomes one event per hour of the window, each under the venue's identity of that hour and sealed
/// with its notification key; `publishCrowdNotifier` writes every event of the last 15 days as one signed CKCN/1 file
/// per form (`crowdnotifier-v3.bin`, `crowdnotifier-v2.bin`, each with its `.sig`) beside the CKPW/1 index. The
/// events are kept in the state directory until they are too old for any kiosk to hold a stay they could concern.
extension WarningPublisher {
    static let crowdNotifierEventsName = "crowdnotifier-events.json"
    /// Events older than this many hours are no longer published (kiosks keep stays 14 days after they end).
    static let crowdNotifierHoursKept: Int64 = 15 * 24

    struct StoredEvent: Codable {
        var hour: Int64
        var event: CrowdNotifierEvent
    }

    /// Adds the events of a warning about the venue of `keys` from `start` to `end` (UNIX seconds); returns how many
    /// (one per hour the window touches). v3 keys give SwissCovid's form, v2 keys NotifyMe v2's.
    public func addCrowdNotifierWarning(keys: CrowdNotifierVenueKeys, start: Int64, end: Int64) throws -> Int {
        guard end > start else { throw AcceptError.invalidWarning }
        let box = SodiumSecretBox()
        var stored = try loadCrowdNotifierEvents()
        let hours = (start / 3600)...((end - 1) / 3600)
        for hour in hours {
            let nonce = try crypto.randomBytes(count: SecretBoxSize.nonce)
            let event =
                keys.scheme == .v3
                ? try CrowdNotifierEvent.sealV3(
                    keys: keys, hour: hour, start: start, end: end, nonce: nonce, crypto: crypto, box: box)
                : try CrowdNotifierEvent.sealV2(
                    keys: keys, hour: hour, start: start, end: end, nonce: nonce, crypto: crypto, box: box)
            stored.append(StoredEvent(hour: hour, event: event))
        }
        try saveCrowdNotifierEvents(stored)
        return hours.count
    }

    /// Adds the events of a positive visitor's server-based CrowdNotifier upload (SwissCovid's `UserUploadPayload`):
    /// one v3 event per entry, real and decoy alike (a decoy's identity is random, so its event warns no one). Entries
    /// of hours after `now` or too old to matter are left out; returns how many events were added.
    @discardableResult
    public func addCrowdNotifierUpload(_ entries: [CrowdNotifierUploadEntry], now: Int64) throws -> Int {
        let box = SodiumSecretBox()
        let nowHour = now / 3600
        var stored = try loadCrowdNotifierEvents()
        var added = 0
        for entry in entries {
            let hour = entry.intervalStart / CrowdNotifierVenueKeys.intervalLength
            guard hour <= nowHour, hour >= nowHour - Self.crowdNotifierHoursKept else { continue }
            let nonce = try crypto.randomBytes(count: SecretBoxSize.nonce)
            stored.append(StoredEvent(hour: hour, event: try entry.event(nonce: nonce, crypto: crypto, box: box)))
            added += 1
        }
        try saveCrowdNotifierEvents(stored)
        return added
    }

    /// Writes the signed CKCN/1 file of each form that has events (dropping events too old to matter); returns how
    /// many events each published file holds.
    @discardableResult
    public func publishCrowdNotifier(now: Int64) throws -> [CrowdNotifierEvent.Form: Int] {
        var stored = try loadCrowdNotifierEvents()
        stored.removeAll { $0.hour < now / 3600 - Self.crowdNotifierHoursKept }
        try saveCrowdNotifierEvents(stored)
        var published = [CrowdNotifierEvent.Form: Int]()
        for form in CrowdNotifierEvent.Form.allCases {
            var events = stored.map(\.event).filter { $0.form == form }
            guard !events.isEmpty else { continue }
            try ReportBatch.shuffle(&events, crypto: crypto)
            let package = CrowdNotifierEventPackage(form: form, createdAt: UInt64(max(0, now)), events: events)
            let bytes = try package.bytes()
            let name = CrowdNotifierEventPackage.fileName(form)
            try AtomicFile.write(try signer.signature(for: bytes), named: name + ".sig", in: publishDirectory)
            try AtomicFile.write(bytes, named: name, in: publishDirectory)
            published[form] = events.count
        }
        return published
    }

    func loadCrowdNotifierEvents() throws -> [StoredEvent] {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/" + Self.crowdNotifierEventsName)
        else { return [] }
        return try JSONDecoder().decode([StoredEvent].self, from: data)
    }

    func saveCrowdNotifierEvents(_ events: [StoredEvent]) throws {
        try AtomicFile.write(
            Array(try JSONEncoder().encode(events)), named: Self.crowdNotifierEventsName, in: stateDirectory)
    }
}
