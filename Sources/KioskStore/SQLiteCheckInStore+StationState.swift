internal import Foundation
public import KioskCore

/// The station state lives in the kiosk's database as one setting (JSON), next to the stays but apart from them:
/// wiping the stays keeps it.
extension SQLiteCheckInStore: StationStateStore {
    static let stationStateKey = "station.state"

    public func loadStationState() throws(StoreError) -> StationState? {
        guard let bytes = try setting(Self.stationStateKey) else { return nil }
        do {
            return try JSONDecoder().decode(StationState.self, from: Data(bytes))
        } catch {
            throw .corrupt
        }
    }

    public func saveStationState(_ state: StationState) throws(StoreError) {
        let bytes: Data
        do { bytes = try JSONEncoder().encode(state) } catch { throw .corrupt }
        try setSetting(Self.stationStateKey, to: Array(bytes))
    }
}
