import ArgumentParser
import KioskAuthority
import KioskCore
import KioskOpenSSL

/// `kiosk authority warn-venue`: a contact tracer's warning for one venue and time window (the seed's "On-Device"
/// mode; Corona-Warn-App's `TraceTimeIntervalWarning`), sealed as CKPR/1 records so kiosks match it like a report.
struct AuthorityWarnVenue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warn-venue",
        abstract: "Add a health authority warning for a venue and time window to the pending pool.",
        discussion: """
            The venue is given by its QR code's text (--code) or its 32-byte location id in hex (--location-id, as \
            `kiosk decode --json` prints it). Times are UTC: "YYYY-MM-DD HH:MM", YYYY-MM-DDTHH:MM[:SS]Z, or UNIX \
            seconds; they are widened to whole 10-minute intervals, and a window over midnight UTC becomes one \
            record per day. The risk level is 1–8 (default 5, as Corona-Warn-App's warnings by hosts and tracers). \
            Publish to send it out.
            """
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Option(help: "The venue's QR code text (e.g. https://e.coronawarn.app?v=1#…).")
    var code: String?

    @Option(name: .customLong("location-id"), help: "The venue's location id, 64 hex digits.")
    var locationId: String?

    @Option(help: "Start of the window (UTC).")
    var from: String

    @Option(help: "End of the window (UTC).")
    var to: String

    @Option(help: "Transmission risk level, 1 to 8.")
    var risk: UInt8 = TransmissionRisk.hostWarningLevel

    func validate() throws {
        guard (code == nil) != (locationId == nil) else {
            throw ValidationError("Give the venue either as --code or as --location-id (one of them).")
        }
        if let locationId, Hex.decode(locationId)?.count != 32 {
            throw ValidationError("--location-id is 64 hex digits (32 bytes).")
        }
        guard let start = AuthorityText.time(from) else { throw ValidationError("--from is not a time: use \"YYYY-MM-DD HH:MM\" (UTC).") }
        guard let end = AuthorityText.time(to) else { throw ValidationError("--to is not a time: use \"YYYY-MM-DD HH:MM\" (UTC).") }
        guard end > start else { throw ValidationError("--to must be after --from.") }
        guard end - start <= 14 * 86_400 else { throw ValidationError("A warning covers at most 14 days.") }
        guard (1...8).contains(risk) else { throw ValidationError("--risk is between 1 and 8.") }
    }

    func run() async throws {
        let venue: [UInt8]
        if let code {
            do {
                guard let id = try VenueCodeParser.parse(code, crypto: OpenSSLCrypto()).locationId else {
                    throw AuthorityText.fail("This kind of venue code has no location id the kiosks could match (Cléa): use --location-id.", code: 2)
                }
                venue = id
            } catch let error as VenueCodeError {
                throw AuthorityText.fail("Not a usable venue code: \(error.message)", code: 2)
            }
        } else {
            venue = Hex.decode(locationId ?? "") ?? []
        }
        let start = AuthorityText.time(from) ?? 0
        let end = AuthorityText.time(to) ?? 0
        let now = AuthorityText.now()
        if end <= now - 14 * 86_400 {
            throw AuthorityText.fail("The window ended more than 14 days ago: kiosks no longer hold stays that old.")
        }
        if start > now {
            throw AuthorityText.fail("The window starts in the future: warnings are for times that have passed.")
        }
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
            let count: Int
            do {
                count = try await publisher.addTracerWarning(locationId: venue, start: start, end: end, transmissionRiskLevel: risk)
            } catch let error as AcceptError {
                throw AuthorityText.fail(error.description)
            } catch {
                throw AuthorityToolError.cannotWrite(dir, "\(error)")
            }
            AuthorityText.out("Added a warning of \(count) record\(count == 1 ? "" : "s") (one per UTC day), risk level \(risk); publish to send it out.")
        } catch let error as AuthorityToolError {
            throw AuthorityText.fail(error.description)
        }
    }
}
