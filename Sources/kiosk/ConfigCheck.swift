import ArgumentParser
import Foundation
import KioskCore
import KioskDaemon
import KioskOpenSSL

/// `kiosk config check | show`: the configuration as the daemon would read it.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check or show the kiosk's configuration.",
        subcommands: [ConfigCheck.self, ConfigShow.self]
    )
}

/// Where to read the configuration from; shared by `check` and `show`.
struct ConfigSource: ParsableArguments {
    @Option(name: .customLong("config"), help: "The configuration file.")
    var path = ConfigurationLoader.defaultPath

    @Option(help: "Directory with the credentials (default: $CREDENTIALS_DIRECTORY, as systemd sets it).")
    var credentials: String?

    @Flag(help: "Check the file and environment only, not the credentials (e.g. on a workstation before copying).")
    var noCredentials = false

    var loader: ConfigurationLoader {
        ConfigurationLoader(path: path, credentialsDirectory: credentials)
    }

    /// The configuration, its secrets (nil with `--no-credentials`) and the problems the C libraries find beyond
    /// the pure checks: a public key OpenSSL cannot read, a venue code the parser refuses.
    func read() -> (KioskConfiguration?, [ConfigurationProblem]) {
        let configuration: KioskConfiguration
        do {
            configuration = try loader.loadConfiguration()
        } catch {
            return (nil, error.problems)
        }
        var problems: [ConfigurationProblem] = []
        let crypto = OpenSSLCrypto()
        if let code = configuration.venue.code {
            do throws(VenueCodeError) {
                _ = try VenueCodeParser.parse(code, crypto: crypto)
            } catch {
                problems.append(
                    ConfigurationProblem(path: "venue.code", message: "not a usable venue code: \(error.message)"))
            }
        }
        var keys: [(String, String?)] = []
        if !noCredentials {
            do {
                var secrets = try configuration.secrets(lookup: loader.readCredential)
                keys = [
                    ("warnings.publicKey", secrets.authorityPublicKeyPEM),
                    ("warnings.cwaPublicKey", secrets.cwaPublicKeyPEM),
                ]
                secrets.wipe(using: crypto)
            } catch {
                problems += error.problems
            }
        } else {
            if configuration.warnings.baseURL != nil, configuration.warnings.publicKey.contains("-----BEGIN") {
                keys.append(("warnings.publicKey", configuration.warnings.publicKey))
            }
            if configuration.warnings.cwaBaseURL != nil, configuration.warnings.cwaPublicKey.contains("-----BEGIN") {
                keys.append(("warnings.cwaPublicKey", configuration.warnings.cwaPublicKey))
            }
        }
        for case (let key, let pem?) in keys {
            do throws(OpenSSLError) {
                _ = try ECDSAPublicKey(pem: pem)
            } catch {
                problems.append(
                    ConfigurationProblem(path: key, message: "not an ECDSA P-256 public key OpenSSL can read"))
            }
        }
        return (configuration, problems)
    }
}

/// `kiosk config check`: exit 0 when the daemon would start with this configuration, 2 with every problem.
struct ConfigCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the configuration file, the KIOSK_* environment variables and the credentials.",
        discussion: """
            Reads the file (default /etc/kiosk/kiosk.json), applies KIOSK_<SECTION>_<KEY> variables over it and reads \
            the credentials it needs from --credentials or $CREDENTIALS_DIRECTORY, exactly as `kiosk run` does. \
            Prints every problem, each with the key it concerns. Exit status: 0 when all is well, 2 otherwise. \
            See docs/configuration.md.
            """
    )

    @OptionGroup var source: ConfigSource

    func run() throws {
        let (configuration, problems) = source.read()
        guard let configuration, problems.isEmpty else {
            printProblems(problems, file: source.path)
            throw ExitCode(2)
        }
        print("\(source.path): configuration OK")
        let devices = [
            configuration.nfc.map { "NFC reader \($0.connection)" },
            configuration.camera.map { "camera \($0.device)" },
            configuration.receiptPrinter.map { "printer \($0.path)" },
            configuration.lightsAndButtons.outputs.isEmpty
                ? nil : "\(configuration.lightsAndButtons.outputs.count) lights/buzzer",
            configuration.lightsAndButtons.buttons.isEmpty
                ? nil : "\(configuration.lightsAndButtons.buttons.count) buttons",
        ].compactMap { $0 }
        print("  devices: \(devices.isEmpty ? "none" : devices.joined(separator: ", "))")
        if let region = configuration.region {
            print(
                "  region: \(region.name), token '\(region.token)' (module \(region.module)), PIN in credential"
                    + " \(region.pinCredential): kiosk region status")
        }
        let screen = configuration.screen
        print(
            "  screen: \(screen.widthPixels)x\(screen.heightPixels) px, \(screen.diagonalMillimetres) mm diagonal, read at "
                + "\(screen.viewingDistanceCentimetres) cm: capital H at least "
                + "\(String(format: "%.1f", screen.minimumCapitalHeightPixels)) px, text \(screen.textPixels) px, "
                + "\(screen.staysPerPage) stay(s) a page")
        let needed = configuration.neededCredentials.map(\.name)
        if source.noCredentials {
            print(
                "  credentials: not checked (\(needed.isEmpty ? "none needed" : "needs " + needed.joined(separator: ", ")))"
            )
        } else {
            print("  credentials: \(needed.isEmpty ? "none needed" : needed.joined(separator: ", ") + " present")")
        }
    }
}

/// `kiosk config show`: the effective configuration (file, environment, defaults) as JSON.
struct ConfigShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the effective configuration (defaults, file and KIOSK_* variables) as JSON.",
        discussion: """
            Every key is printed, defaults included. Secrets live in credentials and are never printed; a venue code \
            is shown as "<set, not shown>". Exit status: 0, or 2 when the configuration has problems (printed).
            """
    )

    @OptionGroup var source: ConfigSource

    func run() throws {
        let configuration: KioskConfiguration
        do {
            configuration = try source.loader.loadConfiguration()
        } catch {
            printProblems(error.problems, file: source.path)
            throw ExitCode(2)
        }
        print(configuration.renderedJSON(redacting: true), terminator: "")
    }
}

private func printProblems(_ problems: [ConfigurationProblem], file: String) {
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    var text = "\(file): \(count)\n"
    for problem in problems { text += "  \(problem)\n" }
    FileHandle.standardError.write(Data(text.utf8))
}
