import Foundation
import KioskDaemon
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// I-2 and I-9: everything a running kiosk sends, recorded by the server it talks to, over check-ins, check-outs, a
/// holder's session and warnings syncs. Nothing leaves but downloads: GET requests without a body, for the warnings'
/// files, with only the headers a download needs (no user agent, no kiosk id), naming no venue and no card.
@Suite(.serialized) struct EgressTests {
    /// A recording HTTP server (Python's standard library): every request as a JSON line in `file`, answered 404.
    static let recorder = """
        import http.server, json, sys
        out = open(sys.argv[1], "a")
        class Handler(http.server.BaseHTTPRequestHandler):
            def record(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                out.write(json.dumps({"method": self.command, "path": self.path,
                    "headers": [k.lower() for k in self.headers.keys()],
                    "head": str(self.headers), "body": len(body)}) + "\\n")
                out.flush()
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = record
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        with open(sys.argv[2] + ".part", "w") as port:
            port.write(str(server.server_address[1]))
        import os
        os.rename(sys.argv[2] + ".part", sys.argv[2])
        server.serve_forever()
        """

    struct Request: Decodable {
        let method: String
        let path: String
        let headers: [String]
        let head: String
        let body: Int
    }

    @Test func aRunningKioskSendsOnlyDownloadsWithNothingOfItsVisitors() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let record = root + "/requests.jsonl"
        FileManager.default.createFile(atPath: record, contents: nil)
        let portFile = root + "/recorder-port"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.recorder, record, portFile]
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: the test process's children inherit its blocked SIGTERM.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // The port, as soon as the server has written it (a deadline only a hang could miss).
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: portFile), Date() < deadline, server.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        let port = try #require(
            Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""), "the recorder did not start")
        let publicKey = try CWAWarningLoopTests.authority(root + "/authority")
        let (kiosk, _) = try await CWAWarningLoopTests.visitedKiosk(
            root: root,
            warnings: [
                "baseURL": "http://127.0.0.1:\(port)/warnings", "publicKey": publicKey,
                "cwaBaseURL": "http://127.0.0.1:\(port)/cwa/twp/country/DE", "cwaPublicKey": publicKey,
            ])
        defer { _ = kiosk.stop() }
        // A holder's session: opened, looked through, closed.
        _ = try await kiosk.send(ControlRequest(command: "advance", seconds: 60))
        _ = try await kiosk.send(ControlRequest(command: "tap", card: 1))
        for choice in ["session", "settings", "back", "done"] {
            _ = try await kiosk.send(ControlRequest(command: "choose", text: choice))
        }
        _ = try await kiosk.send(ControlRequest(command: "remove"))
        _ = try await kiosk.send(ControlRequest(command: "sync"))
        _ = try await kiosk.send(ControlRequest(command: "sync"))

        let requests = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
        #expect(!requests.isEmpty, "the syncs reached the server")
        for request in requests {
            #expect(request.method == "GET" && request.body == 0, "\(request.method) \(request.path)")
            #expect(
                request.path.hasPrefix("/warnings/") || request.path.hasPrefix("/cwa/twp/country/DE/"),
                "\(request.path)")
            #expect(Set(request.headers).isSubset(of: ["host", "accept", "if-none-match"]), "\(request.head)")
            #expect(!request.head.contains("Community hall") && !request.path.contains("Community"))
        }
    }
}
