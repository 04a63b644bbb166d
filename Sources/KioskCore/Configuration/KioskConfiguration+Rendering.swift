extension KioskConfiguration {
    /// Stands in for a venue code in shown configuration: the code identifies the venue.
    public static let redacted = "<set, not shown>"

    /// The configuration as a JSON document in the file's own form (every key, defaults included), which
    /// `parse(document:)` reads back to the same value. With `redacting`, a venue code is replaced by `redacted`.
    public func jsonValue(redacting: Bool = true) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func int(_ value: Int) -> JSONValue { .integer(Int64(value)) }
        var top: [String: JSONValue] = [
            "stateDirectory": .string(stateDirectory),
            "logLevel": .string(logLevel.rawValue),
            "nfc": nfc.map {
                .object([
                    "connection": .string($0.connection),
                    "pollTimeoutMilliseconds": int($0.pollTimeoutMilliseconds),
                    "removalCheckMilliseconds": int($0.removalCheckMilliseconds),
                ])
            } ?? .null,
            "camera": camera.map {
                .object([
                    "device": .string($0.device), "width": int($0.width), "height": int($0.height),
                    "framesUntilGone": int($0.framesUntilGone),
                ])
            } ?? .null,
            "lightsAndButtons": Self.json(lightsAndButtons),
            "receiptPrinter": receiptPrinter.map {
                .object([
                    "path": .string($0.path), "paper": .string($0.paper.rawValue),
                    "codePage": .string($0.codePage.rawValue), "bidirectional": .bool($0.bidirectional),
                    "baudRate": int($0.baudRate), "writeTimeoutMilliseconds": int($0.writeTimeoutMilliseconds),
                ])
            } ?? .null,
            "checkIns": .object([
                "dailyLimit": int(checkIns.dailyLimit), "debounceSeconds": int(checkIns.debounceSeconds),
                "defaultStayMinutes": int(checkIns.defaultStayMinutes), "retentionDays": int(checkIns.retentionDays),
                "sessionInactivitySeconds": int(checkIns.sessionInactivitySeconds),
            ]),
            "staff": .object([
                "modeTimeoutSeconds": int(staff.modeTimeoutSeconds), "codeCredential": text(staff.codeCredential),
            ]),
            "venue": .object([
                "code": text(venue.code.map { redacting ? Self.redacted : $0 }), "timeZone": text(venue.timeZone),
            ]),
            "reports": .object([
                "exportDirectory": text(reports.exportDirectory),
                "uploadURL": text(reports.uploadURL.map { redacting ? Self.maskingUserInfo($0) : $0 }),
                "uploadTimeoutSeconds": int(reports.uploadTimeoutSeconds),
                "uploadTokenCredential": text(reports.uploadTokenCredential),
            ]),
            "warnings": .object([
                "baseURL": text(warnings.baseURL), "cwaBaseURL": text(warnings.cwaBaseURL),
                "syncIntervalMinutes": int(warnings.syncIntervalMinutes), "publicKey": .string(warnings.publicKey),
                "maxPackageBytes": int(warnings.maxPackageBytes), "maxInflatedBytes": int(warnings.maxInflatedBytes),
                "cwaPublicKey": .string(warnings.cwaPublicKey), "message": .string(warnings.message),
                "keepRegion": .bool(warnings.keepRegion),
            ]),
            "language": .object(["default": .string(language.defaultLanguage.rawValue)]),
            "clock": .object(["source": .string(clock.source.rawValue)]),
            "metrics": .object(["listen": text(metrics.listen), "allowNonLoopback": .bool(metrics.allowNonLoopback)]),
            "web": .object(["listen": text(web.listen), "allowNonLoopback": .bool(web.allowNonLoopback)]),
            "screen": .object([
                "widthPixels": int(screen.widthPixels), "heightPixels": int(screen.heightPixels),
                "diagonalMillimetres": int(screen.diagonalMillimetres),
                "viewingDistanceCentimetres": int(screen.viewingDistanceCentimetres),
                "readerSide": .string(screen.readerSide.rawValue), "cameraSide": .string(screen.cameraSide.rawValue),
            ]),
            "speech": .object([
                "device": .string(speech.device), "volume": int(speech.volume), "rate": int(speech.rate),
            ]),
        ]
        top["region"] =
            region.map {
                .object([
                    "name": .string($0.name), "module": .string($0.module), "token": .string($0.token),
                    "pinCredential": .string($0.pinCredential),
                ])
            } ?? .null
        if receiptPrinter == nil { top["receiptPrinter"] = .null }
        return .object(top)
    }

    private static func json(_ lights: LightsAndButtonsConfiguration) -> JSONValue {
        func pin(_ pin: GPIOPin) -> JSONValue {
            var members: [String: JSONValue] = ["chip": .string(pin.chip), "offset": .integer(Int64(pin.offset))]
            if pin.activeLow { members["activeLow"] = .bool(true) }
            if pin.bias != .asIs { members["bias"] = .string(pin.bias.rawValue) }
            return .object(members)
        }
        func outputs(_ set: Set<IndicatorOutput>) -> JSONValue { .array(set.sorted().map { .string($0.rawValue) }) }
        var patterns: [String: JSONValue] = [:]
        for (pattern, sequence) in lights.patterns {
            var members: [String: JSONValue] = [
                "steps": .array(
                    sequence.steps.map { .object(["on": outputs($0.on), "ms": .integer(Int64($0.milliseconds))]) })
            ]
            if sequence.repeatCount != 1 { members["repeat"] = .integer(Int64(sequence.repeatCount)) }
            if !sequence.hold.isEmpty { members["hold"] = outputs(sequence.hold) }
            patterns[pattern.rawValue] = .object(members)
        }
        return .object([
            "outputs": .object(
                Dictionary(uniqueKeysWithValues: lights.outputs.map { ($0.key.rawValue, pin($0.value)) })),
            "buttons": .object(
                Dictionary(uniqueKeysWithValues: lights.buttons.map { ($0.key.rawValue, pin($0.value)) })),
            "debounceMilliseconds": .integer(Int64(lights.debounceMilliseconds)),
            "patterns": .object(patterns),
        ])
    }

    /// Key order for printing: the documented order of sections and keys.
    public static let keyOrder: [String] =
        ["stateDirectory", "logLevel"] + sections + [
            "connection", "pollTimeoutMilliseconds", "removalCheckMilliseconds",
            "device", "width", "height", "framesUntilGone",
            "outputs", "buttons", "debounceMilliseconds", "patterns",
            "green", "red", "amber", "buzzer", "confirm", "cancel", "chip", "offset", "activeLow", "bias",
            "accepted", "checkedOut", "refused", "warningPending", "error", "clockNotSet", "timeRunningOut", "steps",
            "on", "ms",
            "repeat", "hold",
            "path", "paper", "codePage", "bidirectional", "baudRate", "writeTimeoutMilliseconds",
            "dailyLimit", "debounceSeconds", "defaultStayMinutes", "retentionDays", "sessionInactivitySeconds",
            "modeTimeoutSeconds", "codeCredential", "code",
            "exportDirectory", "uploadURL", "uploadTimeoutSeconds", "uploadTokenCredential",
            "baseURL", "cwaBaseURL", "syncIntervalMinutes", "maxPackageBytes", "maxInflatedBytes", "publicKey",
            "cwaPublicKey", "message", "keepRegion", "default",
            "source", "listen", "allowNonLoopback",
            "widthPixels", "heightPixels", "diagonalMillimetres", "viewingDistanceCentimetres", "readerSide",
            "cameraSide",
            "volume", "rate",
        ]

    /// `url` with the user name and password of an `scheme://user:password@host/…` URL replaced by `redacted`; other
    /// URLs unchanged. A password belongs in a credential, but one written into the URL is still never shown.
    public static func maskingUserInfo(_ url: String) -> String {
        let characters = Array(url)
        var index = 0
        while index + 2 < characters.count, characters[index...index + 2] != [":", "/", "/"] { index += 1 }
        guard index + 2 < characters.count else { return url }
        let start = index + 3
        let end = characters[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? characters.count
        guard let at = characters[start..<end].lastIndex(of: "@") else { return url }
        return String(characters[..<start]) + redacted + String(characters[at...])
    }

    /// `jsonValue(redacting:)` as pretty-printed text in the documented key order.
    public func renderedJSON(redacting: Bool = true) -> String {
        jsonValue(redacting: redacting).rendered(order: Self.keyOrder) + "\n"
    }
}
