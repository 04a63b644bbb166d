internal import Foundation
internal import Hummingbird
internal import KioskCore
internal import KioskOpenSSL
internal import Logging
internal import NIOCore
internal import ServiceLifecycle
internal import Synchronization

/// The local screen's page at `web.listen` (loopback unless `web.allowNonLoopback`):
///
/// - `GET /`: the page (`ScreenPage`), showing what the station shows now;
/// - `GET /screen.json`: the same as JSON (`ScreenView`: title, body, kind, buttons), nothing else;
/// - `POST /press/<button>`: presses a `StationButton` through the station loop, exactly like `kiosk simulate press`;
///   answers the screen after the press.
///
/// Every answer carries `Cache-Control: no-store`, a `Content-Security-Policy` that allows only the page's own
/// inline style and script, and `X-Frame-Options: DENY`. Requests with a foreign `Host` (DNS rebinding) get 421, a
/// cross-origin `POST` 403. Neither requests nor what is shown are logged.
struct WebService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let listen = daemon.settings.webListen, let address = Self.parse(listen) else {
            return await waitForShutdown()
        }
        let daemon = self.daemon
        let boundPort = BoundPort(address.port)
        let crypto = OpenSSLCrypto()
        let policy = ScreenPage.contentSecurityPolicy { (try? crypto.sha256($0)) ?? [] }
        let router = Router()
        router.add(middleware: ScreenGuardMiddleware<BasicRequestContext>(listenHost: address.host, port: { boundPort.value },
                                                     contentSecurityPolicy: policy))
        router.get("/") { _, _ -> Response in
            Self.response(.ok, type: "text/html; charset=utf-8", body: ScreenPage.html(await daemon.screenView()))
        }
        router.get("/screen.json") { _, _ -> Response in
            Self.json(await daemon.screenView())
        }
        router.post("/press/:button") { _, context -> Response in
            guard let name = context.parameters.get("button"), let button = StationButton(rawValue: name) else {
                return Self.response(.notFound, type: "text/plain; charset=utf-8", body: "No such button.\n")
            }
            _ = await daemon.loop.handle(.buttonPressed(button))
            return Self.json(await daemon.screenView())
        }
        var logger = daemon.logger
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname(address.host, port: address.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? address.port
                boundPort.value = port
                let host = address.host.contains(":") ? "[\(address.host)]" : address.host
                daemon.webAddress.withLock { $0 = "\(host):\(port)" }
                daemon.logger.notice("Screen page served", metadata: ["web.port": "\(port)"])
            },
            logger: logger)
        do {
            try await app.run()
        } catch {
            daemon.logger.error("Screen page unavailable", metadata: ["web.listen": "\(listen)", "error": "\(error)"])
            await waitForShutdown()
        }
    }

    /// `host:port` (`[::1]:8080`) as `ListenAddress`; port 0 picks a free port.
    static func parse(_ listen: String) -> ListenAddress? {
        guard let colon = listen.lastIndex(of: ":") else { return nil }
        let isZero = listen[listen.index(after: colon)...] == "0"
        guard case .success(var address) = ListenAddress.parse(isZero ? String(listen[..<colon]) + ":1" : listen) else { return nil }
        if isZero { address.port = 0 }
        return address
    }

    /// Why the settings' page address cannot be used (not an address, or not loopback without permission); nil: fine.
    static func problem(in settings: DaemonSettings) -> String? {
        guard let listen = settings.webListen else { return nil }
        guard let address = parse(listen) else {
            return "web.listen: expected \"host:port\" (127.0.0.1:8080, [::1]:8080), got \"\(listen)\""
        }
        if !address.isLoopback && !settings.webAllowNonLoopback {
            return "web.listen: \"\(listen)\" is not a loopback address; set web.allowNonLoopback to true to serve the kiosk's page to the network"
        }
        return nil
    }

    static func response(_ status: HTTPResponse.Status, type: String, body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ view: ScreenView) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = (try? encoder.encode(view)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return response(.ok, type: "application/json; charset=utf-8", body: text)
    }
}

/// The port the page is bound to (known once the server runs; port 0 picks one).
final class BoundPort: Sendable {
    private let port: Mutex<Int>

    init(_ port: Int) { self.port = Mutex(port) }

    var value: Int {
        get { port.withLock { $0 } }
        set { port.withLock { $0 = newValue } }
    }
}

/// Refuses foreign hosts and cross-origin posts, and adds the page's security headers to every answer.
struct ScreenGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let listenHost: String
    let port: @Sendable () -> Int
    let contentSecurityPolicy: String

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let verdict = ScreenRequestGuard(listenHost: listenHost, port: port())
            .check(host: request.head.authority, origin: request.headers[.origin], isPost: request.method == .post)
        var response: Response
        switch verdict {
        case .allowed:
            response = try await next(request, context)
        case .wrongHost:
            response = WebService.response(.misdirectedRequest, type: "text/plain; charset=utf-8",
                                           body: "This page is served for the kiosk's own screen only.\n")
        case .crossOrigin:
            response = WebService.response(.forbidden, type: "text/plain; charset=utf-8",
                                           body: "Buttons can be pressed from the kiosk's own page only.\n")
        }
        response.headers[.cacheControl] = "no-store"
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }
}

extension KioskDaemon {
    /// What the local screen shows now.
    func screenView() async -> ScreenView {
        let mode = await runner.mode
        let venueBound = await runner.state.venue != nil
        var staffMode = false
        if case .staff = mode { staffMode = true }
        return screen.current.view(now: clock.read(), staffMode: staffMode, venueBound: venueBound,
                                   configuration: settings.station)
    }
}
