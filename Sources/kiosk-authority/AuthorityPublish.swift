import ArgumentParser
import Foundation
import KioskAuthority
import KioskCore

/// `kiosk-authority publish --dir DIR`: every pending record as one signed, shuffled CKPW/1 package, and the index.
struct AuthorityPublish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish the pending records as a signed CKPW/1 package and update the signed index under www/.",
        discussion: "The package is a random shuffle of the whole pool, so records of one upload do not stay together."
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Option(
        help: ArgumentHelp(
            "Presence-tracing parameters to publish with the signed index (JSON, docs/PROTOCOL.md §4), or 'none' for "
                + "CWA's production values.", valueName: "FILE"))
    var parameters: String?

    func run() async throws {
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
            if let parameters {
                let published: PresenceTracingParameters.Published?
                if parameters == "none" {
                    published = nil
                } else {
                    guard let data = FileManager.default.contents(atPath: parameters) else {
                        throw AuthorityToolError.cannotWrite(parameters, "the file cannot be read")
                    }
                    do {
                        published = try JSONDecoder().decode(PresenceTracingParameters.Published.self, from: data)
                    } catch {
                        throw AuthorityText.fail("\(parameters) is not in the documented form of the parameters.")
                    }
                }
                do { try await publisher.setParameters(published) } catch let error as PublishedParametersError {
                    throw AuthorityText.fail("The parameters were not published: \(error).")
                } catch {
                    throw AuthorityToolError.cannotWrite(dir, "\(error)")
                }
                AuthorityText.out(
                    published == nil
                        ? "Kiosks now use CWA's production parameters (none published in www/index.json)."
                        : "Presence-tracing parameters published in the signed www/index.json.")
            }
            // Accepted CWA submissions go out in the next CWA hourly package.
            let cwa = try directory.cwaPublisher(key: key)
            if (try? await cwa.pendingCount()) ?? 0 > 0 {
                do {
                    if let hour = try await cwa.publish(now: AuthorityText.now()) {
                        AuthorityText.out(
                            "Published CWA hour \(hour.hour): \(hour.reports) protected report(s), \(hour.warnings) warning(s)."
                        )
                    }
                } catch {
                    throw AuthorityToolError.cannotWrite(dir, "\(error)")
                }
            }
            // CrowdNotifier problematic events: one signed file per form, every event of the last 15 days.
            do {
                let events = try await publisher.publishCrowdNotifier(now: AuthorityText.now())
                for (form, count) in events.sorted(by: { $0.key.rawValue > $1.key.rawValue }) {
                    let name = CrowdNotifierEventPackage.fileName(form)
                    AuthorityText.out(
                        "Published \(count) CrowdNotifier problematic event(s) in www/\(name) (signature www/\(name).sig)."
                    )
                }
            } catch {
                throw AuthorityToolError.cannotWrite(dir, "\(error)")
            }
            let published: PublishedPackage?
            do { published = try await publisher.publish(now: AuthorityText.now()) } catch {
                throw AuthorityToolError.cannotWrite(dir, "\(error)")
            }
            guard let published else {
                AuthorityText.out("Nothing pending: nothing was published.")
                return
            }
            AuthorityText.out(
                "Published package \(published.sequence): \(published.count) records in www/\(published.file) "
                    + "(signature www/\(published.signature)); index www/index.json updated.")
        } catch let error as AuthorityToolError {
            throw AuthorityText.fail(error.description)
        }
    }
}
