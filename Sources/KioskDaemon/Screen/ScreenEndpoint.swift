internal import Foundation
internal import KioskCore
internal import KioskOpenSSL
internal import Logging
internal import Synchronization

/// The local screen's page at `web.listen` (loopback unless `web.allowNonLoopback`):
///
/// - `GET /`: the page (`ScreenPage`), showing what the station shows now;
/// - `GET /screen.json`: the same as JSON (`ScreenModel`: title, lines, items, choices, keypad), nothing else;
/// - `POST /choose/<id>`: takes a choice of the screen through the station loop, exactly like `kiosk simulate
///   choose`; answers the screen after it. `POST /press/confirm|cancel` presses those buttons (older pages).
///
/// Every answer carries `Cache-Control: no-store`, a `Content-Security-Policy` that allows only the page's own
/// inline style and script, and `X-Frame-Options: DENY`. Requests with a foreign `Host` (DNS rebinding) get 421, a
/// cross-origin `POST` 403. Neither requests nor what is shown are logged.
enum ScreenEndpoint {
    /// Binds and starts the page at `web.listen` (before the kiosk says it is ready, so `status` shows its address);
    /// nil when none is configured or it cannot listen (logged: the kiosk runs without it).
    static func open(daemon: KioskDaemon) -> LocalHTTPServer? {
        let server = open(
            settings: daemon.settings, logger: daemon.logger, view: { await daemon.runner.screen() },
            press: { event in _ = await daemon.loop.handle(event) })
        if let server { daemon.webAddress.withLock { $0 = server.authority } }
        return server
    }

    /// The page with what `view` shows; `press` takes the buttons (nil: there is no station to press them yet, and
    /// a press is answered 503). `requestDeadline` is for tests.
    static func open(
        settings: DaemonSettings, logger: Logger, view: @escaping @Sendable () async -> ScreenModel,
        press: (@Sendable (StationEvent) async -> Void)?, requestDeadline: Duration = LocalHTTPServer.requestDeadline
    ) -> LocalHTTPServer? {
        guard let listen = settings.webListen, let address = parse(listen) else { return nil }
        let crypto = OpenSSLCrypto()
        let geometry = settings.station.screen
        let policy = ScreenPage.contentSecurityPolicy(geometry: geometry) { (try? crypto.sha256($0)) ?? [] }
        let boundPort = Mutex(address.port)
        let server: LocalHTTPServer
        do {
            // On every answer, the server's own refusals included.
            let headers: [(name: String, value: String)] = [
                ("Cache-Control", "no-store"), ("Content-Security-Policy", policy), ("X-Frame-Options", "DENY"),
                ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ]
            server = try LocalHTTPServer(
                host: address.host, port: address.port, headers: headers, requestDeadline: requestDeadline,
                trouble: KioskDaemon.socketTrouble(logger)
            ) { request in
                let verdict = ScreenRequestGuard(listenHost: address.host, port: boundPort.withLock { $0 })
                    .check(
                        host: request.header("Host"), origin: request.header("Origin"), isPost: request.method == "POST"
                    )
                switch verdict {
                case .allowed: return await answer(request, geometry: geometry, view: view, press: press)
                case .wrongHost: return .text(421, "This page is served for the kiosk's own screen only.\n")
                case .crossOrigin: return .text(403, "Buttons can be pressed from the kiosk's own page only.\n")
                }
            }
        } catch {
            logger.error("Screen page unavailable", metadata: ["web.listen": "\(listen)", "error": "\(error)"])
            return nil
        }
        boundPort.withLock { $0 = server.port }
        server.start()
        logger.notice("Screen page served", metadata: ["web.port": "\(server.port)"])
        return server
    }

    /// The page's routes, for requests the guard let through.
    static func answer(
        _ request: LocalHTTPRequest, geometry: ScreenGeometry = ScreenGeometry(),
        view: @Sendable () async -> ScreenModel,
        press: (@Sendable (StationEvent) async -> Void)?
    ) async -> LocalHTTPResponse {
        let path = request.path
        let isRead = request.method == "GET" || request.method == "HEAD"
        switch path {
        case "/":
            guard isRead else { return .text(405, "GET only.\n") }
            return LocalHTTPResponse(
                status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array(ScreenPage.html(await view(), geometry: geometry).utf8))
        case "/screen.json":
            guard isRead else { return .text(405, "GET only.\n") }
            return json(await view())
        default:
            let event: StationEvent
            if path.hasPrefix("/choose/") {
                let id = String(path.dropFirst("/choose/".count)).removingPercentEncoding ?? ""
                // Only a choice the screen offers now is taken (an id of a screen gone by does nothing).
                guard await view().offers(id) else { return .text(404, "No such choice on the screen now.\n") }
                event = .chosen(id)
            } else if path.hasPrefix("/press/") {
                guard let button = StationButton(rawValue: String(path.dropFirst("/press/".count))) else {
                    return .text(404, "No such button.\n")
                }
                event = .buttonPressed(button)
            } else {
                return .text(404, "Not found.\n")
            }
            guard request.method == "POST" else { return .text(405, "POST only.\n") }
            guard let press else { return .text(503, "The kiosk is not running yet.\n") }
            await press(event)
            return json(await view())
        }
    }

    /// `host:port` (`[::1]:8080`) as `ListenAddress`; port 0 picks a free port.
    static func parse(_ listen: String) -> ListenAddress? {
        try? ListenAddress.parse(listen, allowingAnyPort: true).get()
    }

    /// Why the settings' page address cannot be used (not an address, or not loopback without permission); nil: fine.
    static func problem(in settings: DaemonSettings) -> String? {
        guard let listen = settings.webListen else { return nil }
        guard let address = parse(listen) else {
            return "web.listen: expected \"host:port\" (127.0.0.1:8080, [::1]:8080), got \"\(listen)\""
        }
        if !address.isLoopback && !settings.webAllowNonLoopback {
            return
                "web.listen: \"\(listen)\" is not a loopback address; set web.allowNonLoopback to true to serve the kiosk's page to the network"
        }
        return nil
    }

    static func json(_ view: ScreenModel) -> LocalHTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(PageScreen(screen: view))).map { Array($0) } ?? Array("{}".utf8)
        return LocalHTTPResponse(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
    }
}

/// The screen as the page gets it: the screen model, and the page's own words in the screen's language (the
/// window's title, the name of the choices' region for screen readers, the cue that more text lies below).
struct PageScreen: Encodable {
    let screen: ScreenModel

    private enum Keys: String, CodingKey {
        case pageTitle, choicesLabel, moreBelow
    }

    func encode(to encoder: any Encoder) throws {
        try screen.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(screen.catalog[.pageTitle], forKey: .pageTitle)
        try container.encode(screen.catalog[.pageChoices], forKey: .choicesLabel)
        try container.encode(screen.catalog[.pageMoreBelow], forKey: .moreBelow)
    }
}
