import ArgumentParser
import Hummingbird
import KioskAuthority
import Logging

/// `kiosk-authority serve --dir DIR [--port N] [--bind 127.0.0.1]`: the upload endpoint and the published warnings.
struct AuthorityServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve POST /v1/reports (uploads with a verification code) and GET /warnings/… (published packages).",
        discussion: """
            No request is logged and no peer address is read. Port 0 picks a free port; the address served is \
            printed once the server listens. Stop it with Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "The authority's directory.")
    var dir: String

    @Option(help: "The TCP port (0: any free port).")
    var port = 8080

    @Option(help: "The address to listen on.")
    var bind = "127.0.0.1"

    func validate() throws {
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
            cwaPublisher: cwaPublisher,
            onServerRunning: { port in
                AuthorityText.out(
                    "Serving on http://\(host.contains(":") ? "[\(host)]" : host):\(port)/ (uploads: /v1/reports, warnings: /warnings/index.json, CWA hourly packages: /cwa/twp/country/DE/hour)"
                )
            })
        try await app.runService()
    }
}
