internal import Foundation
public import KioskCore

/// Everything `KioskDaemon` needs to start, resolved from the configuration file, the environment, credentials and
/// the command line.
public struct DaemonSettings: Sendable {
    /// Holds the database, the station state, the card key (unless given as a credential) and the control socket.
    public var stateDirectory: String
    /// Simulated hardware: the PN532 emulator on a pseudo-terminal, frames fed to libzbar, recorded lights, receipts
    /// as files, a simulated clock.
    public var simulate: Bool
    /// libnfc connection string of the reader (`pn532_uart:/dev/ttyS0`); nil: no reader (ignored when simulating).
    public var nfcConnection: String?
    /// Lights, buzzer and buttons; nil: none.
    public var lightsAndButtons: LightsAndButtonsConfiguration?
    /// The receipt printer; nil: none.
    public var receiptPrinter: ReceiptPrinterConfiguration?
    /// Camera device (`/dev/video0`); nil: none.
    public var cameraDevice: String?
    public var cameraWidth: Int
    public var cameraHeight: Int
    /// Frames without a code after which the same code shown again is a new event.
    public var cameraFramesUntilGone = 15
    /// The loopback address of the metrics endpoint (`127.0.0.1:9464`); nil: no endpoint. Port 0 picks a free port.
    public var metricsListen: String?
    /// The station's behaviour (staff timeout, staff code, texts).
    public var station: StationConfiguration
    /// Check-in rules (daily limit, debounce, retention).
    public var policy: CheckInPolicy
    /// The kiosks' shared card key (cards enrolled by one kiosk open at the others with the same key); nil: a key of
    /// this kiosk's own, created in the state directory.
    public var cardKey: [UInt8]?
    /// How often the station hears a tick (staff timeout, expiry runs, clock state).
    public var tickInterval: Duration
    /// Where the authority publishes signed CKPW/1 packages (its `index.json`); nil: no warnings.
    public var warningsBaseURL: String?
    /// The authority's P-256 public key (PEM) that every package must be signed with.
    public var warningsPublicKeyPEM: String?
    /// Where Corona-Warn-App hourly packages live (`…/twp/country/DE`); nil: none.
    public var warningsCWABaseURL: String?
    /// The P-256 public key (PEM) that every CWA package must be signed with.
    public var warningsCWAPublicKeyPEM: String?
    /// Where an export goes when the holder names no folder (the mounted USB stick).
    public var reportExportDirectory: String?
    /// The authority's upload endpoint (`…/v1/reports`).
    public var reportUploadURL: String?
    /// How often warnings are fetched.
    public var warningsSyncInterval: Duration = .seconds(3600)
    /// The most bytes one warnings package may have (`warnings.maxPackageBytes`).
    public var warningsMaxPackageBytes = KioskConfiguration.Warnings.defaultMaxPackageBytes
    /// The most bytes a CWA `export.bin` may inflate to (`warnings.maxInflatedBytes`).
    public var warningsMaxInflatedBytes = KioskConfiguration.Warnings.defaultMaxInflatedBytes
    /// Whether the region's published records are kept too, for diary cards (`warnings.keepRegion`).
    public var warningsKeepRegion = false
    /// A venue code to bind at start (`venue.code`); nil: the venue is bound at the kiosk. Never logged.
    public var venueCode: String?
    /// How the kiosk knows the system clock is set (`clock.source`; ignored when simulating).
    public var clockSource: KioskConfiguration.Clock.Source = .auto
    /// Where the local screen's page is served (`127.0.0.1:8080`); nil: no page. Port 0 picks a free port.
    public var webListen: String?
    /// Permits a `webListen` address other than loopback.
    public var webAllowNonLoopback = false
    /// The kiosk's voice: the ALSA device, the volume and the speaking rate (`speech.*`; a simulated kiosk uses
    /// the rate only: it records what espeak-ng makes, at no volume and on no device).
    public var speech = KioskConfiguration.Speech()
    /// The region's token for diary cards (`region`); nil: diary cards are not read.
    public var region: KioskConfiguration.Region?
    /// The file holding the region token user's PIN (the credential `region.pinCredential`).
    public var regionPINFile: String?

    public init(
        stateDirectory: String, simulate: Bool = false, nfcConnection: String? = nil,
        lightsAndButtons: LightsAndButtonsConfiguration? = nil, receiptPrinter: ReceiptPrinterConfiguration? = nil,
        cameraDevice: String? = nil, cameraWidth: Int = 640, cameraHeight: Int = 480,
        metricsListen: String? = "127.0.0.1:9464", station: StationConfiguration = StationConfiguration(),
        policy: CheckInPolicy = .default, cardKey: [UInt8]? = nil, tickInterval: Duration = .seconds(1)
    ) {
        self.stateDirectory = stateDirectory
        self.simulate = simulate
        self.nfcConnection = nfcConnection
        self.lightsAndButtons = lightsAndButtons
        self.receiptPrinter = receiptPrinter
        self.cameraDevice = cameraDevice
        self.cameraWidth = cameraWidth
        self.cameraHeight = cameraHeight
        self.metricsListen = metricsListen
        self.station = station
        self.policy = policy
        self.cardKey = cardKey
        self.tickInterval = tickInterval
    }
}

extension DaemonSettings {
    /// The settings a configuration file (with its secrets) asks for.
    public init(
        _ configuration: KioskConfiguration, secrets: ConfigurationSecrets, stateDirectory: String? = nil,
        simulate: Bool = false
    ) {
        self.init(stateDirectory: stateDirectory ?? configuration.stateDirectory, simulate: simulate)
        nfcConnection = configuration.nfc?.connection
        lightsAndButtons = configuration.lightsAndButtons
        receiptPrinter = configuration.receiptPrinter
        cameraDevice = configuration.camera?.device
        cameraWidth = configuration.camera?.width ?? 640
        cameraHeight = configuration.camera?.height ?? 480
        cameraFramesUntilGone = configuration.camera?.framesUntilGone ?? 15
        metricsListen = configuration.metrics.listen
        policy = configuration.checkIns.policy
        station.staffTimeout = TimeInterval(configuration.staff.modeTimeoutSeconds)
        station.staffCode = secrets.staffCode.map { String(decoding: $0, as: UTF8.self) }
        station.defaultStayLength = TimeInterval(configuration.checkIns.defaultStayMinutes * 60)
        station.language = configuration.language.defaultLanguage
        station.sessionInactivity = TimeInterval(configuration.checkIns.sessionInactivitySeconds)
        station.voice = configuration.speech.voice
        station.timeZone = configuration.venue.zone
        station.screen = configuration.screen
        // The authority's own advice when one is configured; otherwise the catalog's, in the holder's language.
        station.warningAdvice =
            configuration.warnings.message == KioskConfiguration.Warnings.defaultMessage
            ? nil : configuration.warnings.message
        reportExportDirectory = configuration.reports.exportDirectory
        reportUploadURL = configuration.reports.uploadURL
        warningsBaseURL = configuration.warnings.baseURL
        warningsPublicKeyPEM = secrets.authorityPublicKeyPEM
        warningsCWABaseURL = configuration.warnings.cwaBaseURL
        warningsCWAPublicKeyPEM = secrets.cwaPublicKeyPEM
        warningsSyncInterval = .seconds(configuration.warnings.syncIntervalMinutes * 60)
        warningsMaxPackageBytes = configuration.warnings.maxPackageBytes
        warningsMaxInflatedBytes = configuration.warnings.maxInflatedBytes
        warningsKeepRegion = configuration.warnings.keepRegion
        venueCode = configuration.venue.code
        clockSource = configuration.clock.source
        webListen = configuration.web.listen
        webAllowNonLoopback = configuration.web.allowNonLoopback
        speech = configuration.speech
        region = configuration.region
    }
}
