import Foundation
import KioskCore
import KioskDaemon

/// A control socket request line: a request writes and reads back as itself, and a staff form for a new venue either
/// names the wrong fields or makes a CWA code that reads back with the description and address typed.
func checkControlRequest(_ bytes: [UInt8]) {
    guard let request = ControlRequest(line: String(decoding: bytes, as: UTF8.self)) else { return }
    if let encoded = try? JSONEncoder().encode(request) {
        require(
            ControlRequest(line: String(decoding: encoded, as: UTF8.self)) == request, "a request does not read back")
    }
    guard case .createVenue(let draft) = request.staffCommand else { return }
    let fields: CWAVenueEncoder.Fields
    do {
        fields = try draft.validated()
    } catch {
        require(!error.fields.isEmpty, "a refused venue form names no field")
        return
    }
    let payload = CWAVenueEncoder.payload(fields, cryptographicSeed: [UInt8](repeating: 7, count: 16))
    guard let venue = try? VenueCodeParser.parse(CWAVenueEncoder.url(payload: payload), crypto: fuzzCrypto) else {
        fatalError("a venue made from a valid form does not read back")
    }
    require(venue.name == fields.description && venue.address == fields.address, "a made venue reads back otherwise")
}

/// A request to the local HTTP server, received in chunks (the first byte says how long each is): it is refused
/// with a status the server knows, or handed on with an upper-case method, a path, lower-case header names and the
/// body its `Content-Length` announced.
func checkHTTPRequest(_ bytes: [UInt8]) {
    let chunkLength = Int(bytes.first ?? 1) + 1
    var rest = bytes.dropFirst()
    var chunks = 0
    let result = LocalHTTPServer.readRequest {
        chunks += 1
        guard !rest.isEmpty else { return nil }
        let chunk = Array(rest.prefix(chunkLength))
        rest = rest.dropFirst(chunkLength)
        return chunk
    }
    require(chunks <= bytes.count + 1, "more reads than bytes")
    switch result {
    case .success(let request):
        require(!request.method.isEmpty && request.method.allSatisfy { $0.isASCII && $0.isUppercase }, "a bad method")
        require(request.target.hasPrefix("/"), "a target without a path")
        require(request.headers.keys.allSatisfy { $0 == $0.lowercased() }, "a header name not lower-cased")
        require(request.body.count <= LocalHTTPServer.maximumBody, "a body larger than allowed")
        require(request.body.count == Int(request.header("Content-Length") ?? "0") ?? -1, "a body of another length")
        require(request.headers["transfer-encoding"] == nil, "a chunked body was taken")
    case .failure(let refusal):
        if let response = refusal.response {
            require([400, 413, 431, 501].contains(response.status), "a refusal with an unexpected status")
            requireNoEcho(String(decoding: response.body, as: UTF8.self), of: bytes)
        }
    }
}
