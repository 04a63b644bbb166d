import ArgumentParser
import Foundation
import KioskOpenSSL

/// `kiosk-authority init --dir DIR`: a fresh P-256 signing key; prints the public key for the kiosks' configuration.
struct AuthorityInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the authority directory with a new P-256 signing key and print its public key.",
        discussion:
            "The private key is written with mode 0600 and never printed. Kiosks take the printed PEM public key."
    )

    @Option(help: "The authority's directory (created with mode 0700).")
    var dir: String

    func run() throws {
        let key: ECDSAPrivateKey
        do { (_, key) = try AuthorityDirectory.create(at: dir) } catch { throw AuthorityText.fail(error.description) }
        do {
            FileHandle.standardOutput.write(Data(try key.publicKey().pemRepresentation.utf8))
        } catch {
            throw AuthorityText.fail("OpenSSL failed: \(error)")
        }
    }
}
