internal import KioskCore
internal import KioskHTTP

/// GET `url` (with `If-None-Match` when `etag` is given), reading at most `limit` bytes of the body: a body
/// announced or found larger is `.oversized`, any transport failure `.unreachable`. Returns the status, the body
/// and the response's ETag. Both warnings clients (CKPW/1 and CWA hourly packages) fetch through this.
func boundedGet(_ url: String, ifNoneMatch etag: String?, limit: Int, timeout: Duration)
    async throws(WarningsSyncError) -> (Int, [UInt8], String?)
{
    let request = HTTPRequest(.get, url: url, headers: etag.map { [(name: "If-None-Match", value: $0)] } ?? [])
    do {
        let response = try await HTTP.send(request, limit: limit, timeout: timeout)
        return (response.status, response.body, response.header("ETag"))
    } catch .oversized {
        throw .oversized
    } catch {
        throw .unreachable
    }
}
