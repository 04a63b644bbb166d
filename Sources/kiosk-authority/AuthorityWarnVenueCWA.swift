import ArgumentParser
import Foundation
import KioskAuthority
import KioskCore
import KioskOpenSSL

/// `kiosk-authority warn-venue-cwa`: a contact tracer's warning about a venue and a time window, pooled for the next
/// CWA hourly package (and published at once with `--publish`). Signed with the authority's key (`kiosk-authority
/// init`); pending records in `state/cwa/`, packages in `www/cwa/twp/country/DE/hour/…`, served by `kiosk-authority
/// serve` under `/cwa/…`.
struct AuthorityWarnVenueCWA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warn-venue-cwa",
        abstract: "Warn everyone who was at a venue during a time window (CWA hourly packages).",
        discussion: """
            Give the venue as its QR code's text (--code; any format `kiosk decode` reads) or as its 64-digit hex \
            location id (--location-id), and the window as UTC "YYYY-MM-DD HH:MM", ISO 8601 with a time zone \
            (e.g. 2026-11-20T18:00:00+01:00) or UNIX seconds. The window is widened to whole 10-minute intervals. The risk level \
            is 5 unless --risk says otherwise (1–8; CWA counts levels 1 and 2 as no risk).
            """
    )

    @Option(help: "The authority's directory (after `kiosk-authority init`).")
    var dir: String

    @OptionGroup var venue: VenueWindow

    @Flag(help: "Publish a package with every pending record now.")
    var publish = false

    func run() async throws {
        let (locationId, start, end) = try venue.resolved()
        let publisher: CWAHourlyPublisher
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            publisher = try directory.cwaPublisher(key: key)
        } catch {
            throw AuthorityText.fail(error.description)
        }
        let warning = try await publisher.addHostWarning(
            locationId: locationId, start: start, end: end, transmissionRiskLevel: venue.risk)
        AuthorityText.out(
            "Warning added: \(warning.period) ten-minute intervals at risk level \(warning.transmissionRiskLevel).")
        if publish {
            if let published = try await publisher.publish(now: AuthorityText.now()) {
                AuthorityText.out(
                    "Published hour \(published.hour) with \(published.warnings) warnings and \(published.reports) reports."
                )
            }
        } else {
            AuthorityText.out(
                "Pending records: \(try await publisher.pendingCount()). Run again with --publish to publish them.")
        }
    }
}
