import ArgumentParser
import Foundation
import KioskCore
import KioskPKCS11

/// `kiosk region init`: the region's first kiosk generates its keys inside its token.
struct RegionInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Generate the region's card keys (generation 1) and day key inside this kiosk's token.",
        discussion: """
            On the region's first kiosk only; the others import its export. The token must be set up (initialized, \
            with a user PIN) and hold no region keys yet. The keys are generated inside the token and leave it only \
            wrapped under the region's wrapping key (install it first: kiosk region install-wrapping-key).
            """
    )

    @OptionGroup var token: RegionToken

    func run() throws {
        try RegionFailure.reporting("init") {
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let today = regionToday()
            try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.setUp(today: today)
            }
            let status = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.status()
            }
            print(
                "Region '\(settings.name)' set up on token '\(settings.token)': card key generation 1"
                    + " (\(RegionKeyLabels.card(generation: 1))) and the day key of"
                    + " \(regionDay(DiaryRetention.oldestOpenDay(today: today))) generated inside the token.")
            if !status.hasWrappingKey {
                print(
                    "The token has no wrapping key yet: its security officer installs it"
                        + " (kiosk region install-wrapping-key) before the keys can be exported.")
            }
            print("Next: kiosk region export --to FILE, then kiosk region import FILE at each of the region's kiosks.")
        }
    }
}

/// `kiosk region install-wrapping-key`: the token's security officer installs `region-wrap` from the custodians'
/// components.
struct RegionInstallWrappingKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-wrapping-key",
        abstract: "Install the region's wrapping key from two or more custodians' components (security officer).",
        discussion: """
            Each --component FILE holds one custodian's component: 32 hexadecimal digits on one line. The key is their \
            exclusive or, formed only for the moment the token takes it: no one person ever knows it. Every kiosk of \
            the region gets the same components. Logs in as the token's security officer with --so-pin-file.
            """
    )

    @OptionGroup var token: RegionToken

    @Option(name: .customLong("component"), help: "A custodian's component file (give two or more).")
    var components: [String] = []

    @Option(help: "A file holding the token's security officer PIN (one line).")
    var soPinFile: String

    func validate() throws {
        guard components.count >= 2 else {
            throw ValidationError(
                "give two or more --component files, one per custodian (\(components.count) given).")
        }
        guard Set(components).count == components.count else {
            throw ValidationError("the same --component file is given twice: each custodian brings their own.")
        }
    }

    /// A component file's 16 bytes: 32 hexadecimal digits, spaces and one final line break allowed.
    static func readComponent(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RegionFailure("the component file \(path) cannot be read")
        }
        var text = String(decoding: data, as: UTF8.self)
        defer { text = "" }
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count == 32, let bytes = Hex.decode(digits) else {
            throw RegionFailure("the component file \(path) does not hold 32 hexadecimal digits")
        }
        return bytes
    }

    func run() throws {
        try RegionFailure.reporting("install-wrapping-key") {
            var values = try components.map(Self.readComponent)
            defer {
                for index in values.indices { values[index] = [UInt8](repeating: 0, count: values[index].count) }
            }
            let (settings, _) = try token.settings(needsName: false)
            let pin = try RegionFailure.pkcs11 { () throws(PKCS11Error) in try PKCS11PIN(contentsOfFile: soPinFile) }
            let module = try RegionFailure.pkcs11 { () throws(PKCS11Error) in try PKCS11Module(path: settings.module)
            }
            defer { module.close() }
            let officer = try RegionFailure.pkcs11 { () throws(PKCS11Error) in
                try module.openSession(tokenLabel: settings.token, pin: pin, as: .securityOfficer)
            }
            let components = values
            try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try PKCS11RegionKeys.installWrappingKey(officer: officer, components: components)
            }
            print(
                "Wrapping key \(RegionKeyLabels.wrap) installed on token '\(settings.token)' from \(components.count)"
                    + " components. Each custodian keeps their component apart, for the next kiosk.")
        }
    }
}
