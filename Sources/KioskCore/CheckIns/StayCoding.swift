import Foundation

/// The binary plaintext of a sealed stay, version 1 (all integers big-endian):
/// `01` · location id (u16 length + bytes) · description (u16 length + UTF-8) · address (u16 length + UTF-8) ·
/// start (i64 ms since 1970) · latest end (i64 ms) · checkout flag (u8 0/1) · checkout (i64 ms, if flagged) ·
/// optionally one more byte: 1 when the holder reported the stay (absent in stays never reported, so stays sealed
/// before this field existed read the same).
/// The stay id is not inside: it is the row's key and bound to the ciphertext as associated data.
///
/// Version 2, for stays at CrowdNotifier venues only (other stays are still written as version 1, byte for byte):
/// `02` · the same fields as version 1 up to the checkout · reported (u8 0/1, always present) · the CrowdNotifier
/// scheme (u8 2 or 3) · preId (u16 length + bytes) · time nonce (u16 length + bytes) · notification key (u16
/// length + bytes). Both versions are read.
enum StayCoding {
    static let version: UInt8 = 1
    static let crowdNotifierVersion: UInt8 = 2

    static func encode(_ stay: Stay) -> [UInt8] {
        var out: [UInt8] = [stay.crowdNotifier == nil ? version : crowdNotifierVersion]
        appendBlob(stay.locationId, to: &out)
        appendBlob(Array(stay.venueDescription.utf8), to: &out)
        appendBlob(Array(stay.venueAddress.utf8), to: &out)
        appendTime(stay.start, to: &out)
        appendTime(stay.latestEnd, to: &out)
        if let checkedOut = stay.checkedOut {
            out.append(1)
            appendTime(checkedOut, to: &out)
        } else {
            out.append(0)
        }
        if let keys = stay.crowdNotifier {
            out.append(stay.reported ? 1 : 0)
            out.append(keys.scheme.rawValue)
            appendBlob(keys.preId, to: &out)
            appendBlob(keys.timeNonce, to: &out)
            appendBlob(keys.notificationKey, to: &out)
        } else if stay.reported {
            out.append(1)
        }
        return out
    }

    static func decode(_ bytes: [UInt8], id: StayID) -> Stay? {
        var reader = Reader(bytes: bytes)
        let encodedVersion = reader.byte()
        guard encodedVersion == version || encodedVersion == crowdNotifierVersion,
            let locationId = reader.blob(),
            let description = reader.blob(),
            let address = reader.blob(),
            let start = reader.time(),
            let latestEnd = reader.time(),
            let flag = reader.byte()
        else { return nil }
        var checkedOut: Date?
        if flag == 1 {
            guard let time = reader.time() else { return nil }
            checkedOut = time
        } else if flag != 0 {
            return nil
        }
        var reported = false
        var keys: CrowdNotifierVenueKeys?
        if encodedVersion == crowdNotifierVersion {
            guard let flag = reader.byte(), flag <= 1,
                let scheme = reader.byte().flatMap(CrowdNotifierVenueKeys.Scheme.init),
                let preId = reader.blob(), let timeNonce = reader.blob(), let notificationKey = reader.blob(),
                let decoded = CrowdNotifierVenueKeys(
                    scheme: scheme, preId: preId, timeNonce: timeNonce, notificationKey: notificationKey)
            else { return nil }
            reported = flag == 1
            keys = decoded
        } else if !reader.isAtEnd {
            guard reader.byte() == 1 else { return nil }
            reported = true
        }
        guard reader.isAtEnd else { return nil }
        var stay = Stay(
            id: id, locationId: locationId,
            venueDescription: String(decoding: description, as: UTF8.self),
            venueAddress: String(decoding: address, as: UTF8.self),
            start: start, latestEnd: latestEnd, checkedOut: checkedOut)
        stay.reported = reported
        stay.crowdNotifier = keys
        return stay
    }

    private static func appendBlob(_ blob: [UInt8], to out: inout [UInt8]) {
        let bounded = blob.prefix(Int(UInt16.max))
        out.append(UInt8(bounded.count >> 8))
        out.append(UInt8(bounded.count & 0xff))
        out.append(contentsOf: bounded)
    }

    private static func appendTime(_ date: Date, to out: inout [UInt8]) {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let bits = UInt64(bitPattern: millis)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((bits >> UInt64(shift)) & 0xff)) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func blob() -> [UInt8]? {
            guard let high = byte(), let low = byte() else { return nil }
            let length = Int(high) << 8 | Int(low)
            guard offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return Array(bytes[offset..<(offset + length)])
        }

        mutating func time() -> Date? {
            guard offset + 8 <= bytes.count else { return nil }
            var bits: UInt64 = 0
            for index in offset..<(offset + 8) { bits = bits << 8 | UInt64(bytes[index]) }
            offset += 8
            return Date(timeIntervalSince1970: TimeInterval(Int64(bitPattern: bits)) / 1000)
        }
    }
}
