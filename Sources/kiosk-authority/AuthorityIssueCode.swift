import ArgumentParser
import KioskAuthority
import KioskCore

/// `kiosk-authority issue-code --dir DIR [--valid-for 24h]`: a fresh single-use verification code.
struct AuthorityIssueCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue-code",
        abstract: "Print a fresh single-use verification code for one upload.",
        discussion:
            "Only the code's SHA-256 is stored. The code alone goes to standard output; its expiry to standard error."
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Option(help: "How long the code stays valid: e.g. 24h, 3d, 90m (at most 14d).")
    var validFor = "24h"

    func validate() throws {
        guard let seconds = AuthorityText.duration(validFor) else {
            throw ValidationError("--valid-for takes a number with s, m, h or d, e.g. 24h.")
        }
        guard seconds <= 14 * 86_400 else { throw ValidationError("--valid-for is at most 14d.") }
    }

    func run() async throws {
        let lifetime = AuthorityText.duration(validFor) ?? 86_400
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            let publisher = try directory.publisher(key: key)
            let now = AuthorityText.now()
            let code: String
            do { code = try await publisher.issueCode(now: now, lifetime: lifetime) } catch {
                throw AuthorityToolError.cannotWrite(dir, "\(error)")
            }
            AuthorityText.out(code)
            AuthorityText.err("valid until \(TimeText.dateTime(unixSeconds: now + lifetime)) UTC, for one upload")
        } catch let error as AuthorityToolError {
            throw AuthorityText.fail(error.description)
        }
    }
}
