import ArgumentParser
import Foundation
import KioskCore
import KioskDaemon
import KioskOpenSSL
import KioskSimulation
import Logging

/// `kiosk run`: the check-in station.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the check-in kiosk (on its hardware, or simulated).",
        discussion: """
            With --simulate the real daemon runs on simulated hardware: the PN532 emulator on a pseudo-terminal \
            (through the real libnfc), codes shown to libzbar, recorded lights and buzzer, receipts as files (PNG \
            and text) and a clock that `kiosk simulate advance` moves. Drive it with `kiosk simulate …` using the \
            same --state-dir. Stop with Ctrl-C or SIGTERM.
            """
    )

    @Flag(help: "Run on simulated hardware.")
    var simulate = false

    @Option(help: "The configuration file (default /etc/kiosk/kiosk.json; with --simulate, none: defaults).")
    var config: String?

    @Option(
        help: "State directory (overrides stateDirectory; with --simulate default ~/.local/state/kiosk-simulation).")
    var stateDir: String?

    @Option(help: "Metrics endpoint on loopback (host:port; port 0 picks a free one; 'off' for none).")
    var metrics: String?

    @Option(
        help: "The screen page's address (host:port; port 0 picks a free one; 'off' for none; overrides web.listen).")
    var web: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error (overrides logLevel).")
    var logLevel: String?

    func run() async throws {
        let loader = ConfigurationLoader(path: config ?? ConfigurationLoader.defaultPath)
        var configuration: KioskConfiguration
        var secrets = ConfigurationSecrets()
        do {
            if simulate {
                // Simulated hardware needs no credentials: the staff code lives in the state directory.
                configuration =
                    config == nil
                    ? try KioskConfiguration.parse(json: "{}", environment: ProcessInfo.processInfo.environment)
                    : try loader.loadConfiguration()
                secrets = try configuration.secrets { name in
                    name == configuration.staff.codeCredential
                        ? .found(Array("simulated-staff-code".utf8)) : loader.readCredential(name)
                }
            } else {
                let loaded = try loader.load()
                configuration = loaded.configuration
                secrets = loaded.secrets
            }
        } catch {
            stderrLine("The kiosk cannot start. \(error)")
            throw ExitCode(2)
        }
        let level = Logger.Level(rawValue: logLevel ?? configuration.logLevel.rawValue) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "kiosk")
        let directory =
            stateDir ?? (simulate && config == nil ? Simulate.defaultStateDirectory : configuration.stateDirectory)
        if let wrongKind = Simulate.checkStateDirectoryKind(directory, simulate: simulate) {
            stderrLine("The kiosk cannot start: \(wrongKind)")
            throw ExitCode(2)
        }
        var settings = DaemonSettings(configuration, secrets: secrets, stateDirectory: directory, simulate: simulate)
        if let region = configuration.region {
            settings.regionPINFile = loader.credentialPath(region.pinCredential)
        }
        if let metrics { settings.metricsListen = metrics == "off" ? nil : metrics }
        if let web { settings.webListen = web == "off" ? nil : web }
        if simulate {
            if metrics == nil { settings.metricsListen = "127.0.0.1:0" }
            settings.station.staffCode = try Simulate.staffCode(stateDirectory: directory)
        }
        secrets.wipe(using: OpenSSLCrypto())
        let daemon: KioskDaemon
        do {
            let devices =
                simulate
                ? try SimulatedHardware(settings: settings).devices
                : BoardDevices.open(settings: settings, logger: logger)
            // Storage that cannot be used yet (read-only, full, not mounted) is waited for, not a reason to exit.
            try await StorageWait.untilUsable(settings: settings, devices: devices, logger: logger)
            daemon = try KioskDaemon(settings: settings, devices: devices, logger: logger)
        } catch {
            stderrLine("The kiosk cannot start: \(error)")
            throw ExitCode(2)
        }
        if simulate {
            print("Simulated kiosk running. State: \(directory)")
            print("Drive it from another terminal, e.g.: kiosk simulate status --state-dir \(directory)")
        }
        try await daemon.run()
    }
}

/// `kiosk status`: what the running kiosk is doing.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the running kiosk's state (no personal data).")

    @Option(help: "The kiosk's state directory.")
    var stateDir: String = "/var/lib/kiosk"

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        try await Simulate.send(ControlRequest(command: "status"), stateDirectory: stateDir, json: json, dataOnly: true)
    }
}
