import Foundation
public import Hummingbird
import KioskCore
import KioskExchange
public import Logging
import NIOCore

/// The authority's HTTP side: `POST /v1/reports` takes uploads with a verification code, and `GET /warnings/…`
/// serves the published packages and index (ETag and If-None-Match included) for kiosks and tests; in production
/// any static web server or CDN can serve the publish directory instead.
///
/// No middleware logs requests. The client's address (the peer's, or behind a trusted reverse proxy the one the
/// proxy names) is read only to bound how fast codes can be guessed (`CodeGuessLimiter`: held in memory for a minute,
/// never logged or written): the server keeps no trace of who uploaded. A valid, unused code is never refused by
/// that bound.
public enum AuthorityServer {
    /// The largest upload accepted: a batch of 4096 records, as many CWA reports and as many CrowdNotifier entries
    /// (about 130 bytes each) beside it.
    public static let maximumUploadSize = 2 * (8 + 4096 * CKPR.recordLength) + 4096 * 140

    public static func makeApplication(
        publisher: WarningPublisher, host: String = "127.0.0.1", port: Int = 8080, logger: Logger,
        now: @escaping @Sendable () -> Int64, cwaPublisher: CWAHourlyPublisher? = nil,
        limiter: CodeGuessLimiter = CodeGuessLimiter(), trustedProxies: Set<String> = [],
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: AuthorityRequestContext.self)
        router.add(
            middleware: FileMiddleware(publisher.publishDirectory, urlBasePath: "/warnings", searchForIndexHtml: false))
        if let cwaPublisher {
            let root = cwaPublisher.publishDirectory
            addCWARoutes(to: router) { region in root + "/twp/country/" + region + "/hour" }
        }
        router.post("/v1/reports") { request, context -> Response in
            guard let code = request.headers[.init(ReportUploader.codeHeader)!] else {
                return Response(status: .forbidden)
            }
            let client = CodeGuessLimiter.client(
                peer: context.peer, realIP: request.headers[.init("X-Real-IP")!],
                forwardedFor: request.headers[.init("X-Forwarded-For")!], trustedProxies: trustedProxies)
            let admitted = await limiter.admit(client: client, now: now())
            if let summary = admitted.summary { context.logger.notice("\(summary)") }
            guard admitted.allowed else {
                return Response(status: .tooManyRequests, headers: [.retryAfter: "\(CodeGuessLimiter.window)"])
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: maximumUploadSize)
            } catch {
                await limiter.valid(client: client, now: now())
                return Response(status: .contentTooLarge)
            }
            // A submission carries the batch, the same reports in CWA's format and the CrowdNotifier entries; all are
            // checked before the code is spent; the CWA part goes to the hourly packages (kept only where this server
            // publishes them), the entries become CrowdNotifier problematic events.
            guard
                let upload = ReceivedUpload(
                    body: Array(body.readableBytesView), contentType: request.headers[.contentType])
            else {
                await limiter.valid(client: client, now: now())
                return Response(status: .badRequest)
            }
            var matched = false
            do {
                try await publisher.acceptUpload(upload.batch, code: code, now: now())
                matched = true
                await limiter.valid(client: client, now: now())
                if let cwaReports = upload.cwaReports, let cwaPublisher {
                    try await cwaPublisher.acceptProtectedReports(cwaReports)
                }
                // SwissCovid's server-based entries become problematic events, published with the next package.
                if let entries = upload.crowdNotifierEntries {
                    try await publisher.addCrowdNotifierUpload(entries, now: now())
                }
                context.logger.notice("Upload accepted", metadata: ["upload.outcome": "accepted"])
                return Response(status: .created)
            } catch let error as AcceptError where error == .wrongCode || error == .expiredCode {
                // Stays counted, not logged one by one: the limiter says how many in a line per minute.
                return Response(status: .forbidden)
            } catch {
                if !matched { await limiter.valid(client: client, now: now()) }
                context.logger.error("Upload failed", metadata: ["upload.outcome": "storage"])
                return Response(status: .internalServerError)
            }
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

/// The authority server's request context: Hummingbird's, and the peer's IP address for `CodeGuessLimiter` alone.
public struct AuthorityRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address (nil for other kinds of socket).
    let peer: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        switch source.channel.remoteAddress {
        case .v4(let address): peer = address.host
        case .v6(let address): peer = address.host
        default: peer = nil
        }
    }
}
