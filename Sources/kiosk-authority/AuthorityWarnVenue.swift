import ArgumentParser
import KioskAuthority
import KioskCore
import KioskOpenSSL

/// `kiosk-authority warn-venue`: a contact tracer's warning for one venue and time window (the "On-Device" mode of Apple/Google's
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
            A SwissCovid or NotifyMe code (--code) also gives CrowdNotifier problematic events, one per hour of the \
            window, which the apps of those systems and the kiosks read (docs/PROTOCOL.md §7). Publish to send it \
            out.
            """
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @OptionGroup var venue: VenueWindow

    func run() async throws {
        let (locationId, start, end) = try venue.resolved()
        let risk = venue.risk
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
            let count: Int
            do {
                count = try await publisher.addTracerWarning(
                    locationId: locationId, start: start, end: end, transmissionRiskLevel: risk)
            } catch let error as AcceptError {
                throw AuthorityText.fail(error.description)
            } catch {
                throw AuthorityToolError.cannotWrite(dir, "\(error)")
            }
            AuthorityText.out(
                "Added a warning of \(count) record\(count == 1 ? "" : "s") (one per UTC day), risk level \(risk); publish to send it out."
            )
            if let code = venue.code, let keys = try? VenueCodeParser.parse(code, crypto: OpenSSLCrypto()).crowdNotifier
            {
                let events: Int
                do { events = try await publisher.addCrowdNotifierWarning(keys: keys, start: start, end: end) } catch {
                    throw AuthorityToolError.cannotWrite(dir, "\(error)")
                }
                AuthorityText.out(
                    "Added \(events) CrowdNotifier problematic event\(events == 1 ? "" : "s") (one per hour, "
                        + (keys.scheme == .v3 ? "SwissCovid/NotifyMe v3 form" : "NotifyMe v2 form")
                        + "); publish to send them out.")
            }
        } catch let error as AuthorityToolError {
            throw AuthorityText.fail(error.description)
        }
    }
}
