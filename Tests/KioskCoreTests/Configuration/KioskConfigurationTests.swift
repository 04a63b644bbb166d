import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

@Suite struct KioskConfigurationTests {
    static let boardFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("board/config/kiosk.json")

    /// The problems `text` (with `environment`) is refused for, as printed.
    static func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try KioskConfiguration.parse(json: text, environment: environment)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    // MARK: Defaults

    @Test func emptyFileGivesTheDocumentedDefaults() throws {
        let configuration = try KioskConfiguration.parse(json: "{}")
        #expect(configuration == KioskConfiguration())
        #expect(configuration.stateDirectory == "/var/lib/kiosk")
        #expect(configuration.logLevel == .info)
        #expect(configuration.nfc?.connection == "pn532_uart:/dev/ttyS0")
        #expect(configuration.camera?.device == "/dev/video0")
        #expect(configuration.camera?.width == 640 && configuration.camera?.height == 480)
        #expect(configuration.lightsAndButtons == LightsAndButtonsConfiguration())
        #expect(configuration.receiptPrinter == nil)
        #expect(configuration.checkIns.dailyLimit == 20)
        #expect(configuration.checkIns.debounceSeconds == 30)
        #expect(configuration.checkIns.retentionDays == 14)
        #expect(configuration.checkIns.policy == CheckInPolicy.default)
        #expect(configuration.staff.modeTimeoutSeconds == 120)
        #expect(configuration.staff.codeCredential == "staff-code")
        #expect(configuration.venue.code == nil)
        #expect(configuration.reports.exportDirectory == "/media/kiosk-usb")
        #expect(configuration.reports.uploadURL == nil)
        #expect(configuration.warnings.baseURL == nil)
        #expect(configuration.warnings.message == KioskConfiguration.Warnings.defaultMessage)
        #expect(configuration.clock.source == .auto)
        #expect(configuration.metrics.listen == "127.0.0.1:9464")
        #expect(configuration.metrics.allowNonLoopback == false)
        #expect(configuration.web.listen == "127.0.0.1:8080")
        #expect(configuration.web.allowNonLoopback == false)
        #expect(configuration.speech.device == "default")
        #expect(configuration.speech.volume == 80)
        #expect(configuration.speech.rate == 150)
    }

    @Test func committedBoardFileParsesWithThePinMap() throws {
        let text = try String(contentsOf: Self.boardFile, encoding: .utf8)
        let configuration = try KioskConfiguration.parse(json: text)
        let lights = configuration.lightsAndButtons
        #expect(Set(lights.outputs.keys) == Set(IndicatorOutput.allCases))
        #expect(Set(lights.buttons.keys) == Set(ButtonRole.allCases))
        #expect(lights.outputs[.green] == GPIOPin(chip: "gpiochip0", offset: 17))
        #expect(lights.outputs[.red] == GPIOPin(chip: "gpiochip0", offset: 27))
        #expect(lights.outputs[.amber] == GPIOPin(chip: "gpiochip0", offset: 22))
        #expect(lights.outputs[.buzzer] == GPIOPin(chip: "gpiochip0", offset: 23))
        #expect(lights.buttons[.confirm] == GPIOPin(chip: "gpiochip0", offset: 5, activeLow: true, bias: .pullUp))
        #expect(lights.buttons[.cancel] == GPIOPin(chip: "gpiochip0", offset: 6, activeLow: true, bias: .pullUp))
        #expect(try lights.feedbackTable()[.accepted] == FeedbackTable.default[.accepted])
        #expect(configuration.receiptPrinter == ReceiptPrinterConfiguration(path: "/dev/kiosk-printer", paper: .mm58))
        #expect(configuration.nfc?.connection == "pn532_uart:/dev/serial0")
        #expect(configuration.stateDirectory == "/var/lib/kiosk")
        #expect(configuration.metrics.listen == "127.0.0.1:9464")
        #expect(configuration.speech == KioskConfiguration.Speech())
    }

    @Test func nullSwitchesOptionalDevicesOff() throws {
        let configuration = try KioskConfiguration.parse(
            json:
                #"{"nfc": null, "camera": null, "receiptPrinter": null, "metrics": {"listen": null}, "reports": {"exportDirectory": null}}"#
        )
        #expect(configuration.nfc == nil)
        #expect(configuration.camera == nil)
        #expect(configuration.receiptPrinter == nil)
        #expect(configuration.metrics.listen == nil)
        #expect(configuration.reports.exportDirectory == nil)
    }

    @Test func everySectionReadsItsKeys() throws {
        let text = """
            {"stateDirectory": "/srv/kiosk", "logLevel": "debug",
             "nfc": {"connection": "pn532_i2c:/dev/i2c-1", "pollTimeoutMilliseconds": 500, "removalCheckMilliseconds": 50},
             "camera": {"device": "/dev/video2", "width": 1280, "height": 720, "framesUntilGone": 5},
             "receiptPrinter": {"path": "/dev/ttyUSB1", "paper": "mm80", "codePage": "cp858", "bidirectional": true, "baudRate": 19200},
             "checkIns": {"dailyLimit": 10, "debounceSeconds": 5, "defaultStayMinutes": 90, "retentionDays": 7},
             "staff": {"modeTimeoutSeconds": 300, "codeCredential": null},
             "reports": {"exportDirectory": "/media/usb", "uploadURL": "https://upload.example/reports", "uploadTimeoutSeconds": 60, "uploadTokenCredential": "upload-token"},
             "warnings": {"baseURL": "https://warnings.example/w", "cwaBaseURL": "https://cwa.example/", "syncIntervalMinutes": 15, "message": "Call 111.", "maxPackageBytes": 2000000, "maxInflatedBytes": 1000000},
             "clock": {"source": "adjtimex"},
             "metrics": {"listen": "0.0.0.0:9100", "allowNonLoopback": true},
             "speech": {"device": "plughw:CARD=Headphones,DEV=0", "volume": 45, "rate": 120}}
            """
        let c = try KioskConfiguration.parse(json: text)
        #expect(c.stateDirectory == "/srv/kiosk" && c.logLevel == .debug)
        #expect(
            c.nfc?.connection == "pn532_i2c:/dev/i2c-1" && c.nfc?.pollTimeoutMilliseconds == 500
                && c.nfc?.removalCheckMilliseconds == 50)
        #expect(
            c.camera?.device == "/dev/video2" && c.camera?.width == 1280 && c.camera?.height == 720
                && c.camera?.framesUntilGone == 5)
        #expect(
            c.receiptPrinter
                == ReceiptPrinterConfiguration(
                    path: "/dev/ttyUSB1", paper: .mm80, codePage: .cp858, bidirectional: true, baudRate: 19200))
        #expect(c.checkIns.policy == CheckInPolicy(debounce: 5, dailyLimit: 10, retention: RetentionPolicy(days: 7)))
        #expect(c.checkIns.defaultStayMinutes == 90)
        #expect(c.staff.modeTimeoutSeconds == 300 && c.staff.codeCredential == nil)
        #expect(c.reports.exportDirectory == "/media/usb" && c.reports.uploadURL == "https://upload.example/reports")
        #expect(c.reports.uploadTimeoutSeconds == 60 && c.reports.uploadTokenCredential == "upload-token")
        #expect(c.warnings.baseURL == "https://warnings.example/w" && c.warnings.cwaBaseURL == "https://cwa.example/")
        #expect(c.warnings.syncIntervalMinutes == 15 && c.warnings.message == "Call 111.")
        #expect(c.warnings.maxPackageBytes == 2_000_000 && c.warnings.maxInflatedBytes == 1_000_000)
        #expect(c.clock.source == .adjtimex)
        #expect(c.metrics.listen == "0.0.0.0:9100" && c.metrics.allowNonLoopback)
        #expect(c.speech.device == "plughw:CARD=Headphones,DEV=0" && c.speech.volume == 45 && c.speech.rate == 120)
    }

    // MARK: Validation messages

    static let invalid: [(json: String, problem: String)] = [
        ("[]", "expected a JSON object at the top, got a list"),
        (
            #"{"stateDirectory": "var/lib/kiosk"}"#,
            #"stateDirectory: expected an absolute path (starting with /), got "var/lib/kiosk""#
        ),
        (#"{"stateDirectory": "/"}"#, "stateDirectory: must not be the root directory"),
        (#"{"stateDirectory": 3}"#, "stateDirectory: expected a string, got a number"),
        (
            #"{"logLevel": "verbose"}"#,
            #"logLevel: expected one of "trace", "debug", "info", "notice", "warning", "error", "critical", got "verbose""#
        ),
        (#"{"nfc": {"connection": "/dev/ttyS0"}}"#, #"nfc.connection: expected "driver:port", got "/dev/ttyS0""#),
        (
            #"{"nfc": {"connection": "pn533:/dev/ttyS0"}}"#,
            #"nfc.connection: expected "driver:port" with a libnfc driver (pn532_uart, pn532_i2c, pn532_spi, pn53x_usb, acr122_usb, acr122s, arygon), got "pn533:/dev/ttyS0""#
        ),
        (
            #"{"nfc": {"connection": "pn532_uart"}}"#,
            #"nfc.connection: expected "driver:port" with a device path as port (pn532_uart:/dev/…), got "pn532_uart""#
        ),
        (
            #"{"nfc": {"connection": "pn532_uart:/dev/ttyS0:fast"}}"#,
            #"nfc.connection: expected "driver:port" or "driver:port:speed", got "pn532_uart:/dev/ttyS0:fast""#
        ),
        (#"{"nfc": {"pollTimeoutMilliseconds": 10}}"#, "nfc.pollTimeoutMilliseconds: must be 50 to 5000 ms, got 10"),
        (
            #"{"nfc": {"removalCheckMilliseconds": 1.5}}"#,
            "nfc.removalCheckMilliseconds: expected a whole number, got 1.5"
        ),
        (#"{"nfc": "pn532_uart:/dev/ttyS0"}"#, "nfc: expected an object, got a string"),
        (
            #"{"camera": {"device": "video0"}}"#,
            #"camera.device: expected an absolute path (starting with /), got "video0""#
        ),
        (#"{"camera": {"width": 4000}}"#, "camera.width: must be 160 to 1920 pixels, got 4000"),
        (#"{"camera": {"height": "480"}}"#, "camera.height: expected a whole number, got a string"),
        (#"{"camera": {"framesUntilGone": 0}}"#, "camera.framesUntilGone: must be 1 to 300 frames, got 0"),
        (
            #"{"receiptPrinter": {"paper": "mm58"}}"#,
            "receiptPrinter.path: missing: the printer's device (/dev/usb/lp0, /dev/kiosk-printer) or null for the whole section"
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/usb/lp0", "paper": "a4"}}"#,
            #"receiptPrinter.paper: expected one of "mm58", "mm80", got "a4""#
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/usb/lp0", "codePage": "cp437"}}"#,
            #"receiptPrinter.codePage: expected one of "cp1252", "cp858", got "cp437""#
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/usb/lp0", "codePage": 16}}"#,
            "receiptPrinter.codePage: expected a string, got a number"
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/ttyS1", "baudRate": 14400}}"#,
            "receiptPrinter.baudRate: expected one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, got 14400"
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/usb/lp0", "bidirectional": "yes"}}"#,
            "receiptPrinter.bidirectional: expected true or false, got a string"
        ),
        (
            #"{"receiptPrinter": {"path": "/dev/usb/lp0", "writeTimeoutMilliseconds": 10}}"#,
            "receiptPrinter.writeTimeoutMilliseconds: must be 100 to 120000 ms, got 10"
        ),
        (#"{"checkIns": {"dailyLimit": 0}}"#, "checkIns.dailyLimit: must be 1 to 100 check-ins, got 0"),
        (#"{"checkIns": {"debounceSeconds": -1}}"#, "checkIns.debounceSeconds: must be 0 to 3600 seconds, got -1"),
        (#"{"checkIns": {"defaultStayMinutes": 5}}"#, "checkIns.defaultStayMinutes: must be 15 to 1440 minutes, got 5"),
        (
            #"{"checkIns": {"retentionDays": 21}}"#,
            "checkIns.retentionDays: must be at most 14 days: stays are deleted 14 days after they end, got 21"
        ),
        (#"{"checkIns": {"retentionDays": 0}}"#, "checkIns.retentionDays: must be 1 to 14 days, got 0"),
        (#"{"checkIns": null}"#, "checkIns: cannot be null (leave the section out for its defaults)"),
        (#"{"staff": {"modeTimeoutSeconds": 5}}"#, "staff.modeTimeoutSeconds: must be 10 to 3600 seconds, got 5"),
        (
            #"{"staff": {"codeCredential": "../staff"}}"#,
            #"staff.codeCredential: expected a credential name (letters, digits, '.', '_', '-'; the file name under $CREDENTIALS_DIRECTORY), got "../staff""#
        ),
        (
            #"{"venue": {"code": "Café Müller, Hauptstraße 1"}}"#,
            "venue.code: expected a venue code URL (https://…#…); bind the venue at the kiosk instead if unsure"
        ),
        (
            #"{"reports": {"exportDirectory": "usb"}}"#,
            #"reports.exportDirectory: expected an absolute path (starting with /), got "usb""#
        ),
        (
            #"{"reports": {"uploadURL": "http://upload.example/reports"}}"#,
            #"reports.uploadURL: must use https:// (reports and verification codes must not cross the network in clear), got "http://upload.example/reports""#
        ),
        (
            #"{"reports": {"uploadURL": "upload.example"}}"#,
            #"reports.uploadURL: expected an http(s) URL, got "upload.example""#
        ),
        (
            #"{"reports": {"uploadTokenCredential": "upload-token"}}"#,
            "reports.uploadTokenCredential: is set but reports.uploadURL is not"
        ),
        (#"{"reports": {"uploadTimeoutSeconds": 1}}"#, "reports.uploadTimeoutSeconds: must be 5 to 300 seconds, got 1"),
        (
            #"{"warnings": {"baseURL": "ftp://warnings.example"}}"#,
            #"warnings.baseURL: expected an http(s) URL, got "ftp://warnings.example""#
        ),
        (
            #"{"warnings": {"cwaBaseURL": "https://cwa.example/?x=1"}}"#,
            #"warnings.cwaBaseURL: must not have a query or fragment, got "https://cwa.example/?x=1""#
        ),
        (
            #"{"warnings": {"syncIntervalMinutes": 1}}"#,
            "warnings.syncIntervalMinutes: must be 5 to 1440 minutes, got 1"
        ),
        (
            #"{"warnings": {"maxPackageBytes": 10}}"#,
            "warnings.maxPackageBytes: must be 65536 to 4294967296 bytes, got 10"
        ),
        (
            #"{"warnings": {"publicKey": "/etc/kiosk/key.pem"}}"#,
            #"warnings.publicKey: expected a PEM public key (-----BEGIN PUBLIC KEY-----…) or a credential name, got "/etc/kiosk/key.pem""#
        ),
        (
            #"{"warnings": {"publicKey": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PRIVATE KEY-----"}}"#,
            "warnings.publicKey: expected one PEM block from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY-----"
        ),
        (
            #"{"warnings": {"cwaPublicKey": "-----BEGIN PUBLIC KEY-----\n@@@\n-----END PUBLIC KEY-----"}}"#,
            "warnings.cwaPublicKey: the PEM block's body is not base64"
        ),
        (
            #"{"warnings": {"message": "  "}}"#,
            "warnings.message: must not be empty: it tells a warned visitor what to do"
        ),
        (
            #"{"clock": {"source": "ntp"}}"#,
            #"clock.source: expected one of "auto", "timesyncd", "adjtimex", got "ntp""#
        ),
        (
            #"{"metrics": {"listen": "0.0.0.0:9464"}}"#,
            #"metrics.listen: "0.0.0.0:9464" is not a loopback address; set metrics.allowNonLoopback to true to serve metrics to the network"#
        ),
        (
            #"{"metrics": {"listen": "9464"}}"#,
            #"metrics.listen: expected "host:port" (127.0.0.1:9464, [::1]:9464), got "9464""#
        ),
        (
            #"{"metrics": {"listen": "127.0.0.1:99999"}}"#,
            #"metrics.listen: expected a port 1 to 65535 after the host, got "99999""#
        ),
        (
            #"{"metrics": {"listen": "kiosk.local:9464"}}"#,
            #"metrics.listen: expected an IP address or localhost as host, got "kiosk.local""#
        ),
        (#"{"metrics": {"allowNonLoopback": 1}}"#, "metrics.allowNonLoopback: expected true or false, got a number"),
        (
            #"{"web": {"listen": "192.168.1.20:8080"}}"#,
            #"web.listen: "192.168.1.20:8080" is not a loopback address; set web.allowNonLoopback to true to serve the kiosk's page to the network"#
        ),
        (#"{"web": null}"#, "web: cannot be null (leave the section out for its defaults)"),
        (#"{"speech": {"volume": 101}}"#, "speech.volume: must be 0 to 100 percent, got 101"),
        (#"{"speech": {"volume": -1}}"#, "speech.volume: must be 0 to 100 percent, got -1"),
        (#"{"speech": {"rate": 79}}"#, "speech.rate: must be 80 to 450 words per minute, got 79"),
        (#"{"speech": {"rate": 451}}"#, "speech.rate: must be 80 to 450 words per minute, got 451"),
        (#"{"speech": {"rate": "slow"}}"#, "speech.rate: expected a whole number, got a string"),
        (
            #"{"speech": {"device": "plughw:1, 0"}}"#,
            #"speech.device: expected an ALSA device name (default, plughw:1,0, plughw:CARD=Headphones,DEV=0), got "plughw:1, 0""#
        ),
        (
            #"{"speech": {"device": ""}}"#,
            #"speech.device: expected an ALSA device name (default, plughw:1,0, plughw:CARD=Headphones,DEV=0), got """#
        ),
        (#"{"speech": null}"#, "speech: cannot be null (leave the section out for its defaults)"),
        (#"{"speech": {"voice": "en"}}"#, "speech.voice: unknown key (known here: device, volume, rate)"),
        (
            #"{"lightsAndButtons": {"debounceMilliseconds": 0}}"#,
            "lightsAndButtons.debounceMilliseconds: must be 1 to 500 ms, got 0"
        ),
        (
            #"{"lightsAndButtons": {"outputs": {"green": {"chip": "gpiochip0"}}}}"#,
            #"lightsAndButtons.outputs.green: needs "chip" (gpiochip0, /dev/gpiochip0 or label:…) and "offset" (the line number on that chip)"#
        ),
        (
            #"{"lightsAndButtons": {"outputs": {"green": {"chip": "gpio0", "offset": 17}}}}"#,
            #"lightsAndButtons.outputs.green.chip: expected gpiochipN, /dev/gpiochipN or label:<chip label>, got "gpio0""#
        ),
        (
            #"{"lightsAndButtons": {"buttons": {"confirm": {"chip": "gpiochip0", "offset": 5, "bias": "up"}}}}"#,
            #"lightsAndButtons.buttons.confirm.bias: expected one of "asIs", "disabled", "pullUp", "pullDown", got "up""#
        ),
        (
            #"{"lightsAndButtons": {"outputs": {"green": {"chip": "gpiochip0", "offset": 17}}, "buttons": {"confirm": {"chip": "gpiochip0", "offset": 17}}}}"#,
            "lightsAndButtons: 'confirm' and 'green' are both on gpiochip0 line 17"
        ),
        (
            #"{"lightsAndButtons": {"patterns": {"accepted": {"steps": [{"on": ["green", "blue"], "ms": 100}]}}}}"#,
            #"lightsAndButtons.patterns.accepted.steps[0].on[1]: expected one of "green", "red", "amber", "buzzer", got "blue""#
        ),
        (
            #"{"lightsAndButtons": {"patterns": {"accepted": {"steps": [{"on": ["green"]}]}}}}"#,
            "lightsAndButtons.patterns.accepted.steps[0].ms: missing: how long the step lasts"
        ),
        (
            #"{"lightsAndButtons": {"patterns": {"refused": {"steps": []}}}}"#,
            "lightsAndButtons.patterns.refused: feedback pattern 'refused' has no steps"
        ),
        (
            #"{"lightsAndButtons": {"patterns": {"error": {"steps": [{"on": ["red"], "ms": 10000}], "repeat": 4}}}}"#,
            "lightsAndButtons.patterns.error: feedback pattern 'error' lasts longer than 30000 ms"
        ),
        (
            #"{"lightsAndButtons": {"patterns": {"error": {"steps": [{"on": ["red"], "ms": 100}], "repeat": 50}}}}"#,
            "lightsAndButtons.patterns.error.repeat: must be 1 to 20 times, got 50"
        ),
    ]

    @Test(arguments: invalid)
    func refusesWithAMessageNamingTheKey(_ example: (json: String, problem: String)) {
        #expect(Self.problems(example.json) == [example.problem])
    }

    @Test func notJSONSaysSo() throws {
        let problems = Self.problems("{\"nfc\": {\"connection\": pn532_uart:/dev/ttyS0}}")
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("the file is not valid JSON: line 1, column 24:") == true)
    }

    @Test func aKeySetTwiceIsRefusedWithItsPlace() {
        let problems = Self.problems("{\"checkIns\": {\"dailyLimit\": 5},\n \"checkIns\": {\"dailyLimit\": 50}}")
        #expect(problems.count == 1)
        #expect(problems.first?.contains("line 2, column 2: this key is already set") == true, "\(problems)")
    }

    @Test func everyProblemIsReportedAtOnce() throws {
        let text =
            #"{"nfc": {"connection": "x"}, "camera": {"width": 1}, "checkIns": {"retentionDays": 30}, "colour": "red"}"#
        #expect(
            Self.problems(text) == [
                #"nfc.connection: expected "driver:port" with a libnfc driver (pn532_uart, pn532_i2c, pn532_spi, pn53x_usb, acr122_usb, acr122s, arygon), got "x""#,
                "camera.width: must be 160 to 1920 pixels, got 1",
                "checkIns.retentionDays: must be at most 14 days: stays are deleted 14 days after they end, got 30",
                "colour: unknown key (known here: stateDirectory, logLevel, nfc, camera, lightsAndButtons, receiptPrinter, checkIns, staff, venue, reports, warnings, language, clock, metrics, web, screen, speech, region)",
            ])
        do {
            _ = try KioskConfiguration.parse(json: text)
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("The configuration has 4 problems:\n  nfc.connection: "))
        }
    }

    @Test func venueCodeIsNeverQuotedInAProblem() {
        let code = "https://e.coronawarn.app?v=1"
        let problems = Self.problems(#"{"venue": {"code": "\#(code)"}}"#)
        #expect(problems.count == 1)
        #expect(!problems.joined().contains("coronawarn"))
    }

    // MARK: Unknown keys

    @Test func unknownKeysAreErrorsWithTheNearestKnownKey() {
        #expect(
            Self.problems(#"{"nfc": {"conection": "pn532_uart:/dev/ttyS0"}}"#) == [
                #"nfc.conection: unknown key (did you mean "connection"?)"#
            ])
        #expect(Self.problems(#"{"checkins": {}}"#) == [#"checkins: unknown key (did you mean "checkIns"?)"#])
        #expect(
            Self.problems(#"{"lightsAndButtons": {"outputs": {"blue": {"chip": "gpiochip0", "offset": 3}}}}"#) == [
                "lightsAndButtons.outputs.blue: unknown key (known here: green, red, amber, buzzer)"
            ])
        #expect(
            Self.problems(
                #"{"lightsAndButtons": {"outputs": {"green": {"chip": "gpiochip0", "offset": 3, "activelow": true}}}}"#)
                == [
                    #"lightsAndButtons.outputs.green.activelow: unknown key (did you mean "activeLow"?)"#
                ])
        #expect(
            Self.problems(
                #"{"lightsAndButtons": {"patterns": {"accepted": {"steps": [{"on": [], "ms": 5, "hz": 440}]}}}}"#) == [
                    "lightsAndButtons.patterns.accepted.steps[0].hz: unknown key (known here: on, ms)"
                ])
        #expect(
            Self.problems(#"{"receiptPrinter": {"path": "/dev/usb/lp0", "cutter": true}}"#) == [
                "receiptPrinter.cutter: unknown key (known here: path, paper, codePage, bidirectional, baudRate, writeTimeoutMilliseconds)"
            ])
    }

    // MARK: Environment

    @Test func environmentVariablesFollowTheDocumentedMapping() {
        let variables = KioskConfiguration.overridableKeys.map(\.variable)
        #expect(Set(variables).count == variables.count)
        let byPath = Dictionary(uniqueKeysWithValues: KioskConfiguration.overridableKeys.map { ($0.path, $0.variable) })
        #expect(byPath["nfc.connection"] == "KIOSK_NFC_CONNECTION")
        #expect(byPath["metrics.listen"] == "KIOSK_METRICS_LISTEN")
        #expect(byPath["checkIns.dailyLimit"] == "KIOSK_CHECK_INS_DAILY_LIMIT")
        #expect(byPath["warnings.baseURL"] == "KIOSK_WARNINGS_BASE_URL")
        #expect(byPath["warnings.cwaBaseURL"] == "KIOSK_WARNINGS_CWA_BASE_URL")
        #expect(byPath["stateDirectory"] == "KIOSK_STATE_DIRECTORY")
        #expect(byPath["receiptPrinter.path"] == "KIOSK_RECEIPT_PRINTER_PATH")
        #expect(byPath["receiptPrinter.codePage"] == "KIOSK_RECEIPT_PRINTER_CODE_PAGE")
        #expect(byPath["lightsAndButtons.debounceMilliseconds"] == "KIOSK_LIGHTS_AND_BUTTONS_DEBOUNCE_MILLISECONDS")
        #expect(byPath["speech.device"] == "KIOSK_SPEECH_DEVICE")
        #expect(byPath["speech.volume"] == "KIOSK_SPEECH_VOLUME")
        #expect(byPath["speech.rate"] == "KIOSK_SPEECH_RATE")
    }

    @Test func environmentOverridesTheFile() throws {
        let file = #"{"nfc": {"connection": "pn532_uart:/dev/ttyS0"}, "checkIns": {"dailyLimit": 5}, "camera": null}"#
        let configuration = try KioskConfiguration.parse(
            json: file,
            environment: [
                "KIOSK_NFC_CONNECTION": "pn532_i2c:/dev/i2c-1",
                "KIOSK_METRICS_LISTEN": "[::1]:9100",
                "KIOSK_CHECK_INS_DAILY_LIMIT": "12",
                "KIOSK_METRICS_ALLOW_NON_LOOPBACK": "false",
                "KIOSK_REPORTS_EXPORT_DIRECTORY": "",
                "KIOSK_RECEIPT_PRINTER_PATH": "/dev/usb/lp1",
                "KIOSK_RECEIPT_PRINTER_CODE_PAGE": "cp858",
                "KIOSK_CAMERA_DEVICE": "/dev/video1",
                "KIOSK_LOG_LEVEL": "warning",
                "KIOSK_SPEECH_DEVICE": "plughw:1,0",
                "KIOSK_SPEECH_VOLUME": "0",
                // Not configuration: other tools' variables are left alone.
                "KIOSK_HARDWARE_TESTS": "1",
                "PATH": "/usr/bin",
            ])
        #expect(configuration.nfc?.connection == "pn532_i2c:/dev/i2c-1")
        #expect(configuration.metrics.listen == "[::1]:9100")
        #expect(configuration.checkIns.dailyLimit == 12)
        #expect(configuration.reports.exportDirectory == nil)
        #expect(configuration.receiptPrinter == ReceiptPrinterConfiguration(path: "/dev/usb/lp1", codePage: .cp858))
        #expect(configuration.camera?.device == "/dev/video1")
        #expect(configuration.camera?.width == 640)
        #expect(configuration.logLevel == .warning)
        #expect(configuration.speech.device == "plughw:1,0" && configuration.speech.volume == 0)
        #expect(configuration.speech.rate == 150)
    }

    @Test func environmentIsValidatedAndNamedInProblems() {
        #expect(
            Self.problems("{}", environment: ["KIOSK_NFC_CONNECTION": "ttyS0"]) == [
                #"nfc.connection (from KIOSK_NFC_CONNECTION): expected "driver:port" with a libnfc driver (pn532_uart, pn532_i2c, pn532_spi, pn53x_usb, acr122_usb, acr122s, arygon), got "ttyS0""#
            ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_METRICS_LISTEN": "0.0.0.0:9464"]) == [
                #"metrics.listen (from KIOSK_METRICS_LISTEN): "0.0.0.0:9464" is not a loopback address; set metrics.allowNonLoopback to true to serve metrics to the network"#
            ])
        #expect(
            Self.problems(
                "{}", environment: ["KIOSK_METRICS_LISTEN": "0.0.0.0:9464", "KIOSK_METRICS_ALLOW_NON_LOOPBACK": "true"])
                == [])
        #expect(
            Self.problems("{}", environment: ["KIOSK_CHECK_INS_RETENTION_DAYS": "two weeks"]) == [
                #"checkIns.retentionDays (from KIOSK_CHECK_INS_RETENTION_DAYS): expected a whole number, got "two weeks""#
            ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_CHECK_INS_RETENTION_DAYS": "15"]) == [
                "checkIns.retentionDays (from KIOSK_CHECK_INS_RETENTION_DAYS): must be at most 14 days: stays are deleted 14 days after they end, got 15"
            ])
        #expect(
            Self.problems(
                "{}",
                environment: ["KIOSK_RECEIPT_PRINTER_PATH": "/dev/usb/lp0", "KIOSK_RECEIPT_PRINTER_CODE_PAGE": "utf8"])
                == [
                    #"receiptPrinter.codePage (from KIOSK_RECEIPT_PRINTER_CODE_PAGE): expected one of "cp1252", "cp858", got "utf8""#
                ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_METRICS_ALLOW_NON_LOOPBACK": "maybe"]) == [
                #"metrics.allowNonLoopback (from KIOSK_METRICS_ALLOW_NON_LOOPBACK): expected true or false, got "maybe""#
            ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_NFC_CONECTION": "pn532_uart:/dev/ttyS0"]) == [
                "KIOSK_NFC_CONECTION: not a configuration variable (for nfc: KIOSK_NFC_CONNECTION, KIOSK_NFC_POLL_TIMEOUT_MILLISECONDS, KIOSK_NFC_REMOVAL_CHECK_MILLISECONDS)"
            ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_SPEECH_RATE": "500"]) == [
                "speech.rate (from KIOSK_SPEECH_RATE): must be 80 to 450 words per minute, got 500"
            ])
        #expect(
            Self.problems("{}", environment: ["KIOSK_SPEECH_VOICE": "de"]) == [
                "KIOSK_SPEECH_VOICE: not a configuration variable (for speech: KIOSK_SPEECH_DEVICE, KIOSK_SPEECH_VOLUME, KIOSK_SPEECH_RATE)"
            ])
    }

    // MARK: Credentials

    static let pem = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n"

    @Test func neededCredentialsFollowWhatIsSwitchedOn() throws {
        #expect(try KioskConfiguration.parse(json: "{}").neededCredentials.map(\.name) == ["staff-code"])
        let full = try KioskConfiguration.parse(
            json: """
                {"reports": {"uploadURL": "https://up.example/r", "uploadTokenCredential": "upload-token"},
                 "warnings": {"baseURL": "https://w.example", "cwaBaseURL": "https://c.example"}}
                """)
        #expect(
            full.neededCredentials.map(\.name) == [
                "staff-code", "upload-token", "authority-public-key.pem", "cwa-public-key.pem",
            ])
        let inline = try KioskConfiguration.parse(
            json: """
                {"staff": {"codeCredential": null}, "warnings": {"baseURL": "https://w.example", "publicKey": \(JSONValue.string(Self.pem).rendered())}}
                """)
        #expect(inline.neededCredentials.isEmpty)
        #expect(try inline.secrets(lookup: { _ in .missing }).authorityPublicKeyPEM == Self.pem)
    }

    @Test func credentialsAreReadAndChecked() throws {
        let configuration = try KioskConfiguration.parse(
            json: """
                {"reports": {"uploadURL": "https://up.example/r", "uploadTokenCredential": "upload-token"},
                 "warnings": {"baseURL": "https://w.example"}}
                """)
        let store: [String: [UInt8]] = [
            "staff-code": Array("kiosk-staff-0123456789\n".utf8),
            "upload-token": Array("tok_ABC123".utf8),
            "authority-public-key.pem": Array(Self.pem.utf8),
        ]
        let secrets = try configuration.secrets(lookup: { store[$0].map(CredentialLookup.found) ?? .missing })
        #expect(secrets.staffCode == Array("kiosk-staff-0123456789".utf8))
        #expect(secrets.uploadToken == Array("tok_ABC123".utf8))
        #expect(secrets.authorityPublicKeyPEM == Self.pem)
        #expect(secrets.cwaPublicKeyPEM == nil)
    }

    @Test func missingAndBadCredentialsAreNamedErrors() throws {
        let configuration = try KioskConfiguration.parse(
            json: """
                {"reports": {"uploadURL": "https://up.example/r", "uploadTokenCredential": "upload-token"},
                 "warnings": {"baseURL": "https://w.example", "cwaBaseURL": "https://c.example"}}
                """)
        let store: [String: CredentialLookup] = [
            "staff-code": .found(Array("short".utf8)),
            "upload-token": .found(Array("has space".utf8)),
            "authority-public-key.pem": .unreadable(reason: "Permission denied"),
        ]
        do {
            _ = try configuration.secrets(lookup: { store[$0] ?? .missing })
            Issue.record("accepted")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "credential staff-code: must be 16 to 512 characters, has 5",
                    "credential upload-token: must be 1 to 4096 visible ASCII characters without spaces",
                    "credential authority-public-key.pem: cannot be read (needed by warnings.publicKey): Permission denied",
                    "credential cwa-public-key.pem: missing (needed by warnings.cwaPublicKey); systemd: LoadCredential=cwa-public-key.pem:/etc/kiosk/credentials/cwa-public-key.pem",
                ])
            #expect(!error.description.contains("short"))
            #expect(!error.description.contains("has space"))
        }
        do {
            _ = try KioskConfiguration().secrets(lookup: { _ in .noCredentialsDirectory })
            Issue.record("accepted")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "credential staff-code: cannot be read (needed by staff.codeCredential): $CREDENTIALS_DIRECTORY is not set; run under systemd with LoadCredential=, or name a directory"
                ])
        }
    }

    @Test func secretsPrintRedactedAndAreWiped() throws {
        var secrets = ConfigurationSecrets(
            staffCode: Array("kiosk-staff-0123456789".utf8), uploadToken: Array("tok_ABC123".utf8))
        #expect("\(secrets)" == "<redacted>")
        #expect(String(reflecting: secrets) == "<redacted>")
        var dumped = ""
        dump(secrets, to: &dumped)
        #expect(!dumped.contains("107"))  // no byte of the code ("k" is 107)
        let crypto = WipeRecordingCrypto(wrapping: OpenSSLCrypto())
        secrets.wipe(using: crypto)
        #expect(crypto.wipedBuffers == [Array("kiosk-staff-0123456789".utf8), Array("tok_ABC123".utf8)])
        #expect(secrets.staffCode == nil && secrets.uploadToken == nil)
    }

    /// `venue.timeZone`: an IANA name, the board's own zone when left out; an unknown name is a named error.
    @Test func theVenuesTimeZoneIsReadCheckedAndOverridden() throws {
        let unset = try KioskConfiguration.parse(json: "{}")
        #expect(unset.venue.timeZone == nil && unset.venue.zone.timeZone == TimeZone.current)
        let rome = try KioskConfiguration.parse(json: #"{"venue": {"timeZone": "Europe/Rome"}}"#)
        #expect(rome.venue.timeZone == "Europe/Rome" && rome.venue.zone.identifier == "Europe/Rome")
        let auckland = try KioskConfiguration.parse(
            json: "{}", environment: ["KIOSK_VENUE_TIME_ZONE": "Pacific/Auckland"])
        #expect(auckland.venue.zone.identifier == "Pacific/Auckland")
        #expect(
            Self.problems(#"{"venue": {"timeZone": "Europe/Bologna"}}"#) == [
                #"venue.timeZone: expected an IANA time zone name such as "Europe/Rome" (or null for the board's own), got "Europe/Bologna""#
            ])
        #expect(Self.problems(#"{"venue": {"timeZone": 1}}"#).first?.hasPrefix("venue.timeZone: ") == true)
        #expect(!Self.problems(#"{"venue": {"timeZone": ""}}"#).isEmpty)
        #expect(try KioskConfiguration.parse(json: rome.renderedJSON()) == rome)
    }

    /// `screen.*`: the panel and the viewing distance the text is sized for, and where the reader and camera are.
    @Test func theScreensPanelAndViewingDistanceAreReadAndChecked() throws {
        let defaults = try KioskConfiguration.parse(json: "{}").screen
        #expect(defaults == ScreenGeometry())
        #expect((defaults.widthPixels, defaults.heightPixels, defaults.diagonalMillimetres) == (800, 480, 178))
        #expect(
            defaults.viewingDistanceCentimetres == 40 && defaults.readerSide == .right && defaults.cameraSide == .above)
        let ten = try KioskConfiguration.parse(
            json:
                #"{"screen": {"widthPixels": 1280, "heightPixels": 800, "diagonalMillimetres": 257, "readerSide": "left"}}"#,
            environment: ["KIOSK_SCREEN_VIEWING_DISTANCE_CENTIMETRES": "60", "KIOSK_SCREEN_CAMERA_SIDE": "below"])
        #expect(ten.screen.widthPixels == 1280 && ten.screen.diagonalMillimetres == 257)
        #expect(ten.screen.viewingDistanceCentimetres == 60 && ten.screen.readerSide == .left)
        #expect(ten.screen.cameraSide == .below)
        #expect(
            Self.problems(#"{"screen": {"heightPixels": 10}}"#) == [
                "screen.heightPixels: must be 240 to 4320 px, got 10"
            ])
        #expect(Self.problems(#"{"screen": {"readerSide": "top"}}"#).first?.hasPrefix("screen.readerSide: ") == true)
        #expect(Self.problems(#"{"screen": {"diagonalInches": 7}}"#).first?.hasPrefix("screen.diagonalInches") == true)
        #expect(try KioskConfiguration.parse(json: ten.renderedJSON()) == ten)
    }

    // MARK: Showing

    @Test func renderedConfigurationReadsBackToTheSameValue() throws {
        let text = try String(contentsOf: Self.boardFile, encoding: .utf8)
        var configuration = try KioskConfiguration.parse(json: text)
        configuration.venue.code = "https://e.coronawarn.app?v=1#CAESEw"
        configuration.warnings.baseURL = "https://w.example/w"
        configuration.camera = nil
        configuration.receiptPrinter?.codePage = .cp858
        configuration.speech.device = "plughw:CARD=Headphones,DEV=0"
        configuration.speech.volume = 0
        configuration.speech.rate = 450
        configuration.lightsAndButtons.patterns[.refused] = FeedbackSequence(
            steps: [FeedbackStep(on: [.red, .buzzer], milliseconds: 300)], repeatCount: 2, hold: [.red])
        let rendered = configuration.renderedJSON(redacting: false)
        #expect(try KioskConfiguration.parse(json: rendered) == configuration)
        #expect(rendered.contains(#""paper": "mm58",\#n    "codePage": "cp858",\#n    "bidirectional": false"#))
        #expect(try KioskConfiguration.parse(json: KioskConfiguration().renderedJSON()) == KioskConfiguration())
    }

    @Test func shownConfigurationHidesTheVenueCode() throws {
        var configuration = KioskConfiguration()
        configuration.venue.code = "https://e.coronawarn.app?v=1#CAESEw"
        let shown = configuration.renderedJSON()
        #expect(!shown.contains("coronawarn"))
        #expect(shown.contains(#""code": "<set, not shown>""#))
        #expect(
            shown.hasPrefix("{\n  \"stateDirectory\": \"/var/lib/kiosk\",\n  \"logLevel\": \"info\",\n  \"nfc\": {"))
    }

    @Test func shownConfigurationHidesAPasswordInTheUploadURL() throws {
        var configuration = KioskConfiguration()
        configuration.reports.uploadURL = "https://tc:s3cret-pass@authority.example/v1/reports?x=a@b"
        let shown = configuration.renderedJSON()
        #expect(!shown.contains("s3cret"))
        #expect(!shown.contains("tc:"))
        #expect(shown.contains(#""uploadURL": "https://<set, not shown>@authority.example/v1/reports?x=a@b""#))
        #expect(
            KioskConfiguration.maskingUserInfo("https://authority.example/v1/reports?x=a@b")
                == "https://authority.example/v1/reports?x=a@b")
        #expect(configuration.renderedJSON(redacting: false).contains("s3cret-pass"))
    }

    // MARK: Listen addresses

    @Test func listenAddressesAndLoopback() throws {
        #expect(try ListenAddress.parse("127.0.0.1:9464").get() == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(try ListenAddress.parse("127.1.2.3:80").get().isLoopback)
        #expect(try ListenAddress.parse("[::1]:9464").get() == ListenAddress(host: "::1", port: 9464))
        #expect(try ListenAddress.parse("[::1]:9464").get().isLoopback)
        #expect(try ListenAddress.parse("localhost:1").get().isLoopback)
        #expect(try !ListenAddress.parse("0.0.0.0:9464").get().isLoopback)
        #expect(try !ListenAddress.parse("[::]:9464").get().isLoopback)
        #expect(try !ListenAddress.parse("192.168.1.10:9464").get().isLoopback)
        for bad in [
            "", ":9464", "127.0.0.1", "127.0.0.1:", "256.0.0.1:80", "[::1]", "::1:80", "127.0.0.1:0", "127.0.0.1:+80",
        ] {
            #expect(throws: ListenAddress.Problem.self, "\(bad)") { try ListenAddress.parse(bad).get() }
        }
    }
}

@Suite struct SessionTimeConfigurationTests {
    @Test func theSessionsTimeToAnswerIsReadCheckedAndOverridden() throws {
        #expect(try KioskConfiguration.parse(json: "{}").checkIns.sessionInactivitySeconds == 90)
        let set = try KioskConfiguration.parse(json: #"{"checkIns": {"sessionInactivitySeconds": 240}}"#)
        #expect(set.checkIns.sessionInactivitySeconds == 240)
        let overridden = try KioskConfiguration.parse(
            json: "{}", environment: ["KIOSK_CHECK_INS_SESSION_INACTIVITY_SECONDS": "600"])
        #expect(overridden.checkIns.sessionInactivitySeconds == 600)
        #expect(throws: ConfigurationError.self) {
            _ = try KioskConfiguration.parse(json: #"{"checkIns": {"sessionInactivitySeconds": 10}}"#)
        }
        #expect(
            set.renderedJSON().contains(#""sessionInactivitySeconds" : 240"#)
                || set.renderedJSON().contains(#""sessionInactivitySeconds": 240"#))
    }
}
