import ArgumentParser
import Hummingbird
import KioskAuthority
import Logging

/// `kiosk-authority serve --dir DIR [--port N] [--bind 127.0.0.1] [--trusted-proxy ADDRESS …]`: the upload endpoint
/// and the published warnings.
struct AuthorityServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve POST /v1/reports (uploads with a verification code) and GET /warnings/… (published packages).",
        discussion: """
            No request is logged. A client's address is held in memory for a minute to bound how fast verification \
            codes can be guessed, never logged or written; behind a reverse proxy, name it with --trusted-proxy so \
            that its X-Real-IP (or X-Forwarded-For) header is taken as the client's address. Port 0 picks a free \
            port; the address served is printed once the server listens. Stop it with Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Option(help: "The TCP port (0: any free port).")
    var port = 8080

    @Option(help: "The address to listen on.")
    var bind = "127.0.0.1"

    @Option(
        name: .customLong("trusted-proxy"),
        help: "The address of a reverse proxy in front (e.g. 127.0.0.1 for nginx on this machine), repeatable.")
    var trustedProxies: [String] = []

    func validate() throws {
        for proxy in trustedProxies
        where proxy.isEmpty || proxy.contains(where: { !($0.isHexDigit || $0 == "." || $0 == ":") }) {
            throw ValidationError("--trusted-proxy takes an IP address, e.g. 127.0.0.1.")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port is between 0 and 65535.") }
        guard !bind.isEmpty else { throw ValidationError("--bind needs an address, e.g. 127.0.0.1.") }
    }

    func run() async throws {
        let publisher: WarningPublisher
        let cwaPublisher: CWAHourlyPublisher
        do {
            let (directory, key) = try AuthorityDirectory.open(dir)
            publisher = try directory.publisher(key: key)
            cwaPublisher = try directory.cwaPublisher(key: key)
        } catch {
            throw AuthorityText.fail(error.description)
        }
        var logger = Logger(label: "kiosk.authority")
        logger.logLevel = .notice
        let host = bind
        let app = AuthorityServer.makeApplication(
            publisher: publisher, host: bind, port: port, logger: logger, now: { AuthorityText.now() },
            cwaPublisher: cwaPublisher, trustedProxies: Set(trustedProxies),
            onServerRunning: { port in
                AuthorityText.out(
                    "Serving on http://\(host.contains(":") ? "[\(host)]" : host):\(port)/ (uploads: /v1/reports, warnings: /warnings/index.json, CWA hourly packages: /cwa/twp/country/DE/hour)"
                )
            })
        try await app.runService()
    }
}
