internal import Foundation
public import KioskCore

/// The real-time floor lives in the kiosk's database as one setting (JSON): a time and a boot's monotonic reading,
/// nothing about any card or stay. A wipe keeps it.
extension SQLiteCheckInStore: RealTimeFloorStore {
    static let realTimeFloorKey = "clock.floor"

    public func loadRealTimeFloor() throws(StoreError) -> RealTimeFloor? {
        guard let bytes = try setting(Self.realTimeFloorKey) else { return nil }
        do { return try JSONDecoder().decode(RealTimeFloor.self, from: Data(bytes)) } catch { throw .corrupt }
    }

    public func saveRealTimeFloor(_ floor: RealTimeFloor) throws(StoreError) {
        let bytes: Data
        do { bytes = try JSONEncoder().encode(floor) } catch { throw .corrupt }
        try setSetting(Self.realTimeFloorKey, to: Array(bytes))
    }
}
