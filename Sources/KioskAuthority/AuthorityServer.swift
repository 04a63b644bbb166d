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
/// No middleware logs requests, and no handler reads the peer's address: the server keeps no trace of who uploaded.
public enum AuthorityServer {
    /// The largest upload accepted: a batch of 4096 records.
    public static let maximumUploadSize = 8 + 4096 * CKPR.recordLength

    public static func makeApplication(
        publisher: WarningPublisher, host: String = "127.0.0.1", port: Int = 8080, logger: Logger,
        now: @escaping @Sendable () -> Int64, cwaPublisher: CWAHourlyPublisher? = nil,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
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
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: maximumUploadSize)
            } catch {
                return Response(status: .contentTooLarge)
            }
            let bytes = Array(body.readableBytesView)
            let batch: ReportBatch
            if let parsed = try? ReportBatch(bytes: bytes) {
                batch = parsed
            } else if let parsed = try? ReportBatch(text: String(decoding: bytes, as: UTF8.self)) {
                batch = parsed
            } else {
                return Response(status: .badRequest)
            }
            do {
                try await publisher.acceptUpload(batch, code: code, now: now())
                context.logger.notice("Upload accepted", metadata: ["upload.outcome": "accepted"])
                return Response(status: .created)
            } catch let error as AcceptError where error == .wrongCode || error == .expiredCode {
                context.logger.notice("Upload refused", metadata: ["upload.outcome": "bad-code"])
                return Response(status: .forbidden)
            } catch {
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
