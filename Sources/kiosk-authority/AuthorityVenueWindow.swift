import ArgumentParser
import Foundation
import KioskCore
import KioskOpenSSL

/// The venue and time window of a health authority warning, as both `warn-venue` (CKPR/1) and `warn-venue-cwa`
/// (CWA hourly packages) take them.
struct VenueWindow: ParsableArguments {
    @Option(help: "The venue's QR code text (e.g. https://e.coronawarn.app?v=1#…).")
    var code: String?

    @Option(name: .customLong("location-id"), help: "The venue's location id, 64 hex digits.")
    var locationId: String?

    @Option(help: "Start of the window: \"YYYY-MM-DD HH:MM\" (UTC), ISO 8601 with a time zone, or UNIX seconds.")
    var from: String

    @Option(help: "End of the window, written like --from.")
    var to: String

    @Option(help: "Transmission risk level, 1 to 8.")
    var risk: UInt8 = TransmissionRisk.hostWarningLevel

    /// A warning covers at most this long (and kiosks hold stays no longer than that).
    static let maximumSeconds: Int64 = 14 * 86_400

    func validate() throws {
        guard (code == nil) != (locationId == nil) else {
            throw ValidationError("Give the venue either as --code or as --location-id (one of them).")
        }
        if let locationId, Hex.decode(locationId)?.count != 32 {
            throw ValidationError("--location-id is 64 hex digits (32 bytes).")
        }
        guard let start = AuthorityText.time(from) else {
            throw ValidationError("--from is not a time: use \"YYYY-MM-DD HH:MM\" (UTC).")
        }
        guard let end = AuthorityText.time(to) else {
            throw ValidationError("--to is not a time: use \"YYYY-MM-DD HH:MM\" (UTC).")
        }
        guard end > start else { throw ValidationError("--to must be after --from.") }
        guard end - start <= Self.maximumSeconds else { throw ValidationError("A warning covers at most 14 days.") }
        guard (1...8).contains(risk) else { throw ValidationError("--risk is between 1 and 8.") }
    }

    /// The window in UNIX seconds (validated already).
    var window: (start: Int64, end: Int64) { (AuthorityText.time(from) ?? 0, AuthorityText.time(to) ?? 0) }

    /// The venue's location id, and a window that kiosks can still hold stays for; exits with a message otherwise.
    func resolved() throws -> (locationId: [UInt8], start: Int64, end: Int64) {
        let venue: [UInt8]
        if let code {
            do {
                guard let id = try VenueCodeParser.parse(code, crypto: OpenSSLCrypto()).locationId else {
                    throw AuthorityText.fail(
                        "This kind of venue code has no location id the kiosks could match (Cléa): use --location-id.",
                        code: 2)
                }
                venue = id
            } catch let error as VenueCodeError {
                throw AuthorityText.fail("Not a usable venue code: \(error.message)", code: 2)
            }
        } else {
            venue = Hex.decode(locationId ?? "") ?? []
        }
        let (start, end) = window
        let now = AuthorityText.now()
        if end <= now - Self.maximumSeconds {
            throw AuthorityText.fail("The window ended more than 14 days ago: kiosks no longer hold stays that old.")
        }
        if start > now {
            throw AuthorityText.fail("The window starts in the future: warnings are for times that have passed.")
        }
        return (venue, start, end)
    }
}
