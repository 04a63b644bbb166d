import KioskCore

/// Input: the configuration file's text, then after a NUL byte `KIOSK_…=value` lines for the environment. A JSON
/// document renders as text that reads back to the same text; a parsed configuration renders (unredacted) as a file
/// that parses to the same configuration; a refused one names at least one problem, each with a message.
func checkConfiguration(_ bytes: [UInt8]) {
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let text = String(decoding: parts[0], as: UTF8.self)
    var environment = [String: String]()
    if parts.count > 1 {
        for line in parts[1].split(separator: 0x0A) {
            let pair = line.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            environment[String(decoding: pair[0], as: UTF8.self)] = String(decoding: pair[1], as: UTF8.self)
        }
    }
    if let document = try? JSONValue.parse(text) {
        // Rendering writes a whole number as an integer (`1.0` as `1`): the text it writes is stable, not the case.
        let rendered = document.rendered()
        require((try? JSONValue.parse(rendered))?.rendered() == rendered, "a rendered JSON document does not read back")
    }
    let configuration: KioskConfiguration
    do {
        configuration = try KioskConfiguration.parse(json: text, environment: environment)
    } catch {
        require(!error.problems.isEmpty, "a refused configuration names no problem")
        require(error.problems.allSatisfy { !$0.message.isEmpty }, "a problem without a message")
        return
    }
    let rendered = configuration.renderedJSON(redacting: false)
    require((try? KioskConfiguration.parse(json: rendered)) == configuration, "a configuration does not read back")
}
