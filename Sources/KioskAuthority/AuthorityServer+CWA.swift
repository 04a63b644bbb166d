import Foundation
import Hummingbird
import KioskOpenSSL

extension AuthorityServer {
    /// Serves a `CWAHourlyPublisher`'s files as CWA's CDN does: `GET /cwa/twp/country/<region>/hour` is the hour
    /// index and `GET /cwa/twp/country/<region>/hour/<hour>` that hour's zip (the publisher's `…/hour/index` and
    /// `…/hour/<hour>/index` files), each with a content ETag that `If-None-Match` is checked against.
    static func addCWARoutes<Context: RequestContext>(
        to router: Router<Context>, hourDirectory: @escaping @Sendable (String) -> String
    ) {
        router.get("/cwa/twp/country/:region/hour") { request, context -> Response in
            guard let region = validRegion(context.parameters.get("region")) else { return Response(status: .notFound) }
            return servedFile(hourDirectory(region) + "/index", request: request)
        }
        router.get("/cwa/twp/country/:region/hour/:hour") { request, context -> Response in
            guard let region = validRegion(context.parameters.get("region")),
                let hour = context.parameters.get("hour", as: UInt32.self)
            else {
                return Response(status: .notFound)
            }
            return servedFile(hourDirectory(region) + "/\(hour)/index", request: request)
        }
    }

    private static func validRegion(_ text: String?) -> String? {
        guard let text, text.count == 2, text.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
        return text
    }

    /// The file at `path` with an ETag of its SHA-256; 304 if the request already has it, 404 if there is none.
    private static func servedFile(_ path: String, request: Request) -> Response {
        guard let data = FileManager.default.contents(atPath: path),
            let digest = try? OpenSSLCrypto().sha256([UInt8](data))
        else {
            return Response(status: .notFound)
        }
        let etag = "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        if request.headers[values: .ifNoneMatch].contains(etag) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return Response(
            status: .ok, headers: [.eTag: etag, .contentType: "application/octet-stream"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: [UInt8](data))))
    }
}
