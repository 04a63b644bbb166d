internal import KioskCore
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1

extension HTTPClient {
    /// GET `url` (with `If-None-Match` when `etag` is given), reading at most `limit` bytes of the body: a body
    /// announced or found larger is `.oversized`, any transport failure `.unreachable`. Returns the status, the body
    /// and the response's ETag. Both warnings clients (CKPW/1 and CWA hourly packages) fetch through this.
    func boundedGet(_ url: String, ifNoneMatch etag: String?, limit: Int, timeout: Duration)
        async throws(WarningsSyncError) -> (Int, [UInt8], String?)
    {
        var request = HTTPClientRequest(url: url)
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        do {
            let response = try await execute(request, timeout: .nanoseconds(timeout.wholeNanoseconds))
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
                throw WarningsSyncError.oversized
            }
            let body = try await response.body.collect(upTo: limit)
            return (Int(response.status.code), Array(body.readableBytesView), response.headers.first(name: "ETag"))
        } catch let error as WarningsSyncError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .oversized
        } catch {
            throw .unreachable
        }
    }
}
