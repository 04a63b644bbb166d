import Foundation
import KioskCore
import KioskDaemon
import KioskOpenSSL
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The page itself, the request rules and what the screen shows, as pure values.
@Suite struct ScreenPageTests {
    /// Every `<button …>` tag of the page.
    static func buttonTags(_ html: String) -> [String] {
        var tags = [String]()
        var rest = html[...]
        while let start = rest.range(of: "<button") {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { break }
            tags.append(String(rest[start.lowerBound...end]))
            rest = rest[rest.index(after: end)...]
        }
        return tags
    }

    static let consent = ScreenModel(
        kind: "prompt", title: "Share these reports?", lines: ["Do you want to share it?"],
        choices: ConsentFlow.answers().map { .init(id: $0.answer ? "yes" : "no", label: $0.label) }, selected: nil)

    @Test func everyButtonLooksTheSame() {
        let html = ScreenPage.html(Self.consent)
        let tags = Self.buttonTags(html)
        #expect(tags.count == 2)
        for id in ["yes", "no"] {
            #expect(tags.contains { $0.contains("data-choice=\"\(id)\"") }, "no button for \(id)")
        }
        // The same markup apart from which choice it is: same class, no style or id of its own, nothing selected.
        let shapes = Set(
            tags.map { $0.replacingOccurrences(of: #"data-choice="[a-z]+""#, with: "", options: .regularExpression) })
        #expect(shapes == [#"<button type="button" class="btn" >"#], "\(tags)")
        #expect(!tags.contains { $0.contains("style=") || $0.contains("id=") || $0.contains("aria-current") })
        // The style sheet never singles a choice out (only the one the buttons selected is outlined); the only rules
        // that name a choice place a PIN keypad's keys as on a telephone, and set nothing but their place. (A long
        // label, a stay's, takes a whole row by its length, whatever the choice: `.row` sets nothing else.)
        #expect(ScreenPage.style.contains("#choices .row{grid-column:1/-1}"))
        let naming = ScreenPage.style.components(separatedBy: "}").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        .filter { $0.contains("[data-choice") }
        #expect(!naming.isEmpty)
        for rule in naming {
            #expect(rule.hasPrefix("#choices.phone [data-choice=\"key:"), "\(rule)")
            #expect(rule.split(separator: "{").last?.hasPrefix("grid-area:") == true, "\(rule)")
            #expect(rule.split(separator: "{").last?.contains(";") == false, "\(rule)")
        }
        #expect(
            !ScreenPage.style.contains(".btn:first") && !ScreenPage.style.contains(".btn:last")
                && !ScreenPage.style.contains(".btn:nth"))
    }

    /// The page's own words follow the screen's language, and on a keypad the choices that are not keys (delete, OK,
    /// no PIN) are wider so that their words fit (they overflowed narrow key buttons in German, French and Italian).
    @Test func theKeypadsWordsFitAndThePageSpeaksTheScreensLanguage() {
        let italian = Catalog.of(.it)
        let pin = ScreenModel(
            kind: "prompt", title: italian[.sessionPinTitle],
            choices: (0...9).map { ScreenModel.Choice(id: "key:\($0)", label: "\($0)") } + [
                .init(id: "key:delete", label: italian[.sessionKeyDelete]), .init(id: "key:ok", label: "OK"),
            ],
            keypad: .init(purpose: .pin, shown: "", keys: (0...9).map(String.init)), language: "it")
        let html = ScreenPage.html(pin)
        let tags = Self.buttonTags(html)
        // A PIN keypad is a telephone's: delete and OK take the places beside 0, apart from each other.
        #expect(html.contains("class=\"keys phone\""))
        #expect(tags.filter { $0.contains("class=\"btn\"") }.count == 12)
        #expect(ScreenPage.style.contains("[data-choice=\"key:delete\"]{grid-area:4/1}"))
        #expect(ScreenPage.style.contains("[data-choice=\"key:0\"]{grid-area:4/2}"))
        #expect(ScreenPage.style.contains("[data-choice=\"key:ok\"]{grid-area:4/3}"))
        // A verification code's keypad (letters) keeps its wide delete and OK.
        let code = ScreenModel(
            kind: "prompt", title: "Code",
            choices: ["A", "B", "C"].map { ScreenModel.Choice(id: "key:\($0)", label: $0) } + [
                .init(id: "key:delete", label: italian[.sessionKeyDelete]), .init(id: "key:ok", label: "OK"),
            ],
            keypad: .init(purpose: .verificationCode, shown: "", keys: ["A", "B", "C"]), language: "it")
        let codeTags = Self.buttonTags(ScreenPage.html(code))
        #expect(codeTags.filter { $0.contains("class=\"btn wide\"") }.count == 2)
        #expect(codeTags.contains { $0.contains("btn wide") && $0.contains("key:delete") })
        #expect(html.contains("<title>\(italian[.pageTitle])</title>"))
        #expect(html.contains("aria-label=\"\(italian[.pageChoices])\""))
        #expect(ScreenPage.style.contains("overflow-wrap:anywhere"), "a long word wraps inside its button")
    }

    /// Issue 23: text taller than its box is never cut silently: the box has a wide scroll bar, and the page carries
    /// the cue that more lies below in the screen's language (the script shows it while there is).
    @Test func longTextScrollsWithAWideBarAndACueInTheScreensLanguage() {
        let italian = Catalog.of(.it)
        let preview = ScreenModel(
            kind: "prompt", title: italian[.sessionConsentTitle], lines: [italian[.sessionConsentQuestion]],
            items: Array(repeating: italian[.previewRounded], count: 12),
            choices: [.init(id: "yes", label: italian[.consentYes]), .init(id: "no", label: italian[.consentNo])],
            language: "it")
        let html = ScreenPage.html(preview)
        #expect(html.contains("<p id=\"more\" aria-hidden=\"true\">\(italian[.pageMoreBelow])</p>"))
        #expect(ScreenPage.style.contains("#message::-webkit-scrollbar{width:4vw}"))
        #expect(ScreenPage.style.contains("#message.more #more{display:block}"))
        #expect(ScreenPage.script.contains("box.classList.toggle(\"more\""))
    }

    @Test func pageIsSelfContainedAndEscapesTheMessage() {
        let html = ScreenPage.html(
            ScreenModel(kind: "error", title: "<b>Title</b>", lines: ["a & \"b\""], language: "fr"))
        #expect(html.contains("&lt;b&gt;Title&lt;/b&gt;"))
        #expect(html.contains("a &amp; &quot;b&quot;"))
        #expect(!html.contains("<b>Title"))
        #expect(html.contains("class=\"kind-error\""))
        #expect(html.contains("<html lang=\"fr\">"))
        #expect(!html.contains("src=") && !html.contains("href=") && !html.contains("http"))
        #expect(
            html.contains("<script>\(ScreenPage.script)</script>")
                && html.contains("<style>\(ScreenPage.style(for: ScreenGeometry()))</style>"))
    }

    /// The text size comes from the panel and the viewing distance (EN 301 549 5.1.4), not from taste: the default
    /// 7-inch 800×480 panel at 40 cm needs 36 px text; a 10.1-inch 1280×800 panel read at 60 cm needs more.
    @Test func theTextSizeComesFromThePanelAndTheViewingDistance() {
        let seven = ScreenGeometry()
        #expect(ScreenPage.style(for: seven).hasPrefix(":root{--text:36px}"))
        var ten = ScreenGeometry()
        (ten.widthPixels, ten.heightPixels, ten.diagonalMillimetres, ten.viewingDistanceCentimetres) = (
            1280, 800, 257, 60
        )
        // 257 mm over 1509.4 px: 0.170 mm a pixel; 0.7° at 600 mm: 7.33 mm, 43.1 px; over 0.729 em: 59.1 → 60 px.
        #expect(ScreenPage.style(for: ten).hasPrefix(":root{--text:60px}"))
        // Every visitor text's size is at least that (a size written without it would be smaller on a small panel).
        for rule in ["#title{", "#lines p{", "#items{", "#more{", ".btn{", "#hint{", "#entry{"] {
            let body = ScreenPage.style.components(separatedBy: rule).dropFirst().first?.prefix { $0 != "}" } ?? ""
            #expect(body.contains("var(--text)"), "\(rule) sized from the panel: \(body)")
        }
        // Where the panel holds fewer than 16 lines the buttons' hint is spoken only.
        #expect(ScreenPage.style(for: seven).hasSuffix("@media (max-height:749px){#hint{display:none}}"))
    }

    /// A long label (a stay's) takes a whole row, so it wraps between words, not inside them; short ones share rows.
    @Test func aLongLabelTakesAWholeRow() {
        let screen = ScreenModel(
            kind: "prompt", title: "Delete a stay",
            choices: [
                .init(id: "stay:01", label: "Caffè Aurora, Via Roma 12, Bologna: domenica 29 novembre, 10:55–11:45"),
                .init(id: "back", label: "Back"),
            ])
        let tags = Self.buttonTags(ScreenPage.html(screen))
        #expect(tags.count == 2)
        #expect(tags[0].contains("class=\"btn row\""), "\(tags[0])")
        #expect(tags[1].contains("class=\"btn\""), "\(tags[1])")
        #expect(ScreenPage.script.contains("choice.label.length > 32 ? \" row\" : \"\""))
    }

    @Test func theIdleScreensGuidePointsToTheReaderAndTheCamera() {
        var idle = ScreenModel(kind: "idle", title: "Welcome", lines: ["Tap your card on the reader to the left."])
        idle.guide = ScreenModel.Guide(reader: .left, camera: .below)
        let html = ScreenPage.html(idle)
        #expect(
            html.contains(
                "<div id=\"guide\" aria-hidden=\"true\"><span class=\"card\"></span><span class=\"arrow\">\u{2190}</span>"
            ))
        #expect(html.contains("<span class=\"code\"></span><span class=\"arrow\">\u{2193}</span></div>"))
        #expect(!ScreenPage.html(ScreenModel(kind: "info", title: "Checked in")).contains("id=\"guide\""))
    }

    @Test func policyAllowsExactlyThePagesOwnScriptAndStyle() throws {
        let crypto = OpenSSLCrypto()
        let geometry = ScreenGeometry()
        let policy = ScreenPage.contentSecurityPolicy(geometry: geometry) { (try? crypto.sha256($0)) ?? [] }
        let scriptHash = Data(try crypto.sha256(Array(ScreenPage.script.utf8))).base64EncodedString()
        let styleHash = Data(try crypto.sha256(Array(ScreenPage.style(for: geometry).utf8))).base64EncodedString()
        #expect(policy.hasPrefix("default-src 'none';"))
        #expect(policy.contains("script-src 'sha256-\(scriptHash)'"))
        #expect(policy.contains("style-src 'sha256-\(styleHash)'"))
        #expect(policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe"))
    }

    @Test func hostsAndOrigins() {
        let local = ScreenRequestGuard(listenHost: "127.0.0.1", port: 8080)
        #expect(local.check(host: "127.0.0.1:8080", origin: nil, isPost: false) == .allowed)
        #expect(local.check(host: "localhost:8080", origin: "http://localhost:8080", isPost: true) == .allowed)
        #expect(local.check(host: "[::1]:8080", origin: nil, isPost: true) == .allowed)
        #expect(local.check(host: "attacker.example:8080", origin: nil, isPost: false) == .wrongHost)
        #expect(local.check(host: "127.0.0.1:8081", origin: nil, isPost: false) == .wrongHost)
        #expect(local.check(host: "127.0.0.1", origin: nil, isPost: false) == .wrongHost)
        #expect(local.check(host: nil, origin: nil, isPost: false) == .wrongHost)
        #expect(local.check(host: "127.0.0.1:8080", origin: "http://attacker.example", isPost: true) == .crossOrigin)
        #expect(local.check(host: "127.0.0.1:8080", origin: "null", isPost: true) == .crossOrigin)
        #expect(local.check(host: "127.0.0.1:8080", origin: "http://localhost:8080", isPost: true) == .crossOrigin)
        let network = ScreenRequestGuard(listenHost: "192.168.1.20", port: 80)
        #expect(network.check(host: "192.168.1.20", origin: nil, isPost: false) == .allowed)
        #expect(network.check(host: "192.168.1.21", origin: nil, isPost: false) == .wrongHost)
        let any = ScreenRequestGuard(listenHost: "0.0.0.0", port: 8080)
        #expect(any.check(host: "10.0.0.5:8080", origin: nil, isPost: false) == .allowed)
        #expect(any.check(host: "kiosk.attacker.example:8080", origin: nil, isPost: false) == .wrongHost)
    }

    @Test func aMessageStaysThenTheIdleTextFollowsTheStation() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let synchronized = { (seconds: TimeInterval) in
            ClockReading(now: start.addingTimeInterval(seconds), isSynchronized: true)
        }
        var machine = CheckInMachine(configuration: StationConfiguration(), state: .initial, crypto: OpenSSLCrypto())
        #expect(machine.screen(now: synchronized(0)).kind == "idle")
        #expect(machine.screen(now: synchronized(0)).title == StationTexts().notSetUp.title)
        _ = machine.handle(.cardRead(.foreign(.otherContent)), now: synchronized(0))
        #expect(machine.screen(now: synchronized(CheckInMachine.messageHoldTime - 1)).title == "Not a kiosk card")
        #expect(machine.screen(now: synchronized(CheckInMachine.messageHoldTime)).kind == "idle")
        let unsynchronized = ClockReading(now: start.addingTimeInterval(3600), isSynchronized: false)
        #expect(machine.screen(now: unsynchronized).title == StationTexts().clockNotSet.title)
        // The idle screen offers the holder's own session.
        #expect(machine.screen(now: synchronized(60)).choices.map(\.id) == ["session", "language"])
    }
}

/// The page served by a real simulated kiosk, over loopback HTTP.
@Suite(.serialized) struct ScreenServiceTests {
    struct NoPage: Error {}

    /// The page's port, from `kiosk status`.
    static func port(of kiosk: SimulatedKiosk) async throws -> Int {
        let status = try await kiosk.status()
        guard let address = status.webAddress, let colon = address.lastIndex(of: ":"),
            let port = Int(address[address.index(after: colon)...])
        else { throw NoPage() }
        return port
    }

    static func screen(_ answer: LoopbackHTTP.Answer) throws -> ScreenModel {
        try JSONDecoder().decode(ScreenModel.self, from: Data(answer.body.utf8))
    }

    static func screen(port: Int) async throws -> ScreenModel {
        try screen(try await LoopbackHTTP.get(port: port, "/screen.json"))
    }

    @Test func servesThePageAndWhatTheStationShows() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let port = try await Self.port(of: kiosk)
        let status = try await kiosk.status()
        #expect(status.humanLines.contains("Screen: http://127.0.0.1:\(port)/"))

        let page = try await LoopbackHTTP.get(port: port, "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.headers["cache-control"] == "no-store")
        #expect(page.headers["x-frame-options"] == "DENY")
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'none'; script-src 'sha256-") == true)
        #expect(ScreenPageTests.buttonTags(page.body).count == 2)
        #expect(page.body.contains(ScreenPage.script))

        // Not set up yet: the idle text says so.
        let idle = try await Self.screen(port: port)
        #expect(idle.kind == "idle" && idle.title == "Kiosk not set up")
        #expect(idle.choices.map(\.id) == ["session", "language"])
        let json = try await LoopbackHTTP.get(port: port, "/screen.json")
        #expect(json.headers["cache-control"] == "no-store")
        let keys = try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any]
        #expect(
            Set((keys ?? [:]).keys).isSubset(of: [
                "kind", "title", "lines", "items", "choices", "selected", "keypad", "isPrivate", "language",
                "buttonHint", "pageTitle", "choicesLabel", "moreBelow",
            ]))
        // The page's own words (window title, the choices' region) come in the screen's language.
        #expect(keys?["pageTitle"] as? String == "Check-in kiosk" && keys?["choicesLabel"] as? String == "Choices")
        #expect(keys?["moreBelow"] as? String == Catalog.english[.pageMoreBelow])
        #expect(page.body.contains("<title>Check-in kiosk</title>") && page.body.contains("aria-label=\"Choices\""))

        // A bank card on the reader: the station's message is on the page.
        let tap = try await kiosk.send(ControlRequest(command: "tap-foreign"))
        #expect(tap.titles == ["Not a kiosk card"], "\(tap.lines)")
        let shown = try await Self.screen(port: port)
        #expect(shown.title == "Not a kiosk card" && shown.kind == "error")
        #expect(shown.lines == [tap.steps.first { $0.type == "shown" }?.body ?? ""])
        let html = try await LoopbackHTTP.get(port: port, "/")
        #expect(html.body.contains("Not a kiosk card"))

        // A minute later on the station's clock the idle text is back.
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        let after = try await Self.screen(port: port)
        #expect(after.kind == "idle", "\(after)")
        #expect(!kiosk.output.contains("Not a kiosk card"))
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
    }

    @Test func aPressReachesTheStation() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let port = try await Self.port(of: kiosk)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        let asked = try await kiosk.send(ControlRequest(command: "staff-command", text: "wipe"))
        #expect(asked.titles == ["Wipe the kiosk?"], "\(asked.lines)")
        #expect(try await Self.screen(port: port).title == "Wipe the kiosk?")

        let unknown = try await LoopbackHTTP.request(
            port: port, method: "POST", path: "/press/sideways",
            host: "127.0.0.1:\(port)")
        #expect(unknown.status == 404)
        #expect(try await Self.screen(port: port).title == "Wipe the kiosk?")

        let press = try await LoopbackHTTP.request(
            port: port, method: "POST", path: "/press/cancel",
            host: "127.0.0.1:\(port)",
            headers: ["Origin": "http://127.0.0.1:\(port)"])
        #expect(press.status == 200)
        #expect(press.headers["cache-control"] == "no-store")
        #expect(try Self.screen(press).title == "Not wiped")
        #expect(try await Self.screen(port: port).title == "Not wiped")
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
    }

    @Test func refusesForeignHostsAndCrossOriginPresses() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kiosk = try await SimulatedKiosk(stateDirectory: directory)
        let port = try await Self.port(of: kiosk)
        _ = try await kiosk.send(ControlRequest(command: "staff"))
        _ = try await kiosk.send(ControlRequest(command: "staff-command", text: "wipe"))

        // DNS rebinding: a name that resolves to 127.0.0.1 but is not the kiosk.
        for path in ["/", "/screen.json"] {
            let answer = try await LoopbackHTTP.request(port: port, path: path, host: "rebind.attacker.example:\(port)")
            #expect(answer.status == 421, "\(path)")
            #expect(!answer.body.contains("Wipe"))
        }
        let noHost = try await LoopbackHTTP.request(port: port, path: "/screen.json", host: nil)
        #expect(noHost.status == 421 || noHost.status == 400)
        let foreignPress = try await LoopbackHTTP.request(
            port: port, method: "POST", path: "/press/confirm",
            host: "rebind.attacker.example:\(port)")
        #expect(foreignPress.status == 421)

        // Another origin cannot press: the question stays, nothing is wiped.
        let crossOrigin = try await LoopbackHTTP.request(
            port: port, method: "POST", path: "/press/confirm",
            host: "127.0.0.1:\(port)",
            headers: ["Origin": "http://attacker.example"])
        #expect(crossOrigin.status == 403)
        #expect(crossOrigin.headers["cache-control"] == "no-store")
        #expect(try await Self.screen(port: port).title == "Wipe the kiosk?")

        // The same press from the page's own origin goes through.
        let sameOrigin = try await LoopbackHTTP.request(
            port: port, method: "POST", path: "/press/confirm",
            host: "localhost:\(port)",
            headers: ["Origin": "http://localhost:\(port)"])
        #expect(sameOrigin.status == 200)
        #expect(try await Self.screen(port: port).title != "Wipe the kiosk?")
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
    }

    @Test func webListenNullServesNoPage() async throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/kiosk.json"
        try #"{"web": {"listen": null}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let kiosk = try await SimulatedKiosk(stateDirectory: directory, extraArguments: ["--config", config])
        let status = try await kiosk.status()
        #expect(status.ready)
        #expect(status.webAddress == nil)
        #expect(!status.humanLines.contains { $0.hasPrefix("Screen:") })
        #expect(kiosk.stop() == 0, "\(kiosk.output)")
        #expect(!kiosk.output.contains("Screen page served"))
    }

    /// Runs `kiosk run --simulate` expecting it to refuse to start; returns its exit status and output.
    static func refusedStart(_ arguments: [String], directory: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SimulatedKiosk.executable())
        process.arguments = ["run", "--simulate", "--state-dir", directory] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Not an assertion: a kiosk that started after all is stopped so that the test can report it.
        let running = RunningProcess(process: process)
        let stopper = DispatchWorkItem { if running.process.isRunning { running.process.interrupt() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: stopper)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        stopper.cancel()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    final class RunningProcess: @unchecked Sendable {
        let process: Process
        init(process: Process) { self.process = process }
    }

    @Test func aNonLoopbackAddressIsRefusedWithoutPermission() throws {
        let directory = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/kiosk.json"
        try #"{"web": {"listen": "0.0.0.0:18080"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let (fromFile, fileOutput) = try Self.refusedStart(["--config", config], directory: directory + "/a")
        #expect(fromFile == 2, "\(fileOutput)")
        #expect(
            fileOutput.contains("web.listen") && fileOutput.contains("set web.allowNonLoopback to true"),
            "\(fileOutput)")

        let (fromOption, optionOutput) = try Self.refusedStart(["--web", "0.0.0.0:0"], directory: directory + "/b")
        #expect(fromOption == 2, "\(optionOutput)")
        #expect(
            optionOutput.contains("web.listen") && optionOutput.contains("set web.allowNonLoopback to true"),
            "\(optionOutput)")
    }
}
