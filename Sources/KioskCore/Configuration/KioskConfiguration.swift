public import Foundation

/// Everything the kiosk daemon is told at start: one JSON file (`/etc/kiosk/kiosk.json`, documented key by key in
/// `docs/configuration.md`), then `KIOSK_<SECTION>_<KEY>` environment variables over it, with secrets from systemd
/// credentials. Every key has a default, so `{}` is a valid file; `null` switches an optional device or service off.
///
/// Reading is pure: `KioskConfiguration.parse(json:environment:)` takes text and a dictionary and returns the
/// configuration or every problem found (`ConfigurationError`); the file, environment and credential reading is
/// `ConfigurationLoader` in `KioskDaemon`.
public struct KioskConfiguration: Sendable, Equatable {
    /// Where the store, the venue binding and the warnings state live (systemd `StateDirectory=kiosk`).
    public var stateDirectory = "/var/lib/kiosk"
    public var logLevel = LogLevel.info
    /// The NFC reader; nil: none (visitors use their printed QR cards).
    public var nfc: NFC? = NFC()
    /// The camera that reads QR codes; nil: none.
    public var camera: Camera? = Camera()
    public var lightsAndButtons = LightsAndButtonsConfiguration()
    /// The receipt printer; nil (the default): none.
    public var receiptPrinter: ReceiptPrinterConfiguration?
    public var checkIns = CheckIns()
    public var staff = Staff()
    public var venue = Venue()
    public var reports = Reports()
    public var warnings = Warnings()
    public var clock = Clock()
    public var metrics = Metrics()
    public var web = Web()
    /// The panel and the viewing distance its text is sized for; where the reader and camera are.
    public var screen = ScreenGeometry()
    public var language = LanguageSettings()
    public var speech = Speech()
    /// The token with the region's keys for diary cards; nil (the default): none.
    public var region: Region?

    /// The defaults.
    public init() {}

    /// How much the daemon logs; the names are swift-log's levels.
    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// The NFC reader, as libnfc opens it.
    public struct NFC: Sendable, Equatable {
        /// libnfc connection string, `driver:port` (`pn532_uart:/dev/ttyS0`, `pn532_i2c:/dev/i2c-1`,
        /// `acr122_usb`). The kiosk opens exactly this and never scans.
        public var connection = "pn532_uart:/dev/ttyS0"
        /// How long one poll for a card waits before the reader thread looks at its other work.
        public var pollTimeoutMilliseconds = 300
        /// How often a card lying on the reader is checked for presence.
        public var removalCheckMilliseconds = 100

        public init() {}

        /// The libnfc drivers of Debian's libnfc 1.8 (no PC/SC).
        public static let drivers = [
            "pn532_uart", "pn532_i2c", "pn532_spi", "pn53x_usb", "acr122_usb", "acr122s", "arygon",
        ]
        /// Drivers that need a port (a device path); the USB ones find their device themselves.
        static let driversNeedingPort: Set<String> = ["pn532_uart", "pn532_i2c", "pn532_spi", "acr122s", "arygon"]
    }

    /// The camera whose frames libzbar reads.
    public struct Camera: Sendable, Equatable {
        public var device = "/dev/video0"
        public var width = 640
        public var height = 480
        /// A code held in front of the camera counts as one scan until it has been missing from this many frames
        /// in a row.
        public var framesUntilGone = 15

        public init() {}
    }

    /// Check-in rules.
    public struct CheckIns: Sendable, Equatable {
        /// Check-ins per card per UTC day (CWA used 20).
        public var dailyLimit = 20
        /// A second tap within this time of the last registered one does nothing.
        public var debounceSeconds = 30
        /// Stay length when the venue's code gives none (clamped by the lifecycle to 15 minutes … 24 hours).
        public var defaultStayMinutes = 120
        /// Days a stay is kept after it ends; the specification's 14 is also the maximum.
        public var retentionDays = 14
        /// A session opened with a printed card code closes after this long without a choice (announced 20 seconds
        /// before, with more time offered).
        public var sessionInactivitySeconds = 90

        public init() {}

        /// The core's policy with these numbers.
        public var policy: CheckInPolicy {
            CheckInPolicy(
                debounce: TimeInterval(debounceSeconds), dailyLimit: dailyLimit,
                retention: RetentionPolicy(days: retentionDays))
        }

        public static let maximumRetentionDays = 14
    }

    /// Staff mode.
    public struct Staff: Sendable, Equatable {
        /// Staff mode closes after this long without a staff action.
        public var modeTimeoutSeconds = 120
        /// Name of the credential holding the staff QR code's secret; nil: staff cards only.
        public var codeCredential: String? = "staff-code"

        public init() {}
    }

    /// The venue the kiosk serves. Normally bound at run time (staff show the venue's poster), so nothing here.
    public struct Venue: Sendable, Equatable {
        /// A venue code (`https://e.coronawarn.app?v=1#…`) to bind at start instead. Never logged or shown.
        public var code: String?
        /// `venue.timeZone`: the IANA name of the venue's time zone (`Europe/Rome`), in which visitors read every
        /// time; nil: the board's own zone.
        public var timeZone: String?

        public init() {}

        /// The venue's time zone: `timeZone`, else the board's own (resolved when a visitor text first needs it).
        public var zone: VenueZone { VenueZone(identifier: timeZone) }
    }

    /// Where consented reports go.
    public struct Reports: Sendable, Equatable {
        /// Mount point of the USB stick reports are written to; nil: no export.
        public var exportDirectory: String? = "/media/kiosk-usb"
        /// The health authority's upload endpoint (HTTPS); nil: no upload.
        public var uploadURL: String?
        public var uploadTimeoutSeconds = 30
        /// Name of the credential with a bearer token for the upload endpoint; nil: none.
        public var uploadTokenCredential: String?

        public init() {}
    }

    /// The health authority's warnings.
    public struct Warnings: Sendable, Equatable {
        /// Where the CKPW/1 `index.json` lives; nil: no downloads (packages can still come on a USB stick).
        public var baseURL: String?
        /// Where Corona-Warn-App's hourly packages live; nil: none.
        public var cwaBaseURL: String?
        public var syncIntervalMinutes = 60
        /// The most bytes one package may have, downloaded or on a USB stick (a CKPW/1 package, a CWA hourly zip):
        /// a download is stopped there (an endless answer included) and the package refused.
        public var maxPackageBytes = Warnings.defaultMaxPackageBytes
        /// The most bytes a CWA package's `export.bin` may inflate to: a zip bomb is stopped there and refused.
        public var maxInflatedBytes = Warnings.defaultMaxInflatedBytes
        /// The key that signs CKPW/1 packages: a PEM block, or the name of a credential holding one.
        public var publicKey = "authority-public-key.pem"
        /// The key that signs the CWA packages: a PEM block or a credential name.
        public var cwaPublicKey = "cwa-public-key.pem"
        /// Shown on the screen and printed on the slip when a visitor's stay matches a warning.
        public var message = Warnings.defaultMessage
        /// Whether every valid record of the region's packages is kept too (`RegionWarnings`), not only those that
        /// could concern this kiosk's venue: diary cards carry stays from any venue of the region and are matched at
        /// the tap. Costs disk (76 bytes a CKPR/1 record, 25 a CWA warning: the records lie in the region's file) and
        /// memory (8 bytes a record: a compact key to find it by).
        public var keepRegion = false

        public init() {}

        /// 100 MiB: a CKPW/1 package of about 1.4 million records.
        public static let defaultMaxPackageBytes = 100 * 1024 * 1024
        /// 32 MiB: a CWA `export.bin` of several hundred thousand records.
        public static let defaultMaxInflatedBytes = 32 * 1024 * 1024

        public static let defaultMessage = """
            You were at a place at the same time as someone who later tested positive. Watch for symptoms over the \
            next days. If you feel unwell, stay at home and call your doctor or the health service before you go \
            there. Take a test, and follow your health authority's advice.
            """
    }

    /// The language the kiosk speaks (screen, speech, paper) unless a visitor chooses another.
    public struct LanguageSettings: Sendable, Equatable {
        /// `language.default`: `en`, `de`, `fr` or `it`.
        public var defaultLanguage = Language.fallback

        public init() {}
    }

    /// How the kiosk decides that the system clock can be trusted.
    public struct Clock: Sendable, Equatable {
        public var source = Source.auto

        public init() {}

        public enum Source: String, Sendable, CaseIterable {
            /// Either of the two below.
            case auto
            /// systemd-timesyncd's marker file `/run/systemd/timesync/synchronized`.
            case timesyncd
            /// The kernel's NTP state (`adjtimex`), as chrony or ntpd set it.
            case adjtimex
        }
    }

    /// The Prometheus metrics endpoint.
    public struct Metrics: Sendable, Equatable {
        /// `host:port` to listen on; nil: no endpoint.
        public var listen: String? = "127.0.0.1:9464"
        /// Permits a non-loopback `listen` address (metrics carry counts only, but need not be public).
        public var allowNonLoopback = false

        public init() {}
    }

    /// The kiosk's voice: espeak-ng's speech played on an ALSA device.
    public struct Speech: Sendable, Equatable {
        /// The ALSA device name (`default`, `plughw:1,0`, `plughw:CARD=Headphones,DEV=0`); `aplay -L` lists them.
        public var device = "default"
        /// 0–100 %, applied to the samples (0: silent, nothing is played).
        public var volume = StationConfiguration.default.voice.volume
        /// Words per minute, 80–450: slower than espeak-ng's 175, for older listeners.
        public var rate = StationConfiguration.default.voice.rate

        public init() {}

        /// The rates espeak-ng accepts.
        public static let rates = SpeechVoice.rates

        /// The voice the kiosk speaks with until a visitor changes it.
        public var voice: SpeechVoice { SpeechVoice(volume: volume, rate: rate) }
    }

    /// The local page a screen on the kiosk shows (Chromium in kiosk mode, `docs/board.md`).
    public struct Web: Sendable, Equatable {
        /// `host:port` to serve on; nil: no page (a kiosk without a screen).
        public var listen: String? = "127.0.0.1:8080"
        /// Permits a non-loopback `listen` address. The page shows a visitor's stays while their card is on the
        /// reader, so it belongs on the kiosk's own screen only.
        public var allowNonLoopback = false

        public init() {}
    }
}
