import Foundation
import KioskDaemon
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The authority deployed as docs/authority-deployment.md describes: Debian's nginx serves the published folder with
/// docs/authority-nginx.conf and passes report uploads to `kiosk-authority serve` on the loopback. A kiosk uploads
/// card 1's report through nginx, the authority publishes (CKPW/1 and CWA), the kiosk syncs from nginx and warns the
/// overlapping card 2 only; the next sync gets 304 for both indexes (read from nginx's access log, which holds the
/// request and the status only); after one more publication only the new package is fetched.
@Suite(.serialized) struct NginxWarningsTests {
    typealias Loop = WarningLoopTests

    /// Debian's nginx as the user running the tests, touching no system file: a prefix of its own (configuration,
    /// pid, logs, temp files), a free loopback port, in the foreground as a single process: this test's child,
    /// stopped by `stop()`.
    final class Nginx {
        let process = Process()
        let prefix: String
        let port: Int
        var accessLog: String { prefix + "/access.log" }
        var errorLog: String { prefix + "/error.log" }

        struct Missing: Error, CustomStringConvertible {
            var description: String { "nginx is not installed: board/kiosk-dev test installs nginx-light" }
        }
        struct DidNotStart: Error, CustomStringConvertible {
            let log: String
            var description: String { "nginx did not start: \(log)" }
        }

        init(serving www: String, upstreamPort: Int, prefix: String) async throws {
            let binary = "/usr/sbin/nginx"
            guard FileManager.default.isExecutableFile(atPath: binary) else { throw Missing() }
            self.prefix = prefix
            try FileManager.default.createDirectory(atPath: prefix + "/temp", withIntermediateDirectories: true)
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path
            port = try StorageWaitTests.freePort()
            let temp = prefix + "/temp"
            let configuration = """
                daemon off;
                master_process off;
                pid \(prefix)/nginx.pid;
                error_log \(prefix)/error.log crit;
                events { worker_connections 64; }
                http {
                    client_body_temp_path \(temp)/body;
                    proxy_temp_path \(temp)/proxy;
                    fastcgi_temp_path \(temp)/fastcgi;
                    uwsgi_temp_path \(temp)/uwsgi;
                    scgi_temp_path \(temp)/scgi;
                    log_format kiosk_authority '$request $status';
                    upstream kiosk_authority { server 127.0.0.1:\(upstreamPort); }
                    server {
                        listen 127.0.0.1:\(port);
                        root \(www);
                        access_log \(prefix)/access.log kiosk_authority;
                        include \(repository)/docs/authority-nginx.conf;
                    }
                }

                """
            try configuration.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Up when it accepts connections.
            for _ in 0..<200 {
                guard process.isRunning else { break }
                if Self.answers(port: port) { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            stop()
            throw DidNotStart(log: (try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? "")
        }

        /// True once something accepts connections on `port`.
        static func answers(port: Int) -> Bool {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } == 0
        }

        /// The access log's lines ("GET /warnings/index.json HTTP/1.1 304").
        func requests() throws -> [String] {
            try String(contentsOfFile: accessLog, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        /// SIGKILL: a child started by the test runner inherits its blocked signals, so nginx's single process never
        /// sees a SIGTERM; nothing is lost (the access log is written per request, unbuffered).
        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    @Test func warningsServedByNginxReachTheOverlappingCardAndAreFetchedOnce() async throws {
        let root = try SimulatedKiosk.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let authority = root + "/authority"
        let publicKey = try CWAWarningLoopTests.authority(authority)
        let code = try Loop.authority(["issue-code", "--dir", authority]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let (server, serverPort) = try await Loop.serve(authority)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let nginx = try await Nginx(serving: authority + "/www", upstreamPort: serverPort, prefix: root + "/nginx")
        defer { nginx.stop() }
        let base = "http://127.0.0.1:\(nginx.port)"
        let (kiosk, venue) = try await CWAWarningLoopTests.visitedKiosk(
            root: root,
            warnings: [
                "baseURL": base + "/warnings", "publicKey": publicKey,
                "cwaBaseURL": base + "/cwa/twp/country/DE", "cwaPublicKey": publicKey,
            ],
            reports: ["uploadURL": base + "/v1/reports", "exportDirectory": NSNull()])

        // Card 1 tests positive and uploads through nginx; the authority publishes both formats.
        let report = try await kiosk.send(
            ControlRequest(
                command: "report", card: 1, answers: ["1", "done", "symptoms", "upload \(code)", "ok", "yes"]))
        #expect(report.ok, "\(report.lines)")
        #expect(try nginx.requests() == ["POST /v1/reports HTTP/1.1 201"])
        let published = try Loop.authority(["publish", "--dir", authority])
        #expect(published.status == 0, "\(published.output)")

        let first = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(first.ok, "\(first.lines)")
        #expect(first.lines.contains { $0.hasPrefix("Warnings (CKPW/1): 1 new package(s)") }, "\(first.lines)")
        #expect(first.lines.contains { $0.hasPrefix("Warnings (CWA): 1 new hour(s)") }, "\(first.lines)")
        #expect(try await CWAWarningLoopTests.warned(kiosk, card: 2))
        #expect(try await CWAWarningLoopTests.warned(kiosk, card: 3) == false)
        let afterFirst = try nginx.requests()
        let firstSync = Array(afterFirst.dropFirst(1))
        for expected in [
            "GET /warnings/index.json HTTP/1.1 200", "GET /warnings/index.json.sig HTTP/1.1 200",
            "GET /warnings/ckpw-00000001.bin HTTP/1.1 200", "GET /warnings/ckpw-00000001.bin.sig HTTP/1.1 200",
            "GET /cwa/twp/country/DE/hour HTTP/1.1 200",
        ] {
            #expect(firstSync.contains(expected), "\(firstSync)")
        }
        #expect(
            firstSync.contains { $0.hasPrefix("GET /cwa/twp/country/DE/hour/") && $0.hasSuffix(" 200") }, "\(firstSync)"
        )

        // Nothing new: both indexes come back 304 and nothing else is asked for.
        let second = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(second.ok, "\(second.lines)")
        #expect(
            second.lines.sorted() == ["Warnings (CKPW/1): nothing new.", "Warnings (CWA): nothing new."],
            "\(second.lines)")
        let secondSync = Array(try nginx.requests().dropFirst(afterFirst.count))
        #expect(
            secondSync.sorted() == [
                "GET /cwa/twp/country/DE/hour HTTP/1.1 304", "GET /warnings/index.json HTTP/1.1 304",
            ], "\(secondSync)")

        // One more CKPW/1 publication: the new index and only the new package are fetched; the CWA index is 304.
        let window = [
            "--from", Loop.text(Date().addingTimeInterval(-86_400)), "--to",
            Loop.text(Date().addingTimeInterval(86_400 * 2)),
        ]
        #expect(try Loop.authority(["warn-venue", "--dir", authority, "--code", venue] + window).status == 0)
        let afterSecond = try nginx.requests()
        #expect(try Loop.authority(["publish", "--dir", authority]).status == 0)
        let third = try await kiosk.send(ControlRequest(command: "sync"))
        #expect(third.ok, "\(third.lines)")
        #expect(third.lines.contains { $0.hasPrefix("Warnings (CKPW/1): 1 new package(s)") }, "\(third.lines)")
        let thirdSync = Array(try nginx.requests().dropFirst(afterSecond.count))
        #expect(
            thirdSync.filter { $0.hasPrefix("GET /warnings/") }.sorted() == [
                "GET /warnings/ckpw-00000002.bin HTTP/1.1 200", "GET /warnings/ckpw-00000002.bin.sig HTTP/1.1 200",
                "GET /warnings/index.json HTTP/1.1 200", "GET /warnings/index.json.sig HTTP/1.1 200",
            ], "\(thirdSync)")
        #expect(!thirdSync.contains { $0.hasPrefix("GET /cwa/twp/country/DE/hour/") }, "\(thirdSync)")

        // The log holds requests and statuses only: no client address.
        let log = try String(contentsOfFile: nginx.accessLog, encoding: .utf8)
        #expect(!log.contains("127.0.0.1"))
        #expect(kiosk.stop() == 0)
    }
}
