import ArgumentParser
import Foundation
import KioskCore
import KioskDaemon
import KioskPKCS11

/// `kiosk region …`: field staff's commands for the region's keys in this kiosk's PKCS #11 token (docs/region.md,
/// docs/diary-card.md). None prints a key: keys leave a token only wrapped under the region's wrapping key.
struct RegionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "region",
        abstract: "Set up and copy the region's keys for diary cards in this kiosk's PKCS #11 token.",
        discussion: """
            The token, its module, its PIN and the region's name come from the configuration's "region" section \
            (--config, default \(ConfigurationLoader.defaultPath); the PIN from the credential it names, in \
            --credentials or $CREDENTIALS_DIRECTORY, default /etc/kiosk/credentials), or from --module, --token, \
            --pin-file and --region. See docs/region.md.

            Exit status: 0 done; 1 the token refused or the keys are not as the command needs; 2 the configuration \
            has problems; 64 a bad argument.
            """,
        subcommands: [
            RegionInit.self, RegionInstallWrappingKey.self, RegionExport.self, RegionImport.self, RegionRotate.self,
            RegionRetire.self, RegionStatus.self,
        ]
    )
}

/// Which token, and how to open it: options over the configuration's `region` section.
struct RegionToken: ParsableArguments {
    @Option(name: .customLong("config"), help: "The kiosk's configuration, for its \"region\" section.")
    var configPath = ConfigurationLoader.defaultPath

    @Option(help: "The PKCS #11 module (e.g. \(KioskConfiguration.Region.softHSM2Module)).")
    var module: String?

    @Option(help: "The token's label.")
    var token: String?

    @Option(help: "A file holding the token user's PIN (one line); default: the configuration's credential.")
    var pinFile: String?

    @Option(help: "Directory with the credentials (default: $CREDENTIALS_DIRECTORY, else /etc/kiosk/credentials).")
    var credentials: String?

    @Option(help: "The region's name (1 to 20 bytes), the same at every kiosk; default: the configuration's.")
    var region: String?

    func validate() throws {
        if let module, !module.hasPrefix("/") {
            throw ValidationError(
                "--module needs an absolute path, such as \(KioskConfiguration.Region.softHSM2Module).")
        }
        if let token, let problem = KioskConfiguration.Region.problem(withTokenLabel: token) {
            throw ValidationError("--token \(problem).")
        }
        if let pinFile, pinFile.isEmpty { throw ValidationError("--pin-file needs a file.") }
        if let region, let problem = KioskConfiguration.Region.problem(withName: region) {
            throw ValidationError("--region \(problem).")
        }
    }

    /// The region's settings: the options, and what they leave out from the configuration's `region` section.
    /// `needsName` false accepts a missing name and PIN (the security officer's command needs neither).
    func settings(needsName: Bool = true) throws -> (KioskConfiguration.Region, pinPath: String) {
        let regionName = region
        var region = KioskConfiguration.Region(name: regionName ?? "")
        var fromFile: KioskConfiguration.Region?
        var pinCredentialDirectory: String?
        // The security officer's command needs neither the user's PIN nor the region's name.
        let complete = module != nil && token != nil && ((pinFile != nil && regionName != nil) || !needsName)
        if !complete {
            let loader = ConfigurationLoader(path: configPath, credentialsDirectory: credentials)
            do {
                fromFile = try loader.loadConfiguration().region
            } catch {
                var text =
                    "\(configPath): \(error.problems.count == 1 ? "1 problem" : "\(error.problems.count) problems")\n"
                for problem in error.problems { text += "  \(problem)\n" }
                text += "Give --module, --token, --pin-file and --region to work without it.\n"
                FileHandle.standardError.write(Data(text.utf8))
                throw ExitCode(2)
            }
            guard let fromFile else {
                throw RegionFailure(
                    "\(configPath) has no \"region\" section: add one (docs/configuration.md) or give --module, --token,"
                        + " --pin-file" + (needsName ? " and --region" : ""))
            }
            region = fromFile
            if let regionName { region.name = regionName }
            pinCredentialDirectory = loader.credentialsDirectory ?? ConfigurationLoader.defaultCredentialsDirectory
        }
        if let module { region.module = module }
        if let token { region.token = token }
        let pinPath =
            pinFile
            ?? "\(pinCredentialDirectory ?? ConfigurationLoader.defaultCredentialsDirectory)/\(region.pinCredential)"
        return (region, pinPath)
    }

    /// Loads the module and opens the region's keys in its token as the token's user.
    func open() throws -> (PKCS11Module, PKCS11RegionKeys, KioskConfiguration.Region) {
        let (region, pinPath) = try settings()
        if let problem = KioskConfiguration.Region.problem(withName: region.name) {
            throw RegionFailure("the region's name \(problem)")
        }
        let pin = try RegionFailure.pkcs11 { () throws(PKCS11Error) in try PKCS11PIN(contentsOfFile: pinPath) }
        let module = try RegionFailure.pkcs11 { () throws(PKCS11Error) in try PKCS11Module(path: region.module) }
        let session = try RegionFailure.pkcs11 { () throws(PKCS11Error) in
            try module.openSession(tokenLabel: region.token, pin: pin)
        }
        return (module, PKCS11RegionKeys(session: session, regionName: region.name), region)
    }
}

/// A region command's failure: printed as `kiosk region: <message>` on standard error, exit status 1.
struct RegionFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    static func pkcs11<Result>(_ body: () throws(PKCS11Error) -> Result) throws -> Result {
        do throws(PKCS11Error) {
            return try body()
        } catch {
            throw RegionFailure(error.description)
        }
    }

    static func administration<Result>(_ body: () throws(PKCS11RegionKeys.AdministrationError) -> Result) throws
        -> Result
    {
        do throws(PKCS11RegionKeys.AdministrationError) {
            return try body()
        } catch {
            throw RegionFailure(error.description)
        }
    }

    static func regionKeys<Result>(_ body: () throws(RegionKeyError) -> Result) throws -> Result {
        do throws(RegionKeyError) {
            return try body()
        } catch {
            switch error {
            case .token(let message): throw RegionFailure(message)
            case .unknownGeneration(let generation):
                throw RegionFailure("the token holds no card key of generation \(generation)")
            case .dayUnavailable(let day): throw RegionFailure("the day key of day \(day) is not available")
            }
        }
    }

    /// Runs a command's body: a `RegionFailure` is printed and becomes exit status 1.
    static func reporting(_ command: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as RegionFailure {
            FileHandle.standardError.write(Data("kiosk region \(command): \(failure.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// How a day is shown to staff: its date in UTC and its number.
func regionDay(_ day: DiaryDay) -> String { "\(DiaryCalendar.isoDate(day)) (day \(day))" }

/// Today, as the ratchet counts days.
func regionToday() -> DiaryDay { DiaryCalendar.day(of: Date()) }
