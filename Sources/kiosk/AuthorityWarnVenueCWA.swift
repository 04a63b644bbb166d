import ArgumentParser
import Foundation
import KioskAuthority
import KioskCore
import KioskOpenSSL

/// `kiosk authority warn-venue`: a contact tracer's warning about a venue and a time window, pooled for the next CWA
/// hourly package (and published at once with `--publish`).
///
/// The authority directory holds `authority-key.pem` (the P-256 signing key, created on first use, readable by its
/// owner only; kiosks are configured with `authority-key.pub.pem`), `state/` (records waiting for a package) and
/// `publish/` (what a web server or CDN serves: `publish/twp/country/DE/hour/…`).
struct AuthorityWarnVenueCWA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warn-venue-cwa",
        abstract: "Warn everyone who was at a venue during a time window (CWA hourly packages).",
        discussion: """
            Give the venue as its QR code's text (--code; any format `kiosk decode` reads) or as its 64-digit hex \
            location id (--location-id), and the window as ISO 8601 times with a time zone \
            (e.g. 2026-11-20T18:00:00+01:00). The window is widened to whole 10-minute intervals. The risk level \
            is 5 unless --risk says otherwise (1–8; CWA counts levels 1 and 2 as no risk).
            """
    )

    @Option(help: "The authority directory (signing key, pending records, published files).")
    var dir: String

    @Option(help: "The venue's QR code text.")
    var code: String?

    @Option(name: .customLong("location-id"), help: "The venue's location id, 64 hex digits.")
    var locationId: String?

    @Option(help: "Start of the window, ISO 8601 with a time zone.")
    var from: String

    @Option(help: "End of the window, ISO 8601 with a time zone.")
    var to: String

    @Option(help: "Transmission risk level, 1 to 8.")
    var risk: UInt8 = TransmissionRisk.hostWarningLevel

    @Flag(help: "Publish a package with every pending record now.")
    var publish = false

    func validate() throws {
        guard (code == nil) != (locationId == nil) else {
            throw ValidationError("Give the venue either with --code or with --location-id, not both and not neither.")
        }
        if let locationId, Hex.decode(locationId)?.count != 32 {
            throw ValidationError("--location-id must be 64 hex digits (a 32-byte location id).")
        }
        guard let start = Self.seconds(from) else {
            throw ValidationError("--from is not an ISO 8601 time with a time zone, like 2026-11-20T18:00:00Z.")
        }
        guard let end = Self.seconds(to) else {
            throw ValidationError("--to is not an ISO 8601 time with a time zone, like 2026-11-20T20:00:00Z.")
        }
        guard end > start else { throw ValidationError("--to must be after --from.") }
        guard end - start <= CWAHourlyPublisher.maximumWarningSeconds else {
            throw ValidationError("A warning covers at most 14 days; split longer windows.")
        }
        guard (1...8).contains(risk) else { throw ValidationError("--risk must be between 1 and 8.") }
    }

    func run() async throws {
        let crypto = OpenSSLCrypto()
        let venueId: [UInt8]
        if let code {
            do {
                let venue = try VenueCodeParser.parse(code, crypto: crypto)
                guard let id = venue.locationId else {
                    throw ValidationError("This venue code has no CWA location id (Cléa codes are not supported here).")
                }
                venueId = id
            } catch let error as VenueCodeError {
                throw ValidationError("Not a usable venue code: \(error.message)")
            }
        } else {
            venueId = Hex.decode(locationId ?? "") ?? []
        }
        guard let start = Self.seconds(from), let end = Self.seconds(to) else { throw ExitCode.validationFailure }

        let signer = try Self.signingKey(in: dir)
        let publisher = try CWAHourlyPublisher(stateDirectory: dir + "/state", publishDirectory: dir + "/publish", signer: signer)
        let warning = try await publisher.addHostWarning(locationId: venueId, start: start, end: end, transmissionRiskLevel: risk)
        print("Warning added: \(warning.period) ten-minute intervals at risk level \(warning.transmissionRiskLevel).")
        if publish {
            let now = Int64(Date().timeIntervalSince1970)
            if let published = try await publisher.publish(now: now) {
                print("Published hour \(published.hour) with \(published.warnings) warnings and \(published.reports) reports: \(published.path)")
            }
        } else {
            print("Pending records: \(try await publisher.pendingCount()). Run again with --publish to publish them.")
        }
    }

    /// UNIX seconds of an ISO 8601 time with a time zone (fractional seconds allowed), or nil.
    static func seconds(_ text: String) -> Int64? {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = plain.date(from: text) ?? fractional.date(from: text) else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The authority's signing key in `directory/authority-key.pem`, created (mode 0600) with its public key beside
    /// it when there is none yet.
    static func signingKey(in directory: String) throws -> ECDSAPrivateKey {
        let path = directory + "/authority-key.pem"
        if let pem = FileManager.default.contents(atPath: path) {
            do {
                return try ECDSAPrivateKey(pem: String(decoding: pem, as: UTF8.self))
            } catch {
                throw ValidationError("\(path) is not a P-256 private key in PEM.")
            }
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = try ECDSAPrivateKey()
        guard FileManager.default.createFile(atPath: path, contents: Data(key.pemRepresentation.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("Cannot write the signing key to \(path).")
        }
        let publicPath = directory + "/authority-key.pub.pem"
        _ = FileManager.default.createFile(atPath: publicPath, contents: Data(try key.publicKey().pemRepresentation.utf8))
        FileHandle.standardError.write(Data("Created a new signing key; configure kiosks with \(publicPath).\n".utf8))
        return key
    }
}
