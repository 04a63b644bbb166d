import ArgumentParser
import KioskAuthority

/// `kiosk-authority publish --dir DIR`: every pending record as one signed, shuffled CKPW/1 package, and the index.
struct AuthorityPublish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish the pending records as a signed CKPW/1 package and update the signed index under www/.",
        discussion: "The package is a random shuffle of the whole pool, so records of one upload do not stay together."
    )

    @Option(help: "The authority's directory.")
    var dir: String

    func run() async throws {
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
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
