import KioskCore
import KioskOpenSSL

/// The parser returns a venue or a typed error, and every venue it returns is self-consistent (ids of the right
/// length, the canonical payload re-parses to the same venue).
func checkVenueCode(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let venue: VenueCode
    do {
        venue = try VenueCodeParser.parse(text, crypto: fuzzCrypto)
    } catch {
        require(!error.message.isEmpty, "an error without a message")
        requireNoEcho(error.message, of: bytes)
        return
    }
    if let locationId = venue.locationId {
        require(locationId.count == 32 && venue.locationIdHash?.count == 32, "identifier lengths")
    } else {
        require(venue.format == .clea, "only Cléa venues have no location id")
    }
    if venue.format == .cwa || venue.format == .cwaVendor {
        let again = try? VenueCodeParser.parse(CWAVenueEncoder.url(payload: venue.canonicalPayload), crypto: fuzzCrypto)
        require(again?.locationId == venue.locationId, "canonical payload does not re-parse to the same venue")
        require(again?.canonicalPayload == venue.canonicalPayload, "canonical form is not stable")
    }
}

let fuzzCrypto = OpenSSLCrypto()
