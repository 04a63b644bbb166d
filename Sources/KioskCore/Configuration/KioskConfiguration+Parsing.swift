import Foundation

extension KioskConfiguration {
    /// Reads a configuration file's text, with `environment`'s `KIOSK_<SECTION>_<KEY>` variables applied over it
    /// (see `environmentVariables`), and checks it. Throws every problem at once, each naming its key by full path.
    public static func parse(json text: String, environment: [String: String] = [:]) throws(ConfigurationError)
        -> KioskConfiguration
    {
        let document: JSONValue
        do {
            document = try JSONValue.parse(text)
        } catch {
            throw ConfigurationError(problems: [
                ConfigurationProblem(path: "", message: "the file is not valid JSON: \(error.detail)")
            ])
        }
        return try parse(document: document, environment: environment)
    }

    /// As `parse(json:environment:)`, from a parsed document.
    public static func parse(document: JSONValue, environment: [String: String] = [:]) throws(ConfigurationError)
        -> KioskConfiguration
    {
        let log = ProblemLog()
        guard case .object(var members) = document else {
            throw ConfigurationError(problems: [
                ConfigurationProblem(path: "", message: "expected a JSON object at the top, got \(document.typeName)")
            ])
        }
        let overridden = applyEnvironment(environment, to: &members, log: log)
        let configuration = read(ObjectReader(path: "", members: members, log: log))
        let problems = log.problems.map { problem -> ConfigurationProblem in
            guard let variable = overridden[problem.path] else { return problem }
            return ConfigurationProblem(path: "\(problem.path) (from \(variable))", message: problem.message)
        }
        guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return configuration
    }

    private static func read(_ top: ObjectReader) -> KioskConfiguration {
        var top = top
        let log = top.log
        var configuration = KioskConfiguration()

        configuration.stateDirectory = top.string("stateDirectory", default: configuration.stateDirectory)
        checkAbsolutePath(configuration.stateDirectory, at: "stateDirectory", log: log)
        if configuration.stateDirectory == "/" { log.add("stateDirectory", "must not be the root directory") }
        configuration.logLevel = top.choice("logLevel", default: configuration.logLevel)

        switch top.section("nfc") {
        case .null: configuration.nfc = nil
        case .absent, .invalid: break
        case .present(var reader):
            configuration.nfc = readNFC(&reader)
            reader.finish()
        }
        switch top.section("camera") {
        case .null: configuration.camera = nil
        case .absent, .invalid: break
        case .present(var reader):
            configuration.camera = readCamera(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("lightsAndButtons") {
            configuration.lightsAndButtons = readLightsAndButtons(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("receiptPrinter") {
            configuration.receiptPrinter = readReceiptPrinter(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("checkIns") {
            configuration.checkIns = readCheckIns(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("staff") {
            var staff = Staff()
            staff.modeTimeoutSeconds = reader.integer(
                "modeTimeoutSeconds", default: staff.modeTimeoutSeconds, range: 10...3600, unit: "seconds")
            staff.codeCredential = reader.optionalString("codeCredential", default: staff.codeCredential)
            if let name = staff.codeCredential {
                checkCredentialName(name, at: reader.keyPath("codeCredential"), log: log)
            }
            configuration.staff = staff
            reader.finish()
        }
        if case .present(var reader) = top.section("venue") {
            let code = reader.optionalString("code", default: nil)
            if let code {
                // The code identifies the venue: describe, never quote.
                if !code.lowercased().hasPrefix("https://") || !code.contains("#") {
                    log.add(
                        reader.keyPath("code"),
                        "expected a venue code URL (https://…#…); bind the venue at the kiosk instead if unsure")
                }
            }
            configuration.venue.code = code
            let zone = reader.optionalString("timeZone", default: nil)
            if let zone, !VenueZone.isKnown(zone) {
                log.add(
                    reader.keyPath("timeZone"),
                    "expected an IANA time zone name such as \"Europe/Rome\" (or null for the board's own), got \(JSONValue.quoted(zone))"
                )
            }
            configuration.venue.timeZone = zone
            reader.finish()
        }
        if case .present(var reader) = top.section("reports") {
            configuration.reports = readReports(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("warnings") {
            configuration.warnings = readWarnings(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("language") {
            configuration.language.defaultLanguage = reader.choice(
                "default", default: configuration.language.defaultLanguage)
            reader.finish()
        }
        if case .present(var reader) = top.section("clock") {
            configuration.clock.source = reader.choice("source", default: configuration.clock.source)
            reader.finish()
        }
        if case .present(var reader) = top.section("metrics") {
            let (listen, allow) = readListen(&reader, default: configuration.metrics.listen, what: "serve metrics")
            configuration.metrics.listen = listen
            configuration.metrics.allowNonLoopback = allow
            reader.finish()
        }
        if case .present(var reader) = top.section("web") {
            let (listen, allow) = readListen(&reader, default: configuration.web.listen, what: "serve the kiosk's page")
            configuration.web.listen = listen
            configuration.web.allowNonLoopback = allow
            reader.finish()
        }
        if case .present(var reader) = top.section("screen") {
            configuration.screen = readScreen(&reader)
            reader.finish()
        }
        if case .present(var reader) = top.section("speech") {
            configuration.speech = readSpeech(&reader)
            reader.finish()
        }
        switch top.section("region") {
        case .null, .absent, .invalid: break
        case .present(var reader):
            configuration.region = readRegion(&reader)
            reader.finish()
        }
        for key in [
            "lightsAndButtons", "checkIns", "staff", "venue", "reports", "warnings", "language", "clock", "metrics",
            "web", "screen", "speech",
        ] {
            if top.members[key] == .null { log.add(key, "cannot be null (leave the section out for its defaults)") }
        }
        top.finish()
        return configuration
    }

    // MARK: Sections

    private static func readScreen(_ reader: inout ObjectReader) -> ScreenGeometry {
        var screen = ScreenGeometry()
        let numbers: [WritableKeyPath<ScreenGeometry, Int>] = [
            \.widthPixels, \.heightPixels, \.diagonalMillimetres, \.viewingDistanceCentimetres,
        ]
        for (number, rule) in zip(numbers, ScreenGeometry.ranges) {
            screen[keyPath: number] = reader.integer(
                rule.key, default: screen[keyPath: number], range: rule.range, unit: rule.unit)
        }
        screen.readerSide = reader.choice("readerSide", default: screen.readerSide)
        screen.cameraSide = reader.choice("cameraSide", default: screen.cameraSide)
        return screen
    }

    private static func readNFC(_ reader: inout ObjectReader) -> NFC {
        var nfc = NFC()
        nfc.connection = reader.string("connection", default: nfc.connection)
        if let problem = connectionProblem(nfc.connection) { reader.log.add(reader.keyPath("connection"), problem) }
        nfc.pollTimeoutMilliseconds = reader.integer(
            "pollTimeoutMilliseconds", default: nfc.pollTimeoutMilliseconds, range: 50...5000, unit: "ms")
        nfc.removalCheckMilliseconds = reader.integer(
            "removalCheckMilliseconds", default: nfc.removalCheckMilliseconds, range: 20...1000, unit: "ms")
        return nfc
    }

    /// What is wrong with a libnfc connection string, or nil.
    static func connectionProblem(_ connection: String) -> String? {
        let parts = connection.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let driver = String(parts[0])
        let port = parts.count > 1 ? String(parts[1]) : ""
        guard !driver.isEmpty, !driver.contains("/"), !connection.contains(where: { $0.isWhitespace }) else {
            return "expected \"driver:port\", got \(JSONValue.quoted(connection))"
        }
        guard NFC.drivers.contains(driver) else {
            return
                "expected \"driver:port\" with a libnfc driver (\(NFC.drivers.joined(separator: ", "))), got \(JSONValue.quoted(connection))"
        }
        if NFC.driversNeedingPort.contains(driver) {
            guard port.hasPrefix("/") else {
                return
                    "expected \"driver:port\" with a device path as port (\(driver):/dev/…), got \(JSONValue.quoted(connection))"
            }
            // pn532_uart and friends accept a speed after the path: pn532_uart:/dev/ttyS0:115200.
            let pieces = port.split(separator: ":", omittingEmptySubsequences: false)
            if pieces.count > 2 || (pieces.count == 2 && Int(pieces[1]).map({ $0 > 0 }) != true) {
                return "expected \"driver:port\" or \"driver:port:speed\", got \(JSONValue.quoted(connection))"
            }
        }
        return nil
    }

    private static func readCamera(_ reader: inout ObjectReader) -> Camera {
        var camera = Camera()
        camera.device = reader.string("device", default: camera.device)
        checkAbsolutePath(camera.device, at: reader.keyPath("device"), log: reader.log)
        camera.width = reader.integer("width", default: camera.width, range: 160...1920, unit: "pixels")
        camera.height = reader.integer("height", default: camera.height, range: 120...1080, unit: "pixels")
        camera.framesUntilGone = reader.integer(
            "framesUntilGone", default: camera.framesUntilGone, range: 1...300, unit: "frames")
        return camera
    }

    private static func readCheckIns(_ reader: inout ObjectReader) -> CheckIns {
        var checkIns = CheckIns()
        checkIns.dailyLimit = reader.integer(
            "dailyLimit", default: checkIns.dailyLimit, range: 1...100, unit: "check-ins")
        checkIns.debounceSeconds = reader.integer(
            "debounceSeconds", default: checkIns.debounceSeconds, range: 0...3600, unit: "seconds")
        checkIns.defaultStayMinutes = reader.integer(
            "defaultStayMinutes", default: checkIns.defaultStayMinutes, range: 15...1440, unit: "minutes")
        checkIns.sessionInactivitySeconds = reader.integer(
            "sessionInactivitySeconds", default: checkIns.sessionInactivitySeconds, range: 45...900, unit: "seconds")
        if case .integer(let days)? = reader.members["retentionDays"], days > Int64(CheckIns.maximumRetentionDays) {
            _ = reader.value("retentionDays")
            reader.log.add(
                reader.keyPath("retentionDays"),
                "must be at most 14 days: stays are deleted 14 days after they end, got \(days)")
        } else {
            checkIns.retentionDays = reader.integer(
                "retentionDays", default: checkIns.retentionDays, range: 1...CheckIns.maximumRetentionDays, unit: "days"
            )
        }
        return checkIns
    }

    private static func readReports(_ reader: inout ObjectReader) -> Reports {
        var reports = Reports()
        reports.exportDirectory = reader.optionalString("exportDirectory", default: reports.exportDirectory)
        if let directory = reports.exportDirectory {
            checkAbsolutePath(directory, at: reader.keyPath("exportDirectory"), log: reader.log)
        }
        reports.uploadURL = reader.optionalString("uploadURL", default: nil)
        if let url = reports.uploadURL, let problem = urlProblem(url, requireHTTPS: true) {
            reader.log.add(reader.keyPath("uploadURL"), problem)
        }
        reports.uploadTimeoutSeconds = reader.integer(
            "uploadTimeoutSeconds", default: reports.uploadTimeoutSeconds, range: 5...300, unit: "seconds")
        reports.uploadTokenCredential = reader.optionalString("uploadTokenCredential", default: nil)
        if let name = reports.uploadTokenCredential {
            checkCredentialName(name, at: reader.keyPath("uploadTokenCredential"), log: reader.log)
            if reports.uploadURL == nil {
                reader.log.add(reader.keyPath("uploadTokenCredential"), "is set but reports.uploadURL is not")
            }
        }
        return reports
    }

    private static func readWarnings(_ reader: inout ObjectReader) -> Warnings {
        var warnings = Warnings()
        warnings.baseURL = reader.optionalString("baseURL", default: nil)
        if let url = warnings.baseURL, let problem = urlProblem(url, requireHTTPS: false) {
            reader.log.add(reader.keyPath("baseURL"), problem)
        }
        warnings.cwaBaseURL = reader.optionalString("cwaBaseURL", default: nil)
        if let url = warnings.cwaBaseURL, let problem = urlProblem(url, requireHTTPS: false) {
            reader.log.add(reader.keyPath("cwaBaseURL"), problem)
        }
        warnings.syncIntervalMinutes = reader.integer(
            "syncIntervalMinutes", default: warnings.syncIntervalMinutes, range: 5...1440, unit: "minutes")
        warnings.maxPackageBytes = reader.integer(
            "maxPackageBytes", default: warnings.maxPackageBytes, range: 65_536...(4 << 30), unit: "bytes")
        warnings.maxInflatedBytes = reader.integer(
            "maxInflatedBytes", default: warnings.maxInflatedBytes, range: 65_536...(4 << 30), unit: "bytes")
        for key in ["publicKey", "cwaPublicKey"] {
            let fallback = key == "publicKey" ? warnings.publicKey : warnings.cwaPublicKey
            let value = reader.string(key, default: fallback)
            if let problem = publicKeyProblem(value) { reader.log.add(reader.keyPath(key), problem) }
            if key == "publicKey" { warnings.publicKey = value } else { warnings.cwaPublicKey = value }
        }
        warnings.message = reader.string("message", default: warnings.message)
        warnings.keepRegion = reader.bool("keepRegion", default: warnings.keepRegion)
        let trimmed = warnings.message.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            reader.log.add(reader.keyPath("message"), "must not be empty: it tells a warned visitor what to do")
        } else if warnings.message.count > 1000 {
            reader.log.add(
                reader.keyPath("message"),
                "must be at most 1000 characters (it is printed on a slip), got \(warnings.message.count)")
        }
        return warnings
    }

    private static func readSpeech(_ reader: inout ObjectReader) -> Speech {
        var speech = Speech()
        speech.device = reader.string("device", default: speech.device)
        if speech.device.isEmpty || speech.device.contains(where: { $0.isWhitespace || $0.isNewline })
            || speech.device.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            reader.log.add(
                reader.keyPath("device"),
                "expected an ALSA device name (default, plughw:1,0, plughw:CARD=Headphones,DEV=0), got \(JSONValue.quoted(speech.device))"
            )
        }
        speech.volume = reader.integer("volume", default: speech.volume, range: 0...100, unit: "percent")
        speech.rate = reader.integer("rate", default: speech.rate, range: Speech.rates, unit: "words per minute")
        return speech
    }

    /// `listen` and `allowNonLoopback` of a section that serves HTTP: loopback only unless allowed.
    private static func readListen(_ reader: inout ObjectReader, default fallback: String?, what: String) -> (
        String?, Bool
    ) {
        let listen = reader.optionalString("listen", default: fallback)
        let allowNonLoopback = reader.bool("allowNonLoopback", default: false)
        if let listen {
            switch ListenAddress.parse(listen) {
            case .failure(let problem):
                reader.log.add(reader.keyPath("listen"), problem.message)
            case .success(let address) where !address.isLoopback && !allowNonLoopback:
                reader.log.add(
                    reader.keyPath("listen"),
                    "\(JSONValue.quoted(listen)) is not a loopback address; set \(reader.keyPath("allowNonLoopback")) to true to \(what) to the network"
                )
            case .success:
                break
            }
        }
        return (listen, allowNonLoopback)
    }

    private static func readRegion(_ reader: inout ObjectReader) -> Region {
        let name: String
        if reader.members["name"] == nil {
            _ = reader.value("name")
            reader.log.add(
                reader.keyPath("name"), "missing: the region's name, the same at every kiosk (or null for the section)")
            name = ""
        } else {
            name = reader.string("name", default: "")
            if let problem = Region.problem(withName: name) { reader.log.add(reader.keyPath("name"), problem) }
        }
        var region = Region(name: name)
        region.module = reader.string("module", default: region.module)
        checkAbsolutePath(region.module, at: reader.keyPath("module"), log: reader.log)
        region.token = reader.string("token", default: region.token)
        if let problem = Region.problem(withTokenLabel: region.token) {
            reader.log.add(reader.keyPath("token"), problem)
        }
        region.pinCredential = reader.string("pinCredential", default: region.pinCredential)
        checkCredentialName(region.pinCredential, at: reader.keyPath("pinCredential"), log: reader.log)
        return region
    }

    private static func readReceiptPrinter(_ reader: inout ObjectReader) -> ReceiptPrinterConfiguration? {
        let path: String
        if reader.members["path"] == nil {
            _ = reader.value("path")
            reader.log.add(
                reader.keyPath("path"),
                "missing: the printer's device (/dev/usb/lp0, /dev/kiosk-printer) or null for the whole section")
            path = ""
        } else {
            path = reader.string("path", default: "")
            checkAbsolutePath(path, at: reader.keyPath("path"), log: reader.log)
        }
        var printer = ReceiptPrinterConfiguration(path: path)
        printer.paper = reader.choice("paper", default: printer.paper)
        printer.codePage = reader.choice("codePage", default: printer.codePage)
        printer.bidirectional = reader.bool("bidirectional", default: printer.bidirectional)
        let speeds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200]
        printer.baudRate = reader.integer("baudRate", default: printer.baudRate, range: 1200...115200)
        if !speeds.contains(printer.baudRate) {
            reader.log.add(
                reader.keyPath("baudRate"),
                "expected one of \(speeds.map(String.init).joined(separator: ", ")), got \(printer.baudRate)")
        }
        printer.writeTimeoutMilliseconds = reader.integer(
            "writeTimeoutMilliseconds", default: printer.writeTimeoutMilliseconds, range: 100...120_000, unit: "ms")
        return printer
    }

    // MARK: Lights and buttons

    private static func readLightsAndButtons(_ reader: inout ObjectReader) -> LightsAndButtonsConfiguration {
        var lights = LightsAndButtonsConfiguration()
        let log = reader.log
        if case .present(var outputs) = reader.section("outputs") {
            for key in outputs.members.keys.sorted() {
                guard let role = IndicatorOutput(rawValue: key) else { continue }
                guard let value = outputs.value(key), let pin = readPin(value, at: outputs.keyPath(key), log: log)
                else { continue }
                lights.outputs[role] = pin
            }
            for role in IndicatorOutput.allCases { _ = outputs.value(role.rawValue) }
            outputs.finish()
        }
        if case .present(var buttons) = reader.section("buttons") {
            for key in buttons.members.keys.sorted() {
                guard let role = ButtonRole(rawValue: key) else { continue }
                guard let value = buttons.value(key), let pin = readPin(value, at: buttons.keyPath(key), log: log)
                else { continue }
                lights.buttons[role] = pin
            }
            for role in ButtonRole.allCases { _ = buttons.value(role.rawValue) }
            buttons.finish()
        }
        lights.debounceMilliseconds = reader.integer(
            "debounceMilliseconds", default: lights.debounceMilliseconds, range: 1...500, unit: "ms")
        if case .present(var patterns) = reader.section("patterns") {
            for key in patterns.members.keys.sorted() {
                guard let pattern = IndicatorPattern(rawValue: key), let value = patterns.value(key) else { continue }
                guard let sequence = readSequence(value, at: patterns.keyPath(key), log: log) else { continue }
                do throws(FeedbackTableError) {
                    try sequence.validate(as: pattern)
                    lights.patterns[pattern] = sequence
                } catch {
                    log.add(patterns.keyPath(key), "\(error)")
                }
            }
            for pattern in IndicatorPattern.allCases { _ = patterns.value(pattern.rawValue) }
            patterns.finish()
        }
        for problem in lights.problems { log.add(reader.path, problem) }
        return lights
    }

    private static func readPin(_ value: JSONValue, at path: String, log: ProblemLog) -> GPIOPin? {
        guard var reader = ObjectReader(path: path, value: value, log: log) else { return nil }
        defer { reader.finish() }
        let problemsBefore = log.problems.count
        guard reader.members["chip"] != nil, reader.members["offset"] != nil else {
            _ = (reader.value("chip"), reader.value("offset"), reader.value("activeLow"), reader.value("bias"))
            log.add(
                path,
                "needs \"chip\" (gpiochip0, /dev/gpiochip0 or label:…) and \"offset\" (the line number on that chip)")
            return nil
        }
        let chip = reader.string("chip", default: "")
        if case .string? = reader.members["chip"],
            !(chip.hasPrefix("gpiochip") && Int(chip.dropFirst("gpiochip".count)) != nil)
                && !(chip.hasPrefix("/dev/gpiochip") && Int(chip.dropFirst("/dev/gpiochip".count)) != nil)
                && !(chip.hasPrefix("label:") && chip.count > "label:".count)
        {
            log.add(
                reader.keyPath("chip"),
                "expected gpiochipN, /dev/gpiochipN or label:<chip label>, got \(JSONValue.quoted(chip))")
        }
        let offset = reader.integer("offset", default: 0, range: 0...1023)
        let activeLow = reader.bool("activeLow", default: false)
        let bias = reader.choice("bias", default: GPIOBias.asIs)
        guard log.problems.count == problemsBefore else { return nil }
        return GPIOPin(chip: chip, offset: UInt32(offset), activeLow: activeLow, bias: bias)
    }

    private static func readSequence(_ value: JSONValue, at path: String, log: ProblemLog) -> FeedbackSequence? {
        guard var reader = ObjectReader(path: path, value: value, log: log) else { return nil }
        defer { reader.finish() }
        let problemsBefore = log.problems.count
        var steps: [FeedbackStep] = []
        switch reader.value("steps") {
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                guard var step = ObjectReader(path: "\(reader.keyPath("steps"))[\(index)]", value: item, log: log)
                else { continue }
                let on = readOutputs(step.value("on") ?? .array([]), at: step.keyPath("on"), log: log)
                let milliseconds = step.integer(
                    "ms", default: 0, range: 0...FeedbackSequence.maximumStepMilliseconds, unit: "ms")
                if step.members["ms"] == nil { log.add(step.keyPath("ms"), "missing: how long the step lasts") }
                steps.append(FeedbackStep(on: on, milliseconds: milliseconds))
                step.finish()
            }
        case nil:
            log.add(reader.keyPath("steps"), "missing: a list of {\"on\": [outputs], \"ms\": duration}")
        case let other?:
            log.add(reader.keyPath("steps"), "expected a list, got \(other.typeName)")
        }
        let repeatCount = reader.integer("repeat", default: 1, range: 1...20, unit: "times")
        let hold = readOutputs(reader.value("hold") ?? .array([]), at: reader.keyPath("hold"), log: log)
        guard log.problems.count == problemsBefore else { return nil }
        return FeedbackSequence(steps: steps, repeatCount: repeatCount, hold: hold)
    }

    private static func readOutputs(_ value: JSONValue, at path: String, log: ProblemLog) -> Set<IndicatorOutput> {
        guard case .array(let items) = value else {
            log.add(path, "expected a list of outputs, got \(value.typeName)")
            return []
        }
        var outputs: Set<IndicatorOutput> = []
        for (index, item) in items.enumerated() {
            if case .string(let name) = item, let output = IndicatorOutput(rawValue: name) {
                outputs.insert(output)
            } else {
                let names = IndicatorOutput.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                log.add(
                    "\(path)[\(index)]",
                    "expected one of \(names), got \(item.typeName == "a string" ? item.rendered() : item.typeName)")
            }
        }
        return outputs
    }

    // MARK: Shared checks

    private static func checkAbsolutePath(_ path: String, at key: String, log: ProblemLog) {
        if !path.hasPrefix("/") || path.contains("\0") {
            log.add(key, "expected an absolute path (starting with /), got \(JSONValue.quoted(path))")
        }
    }

    /// systemd credential names: letters, digits, `.`, `_`, `-`; no path.
    static func isCredentialName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 255 && name != "." && name != ".."
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
    }

    private static func checkCredentialName(_ name: String, at key: String, log: ProblemLog) {
        if !isCredentialName(name) {
            log.add(
                key,
                "expected a credential name (letters, digits, '.', '_', '-'; the file name under $CREDENTIALS_DIRECTORY), got \(JSONValue.quoted(name))"
            )
        }
    }

    /// A PEM public key block, or a credential name that will hold one.
    static func publicKeyProblem(_ value: String) -> String? {
        if value.contains("-----BEGIN") {
            return PEMShape.problem(value)
        }
        if !isCredentialName(value) {
            return
                "expected a PEM public key (-----BEGIN PUBLIC KEY-----…) or a credential name, got \(JSONValue.quoted(value))"
        }
        return nil
    }

    static func urlProblem(_ url: String, requireHTTPS: Bool) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "expected an http(s) URL, got \(JSONValue.quoted(url))" }
        guard scheme == "https" || scheme == "http" else {
            return "expected an http(s) URL, got \(JSONValue.quoted(url))"
        }
        if requireHTTPS, scheme == "http", !(ListenAddress.parse("\(host):1").map(\.isLoopback) == .success(true)) {
            return
                "must use https:// (reports and verification codes must not cross the network in clear), got \(JSONValue.quoted(url))"
        }
        if components.query != nil || components.fragment != nil {
            return "must not have a query or fragment, got \(JSONValue.quoted(url))"
        }
        return nil
    }
}

/// The shape of a PEM public key, checked without a crypto library (OpenSSL parses the key itself when the daemon
/// starts and in `kiosk config check`).
public enum PEMShape {
    /// What is wrong with `text` as a single `PUBLIC KEY` PEM block, or nil.
    public static func problem(_ text: String) -> String? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard lines.first == "-----BEGIN PUBLIC KEY-----", lines.last == "-----END PUBLIC KEY-----", lines.count >= 3
        else {
            return "expected one PEM block from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY-----"
        }
        let body = lines.dropFirst().dropLast().joined()
        guard Data(base64Encoded: body) != nil else { return "the PEM block's body is not base64" }
        return nil
    }
}
