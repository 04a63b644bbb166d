internal import CKioskCurl
internal import Foundation
internal import KioskPOSIX
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// One HTTP request the kiosk sends: a GET of the warnings feeds or the POST of a report upload.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    public var method: Method
    public var url: String
    /// Extra request headers, in order (`If-None-Match`, `Content-Type`, `X-Verification-Code`…).
    public var headers: [(name: String, value: String)]
    /// The body of a POST; ignored for a GET.
    public var body: [UInt8]

    public init(_ method: Method = .get, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [])
    {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer: the status, the body (never longer than the request's limit) and the headers of the final response.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Header names in lower case; the last value wins when a name repeats.
    public var headers: [String: String]

    /// The value of header `name` (any case), or nil.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request got no answer. Carries no URL, header or body: the text is safe for logs and screens.
public enum HTTPFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The body is (or was announced) longer than the caller's limit; the transfer was stopped there.
    case oversized
    /// No complete answer within the timeout.
    case timedOut
    /// The task waiting for the answer was cancelled; the transfer was stopped.
    case cancelled
    /// Not an `http://` or `https://` address.
    case unsupportedAddress
    /// Anything else on the way: name resolution, connection, TLS, a broken answer.
    case unreachable
    /// A download's file could not be created or written (a full disk).
    case cannotWrite

    public var description: String {
        switch self {
        case .oversized: "the answer is larger than allowed"
        case .timedOut: "no answer in time"
        case .cancelled: "the request was cancelled"
        case .unsupportedAddress: "the address is not an http or https address"
        case .unreachable: "the server cannot be reached"
        case .cannotWrite: "the answer could not be written to disk"
        }
    }
}

/// The kiosk's one HTTP client, on libcurl. Each request runs on a thread of its own (libcurl blocks), so the
/// cooperative pool never waits on the network; cancelling the waiting task stops the transfer within about a
/// second (libcurl's progress callback is the only place it can be told). Redirects are followed (at most five,
/// to http or https only); the body is read up to `limit` bytes and no further, into memory (`send`) or into a file
/// as it arrives (`download`).
public enum HTTP {
    /// Sends `request`; returns the final response, whatever its status.
    public static func send(_ request: HTTPRequest, limit: Int, timeout: Duration) async throws(HTTPFailure)
        -> HTTPResponse
    {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw .unsupportedAddress
        }
        let transfer = Transfer(request: request, limit: limit, timeout: timeout)
        let outcome = await perform(transfer)
        return try outcome.get()
    }

    /// Runs `transfer` on a thread of its own (libcurl blocks), cancelled with the waiting task.
    private static func perform(_ transfer: Transfer) async -> Result<HTTPResponse, HTTPFailure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: transfer.run()) }
                thread.name = "kiosk-http"
                thread.start()
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Sends `request` and writes the body of the answer to a new file at `path` (created with mode 0600, replacing
    /// what was there) as it arrives, so a large body is never held in memory. At most `limit` bytes are written: a
    /// longer body (an endless one included) is stopped there and fails with `.oversized`; a body still arriving at
    /// `timeout` fails with `.timedOut`. On any failure the file is removed. Returns the final response with an
    /// empty `body`, whatever its status: the caller removes the file when it does not want it.
    public static func download(_ request: HTTPRequest, to path: String, limit: Int, timeout: Duration)
        async throws(HTTPFailure) -> HTTPResponse
    {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw .unsupportedAddress
        }
        let descriptor = SystemCall.retrying {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { throw .cannotWrite }
        let transfer = Transfer(request: request, limit: limit, timeout: timeout, file: descriptor)
        let outcome = await perform(transfer)
        let closed = close(descriptor) == 0
        switch outcome {
        case .success(let response) where closed:
            return response
        case .success:
            unlink(path)
            throw .cannotWrite
        case .failure(let failure):
            unlink(path)
            throw failure
        }
    }

    /// libcurl's global state, set up once before the first handle (thread-safe through Swift's lazy statics).
    fileprivate static let globalSetUp: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
}

/// One transfer: owns its curl handle for the length of `run`, and what the callbacks collect.
private final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let limit: Int
    let timeout: Duration
    private let cancelled = Atomic<Bool>(false)
    // Touched only by the thread running `run` (the callbacks run on it too).
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var tooLarge = false
    /// Where a download's body goes instead of `body`; `written` counts its bytes.
    let file: Int32?
    var written = 0
    var writeFailed = false

    init(request: HTTPRequest, limit: Int, timeout: Duration, file: Int32? = nil) {
        self.request = request
        self.limit = limit
        self.timeout = timeout
        self.file = file
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func run() -> Result<HTTPResponse, HTTPFailure> {
        guard HTTP.globalSetUp, let handle = curl_easy_init() else { return .failure(.unreachable) }
        defer { curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }

        let context = Unmanaged.passUnretained(self).toOpaque()
        let milliseconds = max(
            1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        var ok = true
        func check(_ code: CURLcode) { if code != CURLE_OK { ok = false } }

        check(kiosk_curl_set_string(handle, CURLOPT_URL, request.url))
        check(kiosk_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        check(kiosk_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(kiosk_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        check(kiosk_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        check(kiosk_curl_set_long(handle, CURLOPT_MAXREDIRS, 5))
        check(kiosk_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds))
        check(kiosk_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds))
        check(kiosk_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
        check(kiosk_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        check(kiosk_curl_set_write_callback(handle, Transfer.receiveBody))
        check(kiosk_curl_set_pointer(handle, CURLOPT_HEADERDATA, context))
        check(kiosk_curl_set_header_callback(handle, Transfer.receiveHeader))
        check(kiosk_curl_set_long(handle, CURLOPT_NOPROGRESS, 0))
        check(kiosk_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context))
        check(kiosk_curl_set_progress_callback(handle, Transfer.progress))

        // No `Expect: 100-continue` round trip before a POST's body.
        var lines = ["Expect:"]
        lines += request.headers.map { "\($0.name): \($0.value)" }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        check(kiosk_curl_set_headers(handle, headerList))

        if request.method == .post {
            check(kiosk_curl_set_long(handle, CURLOPT_POST, 1))
            check(kiosk_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            // COPYPOSTFIELDS copies the body into the handle, so its lifetime is the handle's.
            check(
                request.body.withUnsafeBytes { bytes in
                    kiosk_curl_set_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                })
        }
        guard ok else { return .failure(.unreachable) }

        let code = curl_easy_perform(handle)
        if tooLarge || code == CURLE_FILESIZE_EXCEEDED { return .failure(.oversized) }
        if writeFailed { return .failure(.cannotWrite) }
        if isCancelled { return .failure(.cancelled) }
        switch code {
        case CURLE_OK:
            return .success(HTTPResponse(status: kiosk_curl_response_code(handle), body: body, headers: headers))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .failure(.unsupportedAddress)
        default:
            return .failure(.unreachable)
        }
    }

    // MARK: - libcurl's callbacks (on the transfer's thread)

    private static let receiveBody: kiosk_curl_data_callback = { data, size, count, context in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        if let file = transfer.file {
            guard transfer.written + length <= transfer.limit else {
                transfer.tooLarge = true
                return 0  // anything but `length` stops the transfer
            }
            guard let data, length > 0 else { return length }
            var done = 0
            while done < length {
                let wrote = SystemCall.retrying { write(file, data + done, length - done) }
                guard wrote > 0 else {
                    transfer.writeFailed = true
                    return 0
                }
                done += wrote
            }
            transfer.written += length
            return length
        }
        guard transfer.body.count + length <= transfer.limit else {
            transfer.tooLarge = true
            return 0  // anything but `length` stops the transfer
        }
        if let data, length > 0 {
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
        }
        return length
    }

    private static let receiveHeader: kiosk_curl_data_callback = { data, size, count, context in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        guard let data else { return length }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") {
            // A new response begins (after a redirect or an interim answer): only the final one's headers count.
            transfer.headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            transfer.headers[name] = value
        }
        return length
    }

    private static let progress: kiosk_curl_progress_callback = { context, _, _, _, _ in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        return transfer.isCancelled ? 1 : 0
    }
}
